"""DynamoDB's Number type: parsing, the canonical text DynamoDB answers with, and its size in bytes.

DynamoDB numbers are exact decimals of at most 38 significant digits with a magnitude between 1E-130 and
9.99..E+125. Every number of every write passes through :func:`normalize_number`, so the common case (a
number already in canonical form: an integer or a plain decimal, as clients write them) is answered by one
regex match, and everything else is cached.

What DynamoDB accepts (AWS's answers, as the Parity Suite records them, and DynamoDB Local 1.25.1 where they
agree):

* accepted: ``+1``, ``.5``, ``5.``, ``1.e5``, ``1E+00005``, any Unicode decimal digits (``"\\u0661"`` is 1);
* refused as "cannot be converted to a numeric value": whitespace, ``NaN``/``Infinity``, ``1_000``, hex, an
  exponent outside a 64-bit integer;
* range-checked by the exponent read in full: ``1e99999999999`` overflows, ``1e-2147483648`` underflows, and
  zero too is checked by the exponent it is written with (``0e126`` overflows, ``0e125`` is ``0``);
* checked in this order: parse, precision (leading and trailing zeros do not count), then magnitude;
* answered in plain notation, never with an exponent: ``1E+100`` comes back as 1 followed by 100 zeros and
  ``1.0E-120`` as ``0.000...0001``; ``-0`` comes back as ``0``.

A refusal is a :class:`~singletable.engine._errors.ValueProblem` in both of DynamoDB's wordings. The older
layer reads a number as Java's BigDecimal does: an exponent or scale past a 32-bit integer cannot be
converted, ``1e2147483647`` wraps to an underflow, and an empty string's message has no colon.
"""

from __future__ import annotations

import re
from decimal import Decimal

from singletable.engine._errors import ValueProblem

MAX_PRECISION = 38
MAX_EXPONENT = 125  # adjusted exponent (position of the leading digit) of the largest magnitude
MIN_EXPONENT = -130  # ... and of the smallest

NOT_NUMERIC = "The parameter cannot be converted to a numeric value"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
# AWS's text (quoted by users of the real service). DynamoDB Local 1.25.1 says instead
# "DynamoDB only supports precision up to 38 digits".
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"

_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_INT64_DIGITS = len(str(_INT64_MAX))

# Already canonical: plain notation, no leading zeros, no trailing zeros after the point, no "-0". A text
# of at most 38 characters has at most 38 digits, so its precision and magnitude (1E-37 to 1E+38) are in
# range: such a text is its own canonical form. (Parsing one in full took ~20,000 instructions, a fifth of
# validating bench/run.py's item; this match takes ~1,000.)
CANONICAL = re.compile(r"-?[1-9][0-9]*(?:\.[0-9]*[1-9])?|-?0\.[0-9]*[1-9]|0")
CANONICAL_CHARS = 38
# \d in a str pattern is any Unicode decimal digit, which is what Java's Character.isDigit accepts.
_NUMBER = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")

_cache: dict[str, str] = {}
_CACHE_LIMIT = 65536


def normalize_number(text: str) -> str:
    """Validate a DynamoDB number and return the text DynamoDB would hand back for it."""
    if type(text) is str and len(text) <= CANONICAL_CHARS and CANONICAL.fullmatch(text):
        return text
    cached = _cache.get(text) if type(text) is str else None
    if cached is not None:
        return cached
    result = _normalize(text)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[text] = result
    return result


def number_value(text: str) -> Decimal:
    """The exact value of a DynamoDB number, for arithmetic and comparison (never a float)."""
    return Decimal(normalize_number(text))


def _normalize(text: object) -> str:
    if not isinstance(text, str):
        raise ValueProblem(NOT_NUMERIC, NOT_NUMERIC)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise unreadable_number(text)
    sign, whole, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    if not whole and not fraction:
        raise unreadable_number(text)
    if not text.isascii():
        whole, fraction = _ascii_digits(whole), _ascii_digits(fraction)
        exponent_text = _ascii_digits(exponent_text) if exponent_text else exponent_text
    # An exponent of more digits than any 64-bit integer has cannot be converted (and is not handed to
    # int(), which refuses texts of thousands of digits).
    exponent = 0
    if exponent_text:
        exponent_digits = exponent_text.lstrip("+-").lstrip("0")
        if len(exponent_digits) > _INT64_DIGITS:
            raise unreadable_number(text)
        exponent = -int(exponent_digits or "0") if exponent_text[0] == "-" else int(exponent_digits or "0")
    if not _INT64_MIN <= exponent <= _INT64_MAX:
        raise unreadable_number(text)
    # Whether Java's BigDecimal (the older layer) can hold it: exponent and scale within an int.
    java = _INT32_MIN <= exponent <= _INT32_MAX and _INT32_MIN <= len(fraction) - exponent <= _INT32_MAX
    digits = (whole + fraction).lstrip("0")
    if not digits:  # zero: range-checked by the exponent it is written with
        if not MIN_EXPONENT <= exponent <= MAX_EXPONENT:
            raise _out_of_range(text, exponent, java)
        return "0"
    stripped = digits.rstrip("0")
    # value = stripped * 10**point, where point is the power of ten of the last significant digit
    point = exponent - len(fraction) + (len(digits) - len(stripped))
    if len(stripped) > MAX_PRECISION:
        raise ValueProblem(TOO_PRECISE if java else _unreadable_text(text), TOO_PRECISE)
    leading = point + len(stripped) - 1
    if not MIN_EXPONENT <= leading <= MAX_EXPONENT:
        raise _out_of_range(text, leading, java)
    return format_digits(sign == "-", stripped, point)


