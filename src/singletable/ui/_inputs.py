"""What the console accepts from a form or an address, checked before anything uses it: a POST's fields and
whole numbers (a page's limit). JSON texts (an item, a key, a condition's names and values) are read by
:func:`singletable.data.read_json`, which bounds their depth in the data package's words.

A form is decoded a slice at a time: ``urllib.parse.parse_qsl`` splits a value at every ``%``, so a 4 MB
value of ``%7B%7B...`` took 330 MB (and a second of the event loop); here it takes a few times its size.

Numbers are ASCII digits only: Python's ``int()`` also reads ``'٣'`` (Arabic-Indic three) and ``str.isdigit``
passes ``'²'``, which ``int()`` then refuses in its own words.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

# A form's fields: the console's forms have about a dozen.
MAX_FIELDS = 100
# How much percent-encoded text is decoded at once (its pieces are what costs memory).
SLICE = 64 * 1024


def whole_number(text: str, what: str, low: int, high: int) -> int:
    """``text`` as a whole number from ``low`` to ``high``, written in ASCII digits; ValueError otherwise."""
    if text.isascii() and text.isdigit() and len(text) <= 20 and low <= int(text) <= high:
        return int(text)
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise ValueError(f"{what} must be a whole number from {low} to {high} (digits 0-9), not {shown!r}")


def form_fields(body: bytes) -> dict[str, str]:
    """A URL-encoded form (``application/x-www-form-urlencoded``) as its fields, the last of a repeated name
    kept; ValueError when it has more than :data:`MAX_FIELDS` fields or is not UTF-8 text."""
    if body.count(b"&") >= MAX_FIELDS:
        raise ValueError(f"the form has more than {MAX_FIELDS} fields")
    fields: dict[str, str] = {}
    for pair in body.split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        fields[_decoded(name)] = _decoded(value)
    return fields


def _decoded(raw: bytes) -> str:
    """One name or value: ``+`` is a space, ``%XX`` a byte, the bytes UTF-8 (strictly)."""
    raw = raw.replace(b"+", b" ")
    if b"%" not in raw:
        return raw.decode("utf-8")
    out = bytearray()
    start = 0
    while start < len(raw):
        end = min(start + SLICE, len(raw))
        split = raw.rfind(b"%", end - 2, end) if end < len(raw) else -1
        end = split if split > start else end  # never cut a %XX in two
        out += unquote_to_bytes(raw[start:end])
        start = end
    return out.decode("utf-8")
