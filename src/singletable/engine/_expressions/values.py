"""AttributeValue semantics the expression evaluators share: typing, equality, ordering, numbers.

Numbers stay strings in items (as on the wire), so equality and ordering go through ``Decimal``: DynamoDB
compares N values by magnitude ("1.0" equals "1"), strings by code point (which is UTF-8 byte order) and
binaries byte-wise. Canonicalising and range-checking numbers is the codec's job; until it exists a small
private fallback with the same contract stands in.
"""

from __future__ import annotations

from decimal import Context, Decimal
from typing import Any

from .._errors import ValueProblem, validation

try:  # pragma: no cover - the codec (single AttributeValues) may not exist yet
    from .._attribute_values import normalize_number
except ImportError:  # pragma: no cover
    from .._numbers import normalize_number

AV = dict[str, Any]

# Wide enough that sums/differences of any two in-range numbers (exponents -130..125, 38 digits) are exact;
# the 38-digit limit is then enforced on the exact result, which is what DynamoDB reports.
EXACT = Context(prec=400, Emax=999999, Emin=-999999)

SCALAR_ORDERED = frozenset({"N", "S", "B"})
SET_TYPES = frozenset({"SS", "NS", "BS"})
TYPE_NAMES = frozenset({"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"})


def type_of(av: AV) -> str:
    """The single type tag of a validated AttributeValue."""
    for tag in av:
        return tag
    raise validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")


def number_result(value: Decimal) -> AV:
    """Wrap an exact arithmetic result, enforcing DynamoDB's precision and range on it.

    A result out of range is the computation's error, not a malformed request value: one wording for every
    operation (the value layers' older one, which is the plain message)."""
    try:
        return {"N": normalize_number(str(value))}
    except ValueProblem as problem:
        raise validation(problem.message) from None


def dec(text: str) -> Decimal:
    return Decimal(text)


def equal(a: AV, b: AV) -> bool:
    """DynamoDB equality: same type and same value; numbers by magnitude, sets and maps unordered."""
    ((ta, va),) = a.items()
    ((tb, vb),) = b.items()
    if ta != tb:
        return False
    if ta == "N":
        return va == vb or Decimal(va) == Decimal(vb)
    if ta in ("S", "B", "BOOL", "NULL"):
        return bool(va == vb)
    if ta == "NS":
        return len(va) == len(vb) and {Decimal(x) for x in va} == {Decimal(x) for x in vb}
    if ta in ("SS", "BS"):
        return len(va) == len(vb) and set(va) == set(vb)
    if ta == "L":
        return len(va) == len(vb) and all(equal(x, y) for x, y in zip(va, vb, strict=True))
    if ta == "M":
        return va.keys() == vb.keys() and all(equal(v, vb[k]) for k, v in va.items())
    return False


def compare_key(av: AV) -> tuple[str, Any] | None:
    """A sortable key for N/S/B values (None for types that have no order)."""
    ((tag, value),) = av.items()
    if tag == "N":
        return tag, Decimal(value)
    if tag == "S":
        return tag, value
    if tag == "B":
        return tag, bytes(value)
    return None


def contains(haystack: AV, needle: AV) -> bool:
    ((th, vh),) = haystack.items()
    ((tn, vn),) = needle.items()
    if th == "S":
        return tn == "S" and vn in vh
    if th == "B":
        return tn == "B" and bytes(vn) in bytes(vh)
    if th == "SS":
        return tn == "S" and vn in vh
    if th == "BS":
        return tn == "B" and bytes(vn) in {bytes(x) for x in vh}
    if th == "NS":
        return tn == "N" and Decimal(vn) in {Decimal(x) for x in vh}
    if th == "L":
        return any(equal(element, needle) for element in vh)
    return False


def size(av: AV) -> int | None:
    """size(): the length of S in UTF-16 code units (as Java counts it: a character outside the Basic
    Multilingual Plane is 2, AWS's answer per the Parity Suite), bytes of B, elements of sets, lists and maps;
    None for other types."""
    ((tag, value),) = av.items()
    if tag == "S" and not value.isascii():
        return len(value.encode("utf-16-le", "surrogatepass")) // 2
    if tag in ("S", "B", "SS", "NS", "BS", "L", "M"):
        return len(value)
    return None


def describe(av: AV) -> str:
    """DynamoDB's rendering of a value inside error texts (the Java SDK's toString: ``{N:9}``)."""
    ((tag, value),) = av.items()
    if tag == "B":
        n = len(value)
        return f"{{B:java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]}}"
    if tag in ("S", "N"):
        return f"{{{tag}:{value}}}"
    if tag in ("SS", "NS"):
        return f"{{{tag}:[{', '.join(value)}]}}"
    if tag == "BOOL":
        return f"{{BOOL:{'true' if value else 'false'}}}"
    if tag == "NULL":
        return f"{{NULL:{'true' if value else 'false'}}}"
    return f"{{{tag}:...}}"