def unreadable_number(text: str) -> ValueProblem:
    """The refusal of a text that is no number at all."""
    return ValueProblem(_unreadable_text(text), f"{NOT_NUMERIC}: {text}")


def _unreadable_text(text: str) -> str:
    # The older layer drops the colon after the message when the text is empty.
    return f"{NOT_NUMERIC}: {text}" if text else NOT_NUMERIC


def _out_of_range(text: str, leading: int, java: bool) -> ValueProblem:
    """Overflow or underflow of a number whose leading digit is at the power ``leading`` of ten."""
    current = OVERFLOW if leading > MAX_EXPONENT else UNDERFLOW
    if not java:
        return ValueProblem(_unreadable_text(text), current)
    # BigDecimal's precision minus scale is an int: one past the largest wraps to the most negative.
    older = UNDERFLOW if leading + 1 > _INT32_MAX else current
    return ValueProblem(older, current)


def _ascii_digits(text: str) -> str:
    return "".join(str(int(ch)) if not ch.isascii() else ch for ch in text)


def format_digits(negative: bool, digits: str, point: int) -> str:
    """Plain-notation text of ``(-)digits * 10**point``; ``digits`` has no leading or trailing zeros."""
    if point >= 0:
        body = digits + "0" * point
    elif -point < len(digits):
        body = digits[:point] + "." + digits[point:]
    else:
        body = "0." + "0" * (-point - len(digits)) + digits
    return "-" + body if negative else body


def split_canonical(canonical: str) -> tuple[bool, str, int]:
    """``(negative, significant digits, leading-digit exponent)`` of a canonical nonzero number."""
    negative = canonical[0] == "-"
    body = canonical[1:] if negative else canonical
    dot = body.find(".")
    if dot < 0:
        digits = body.rstrip("0")
        return negative, digits, len(body) - 1
    whole = body[:dot]
    if whole != "0":
        return negative, whole + body[dot + 1 :], dot - 1
    fraction = body[dot + 1 :]
    digits = fraction.lstrip("0")
    return negative, digits, len(digits) - len(fraction) - 1


def number_size(canonical: str) -> int:
    """Bytes a canonical number counts for in an item's size.

    DynamoDB stores numbers as base-100 digits aligned on the decimal point (two decimal digits per byte),
    plus one exponent byte, plus a terminator byte for a negative number unless it already has the maximum
    20 base-100 digits (so no number exceeds 21 bytes). Leading and trailing zero *pairs* are free,
    so 1100 costs 2 but 110 costs 3, and 0.0011 costs 2 but 0.011 costs 3 (bisected against DynamoDB
    Local's 400 KB limit; AWS documents it only as "about 1 byte per two significant digits, plus 1").
    """
    if canonical == "0":
        return 1
    # The power of ten of the leading and of the last significant digit, read off the text in place
    # (split_canonical's digits, without building them: this runs for every number of every write).
    negative = canonical[0] == "-"
    body = canonical[1:] if negative else canonical
    dot = body.find(".")
    if dot < 0:  # an integer: trailing zeros are not significant
        leading = len(body) - 1
        last = len(body) - len(body.rstrip("0"))
    elif dot == 1 and body[0] == "0":  # 0.000ddd: the fraction's leading zeros are not significant
        last = 2 - len(body)
        leading = len(body.lstrip("0.")) + last - 1
    else:  # ddd.ddd (canonical: no trailing zeros after the point)
        leading = dot - 1
        last = dot + 1 - len(body)
    # base-100 digit k covers 10**(2k) and 10**(2k+1): count the pair indices spanned by the digits.
    pairs = (leading >> 1) - (last >> 1) + 1
    return 1 + pairs + (1 if negative and pairs < 20 else 0)
