"""DynamoDB's Number type: parsing, the canonical text DynamoDB answers with, and its size in bytes.

DynamoDB numbers are exact decimals of at most 38 significant digits with a magnitude between 1E-130 and
9.99..E+125. Every number of every write passes through :func:`normalize_number`, so the common case (a
number already in canonical form: an integer or a plain decimal, as clients write them) is answered by one
regex match, and everything else is cached.

Measured against DynamoDB Local 1.25.1 (which parses like Java's ``BigDecimal``):

* accepted: ``+1``, ``.5``, ``5.``, ``1.e5``, ``1E+00005``, any Unicode decimal digits (``"\\u0661"`` is 1);
* rejected as "cannot be converted": whitespace, ``NaN``/``Infinity``, ``1_000``, hex, an exponent outside
  32-bit range (``1e2147483648``), or a scale (fraction digits minus exponent) outside 32-bit range
  (``0e-2147483648``) -- even when the value is zero;
* checked in this order: parse, precision (leading and trailing zeros do not count), then magnitude;
* answered in plain notation, never with an exponent: ``1E+100`` comes back as 1 followed by 100 zeros and
  ``1.0E-120`` as ``0.000...0001``; ``-0`` comes back as ``0``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from singletable.engine._errors import DynamoDBError, validation

MAX_PRECISION = 38
MAX_EXPONENT = 125  # adjusted exponent (position of the leading digit) of the largest magnitude
MIN_EXPONENT = -130  # ... and of the smallest

NOT_A_NUMBER = "A value provided cannot be converted into a number"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
# AWS's text (quoted by users of the real service). DynamoDB Local 1.25.1 says instead
# "DynamoDB only supports precision up to 38 digits".
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"

_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1

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
        raise validation(NOT_A_NUMBER)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise validation(NOT_A_NUMBER)
    sign, whole, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    if not whole and not fraction:
        raise validation(NOT_A_NUMBER)
    if not text.isascii():
        whole, fraction = _ascii_digits(whole), _ascii_digits(fraction)
        exponent_text = _ascii_digits(exponent_text) if exponent_text else exponent_text
    exponent = int(exponent_text) if exponent_text else 0
    # Java's BigDecimal refuses exponents and scales that do not fit an int, whatever the value.
    if not _INT32_MIN <= exponent <= _INT32_MAX or not _INT32_MIN <= len(fraction) - exponent <= _INT32_MAX:
        raise validation(NOT_A_NUMBER)
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return "0"
    stripped = digits.rstrip("0")
    # value = stripped * 10**point, where point is the power of ten of the last significant digit
    point = exponent - len(fraction) + (len(digits) - len(stripped))
    if len(stripped) > MAX_PRECISION:
        raise validation(TOO_PRECISE)
    leading = point + len(stripped) - 1
    if leading > MAX_EXPONENT:
        raise validation(OVERFLOW)
    if leading < MIN_EXPONENT:
        raise validation(UNDERFLOW)
    return format_digits(sign == "-", stripped, point)


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


def is_number_error(error: DynamoDBError) -> bool:
    """True when an error came from number validation (its message is one of the number texts)."""
    return error.message in (NOT_A_NUMBER, OVERFLOW, UNDERFLOW, TOO_PRECISE)
