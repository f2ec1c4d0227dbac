"""Request-level checks of ExpressionAttributeNames/Values and the "unused" bookkeeping.

DynamoDB lists unused placeholders in the iteration order of a Java ``HashSet`` built from all the keys the
request supplied; :func:`java_set_order` reproduces that so our texts match byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .._attribute_values import ValueContext, validate_value
from .._errors import validation

_NAME_KEY = re.compile(r"#[A-Za-z0-9_]+")
_VALUE_KEY = re.compile(r":[A-Za-z0-9_]+")


def _java_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h ^ (h >> 16)


def java_set_order(keys: Iterable[str], total: int) -> list[str]:
    """Order of ``keys`` in a ``HashSet`` sized for ``total`` elements (``new HashSet<>(collection)``)."""
    want = max(int(total / 0.75) + 1, 16)
    capacity = 1
    while capacity < want:
        capacity *= 2
    indexed = list(enumerate(keys))
    indexed.sort(key=lambda pair: (_java_hash(pair[1]) & (capacity - 1), pair[0]))
    return [key for _, key in indexed]


def check_names(names: dict[str, str]) -> None:
    for key, value in names.items():
        if not isinstance(key, str) or not _NAME_KEY.fullmatch(key):
            raise validation(f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"')
        if not value:
            raise validation(
                f"ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}"
            )


def check_values(values: dict[str, Any]) -> dict[str, Any]:
    """Validate each value (the codec's EAV rules and texts), returning numbers in canonical form."""
    out: dict[str, Any] = {}
    for key, av in values.items():
        if not isinstance(key, str) or not _VALUE_KEY.fullmatch(key):
            raise validation(f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"')
        out[key] = validate_value(av, context=ValueContext.EAV, name=key)
    return out
