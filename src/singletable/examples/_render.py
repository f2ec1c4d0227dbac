"""How a demo prints: a DynamoDB request in a line or a few, an AttributeValue as a plain value, a step's
result as lines, and the capacity a list of calls consumed.

Everything here is a pure function of the request, response or result, so the same calls print the same text
on every backend; where backends legitimately differ (the member order of a LastEvaluatedKey) the printed
form is normalised.
"""

from __future__ import annotations

import json
import re
from typing import Any

_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")
# The request members describe() prints as "label: expression", in this order.
_EXPRESSIONS = (
    ("KeyConditionExpression", "key"),
    ("UpdateExpression", "update"),
    ("ConditionExpression", "if"),
    ("FilterExpression", "filter"),
    ("ProjectionExpression", "project"),
    ("SearchConditionExpression", "where"),
)


def plain(av: dict[str, Any]) -> Any:
    """An AttributeValue as a plain, printable Python value."""
    ((kind, value),) = av.items()
    if kind == "M":
        return {k: plain(v) for k, v in sorted(value.items())}
    if kind == "L":
        return [plain(v) for v in value]
    if kind in ("SS", "NS", "BS"):
        return sorted(value)
    if kind == "B":
        return value.hex()
    return value


def _literal(av: dict[str, Any]) -> str:
    if "L" in av and len(av["L"]) > SHOWN_NUMBERS and all("N" in x for x in av["L"]):
        return _numbers(plain(av))
    value = plain(av)
    if "N" in av:
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def inline(expression: str, params: dict[str, Any]) -> str:
    """An expression with its #names and :values written in, as a reader would want to see it."""
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}

    def substitute(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in names:
            return names[token]
        if token in values:
            return _literal(values[token])
        return token

    return _PLACEHOLDER.sub(substitute, expression)


# A list of more numbers than this (an embedding) is printed as its first numbers and its length.
SHOWN_NUMBERS = 8


def _numbers(values: list[Any]) -> str:
    return "[" + ", ".join(str(v) for v in values[:3]) + f", ... {len(values)} numbers]"


def _shortened(value: Any) -> Any:
    """``value`` (a model_dump) with each long list of numbers replaced by its short form."""
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > SHOWN_NUMBERS and all(isinstance(v, int | float) for v in value):
            return _numbers(value)
        return [_shortened(v) for v in value]
    return value


def _key(key: dict[str, Any]) -> str:
    return ", ".join(f"{name}={_literal(av)}" for name, av in key.items())


def _request_line(operation: str, params: dict[str, Any]) -> str:
    """The request's first line: operation, index, key or item, expressions, order, limit, start key."""
    parts = [operation]
    if "IndexName" in params:
        parts.append(f"index={params['IndexName']}")
    if "Key" in params:
        parts.append(f"key({_key(params['Key'])})")
    if "Item" in params:
        parts.append(f"item({_key({k: v for k, v in params['Item'].items() if k in ('PK', 'SK')})})")
    for member, label in _EXPRESSIONS:
        if member in params:
            parts.append(f"{label}: {inline(params[member], params)}")
    if params.get("ScanIndexForward") is False:
        parts.append("newest first")
    if "Limit" in params:
        parts.append(f"limit={params['Limit']}")
    if "TopK" in params:
        parts.append(f"top_k={params['TopK']}")
    if "ExclusiveStartKey" in params:
        # A LastEvaluatedKey's member order differs between DynamoDB implementations: print it sorted.
        parts.append(f"after({_key(dict(sorted(params['ExclusiveStartKey'].items())))})")
    return "  ".join(parts)


def describe(operation: str, params: dict[str, Any]) -> list[str]:
    """The request in one or a few lines: what a DynamoDB user needs to recognise it."""
    lines = [_request_line(operation, params)]
    for action in params.get("TransactItems") or ():
        ((verb, body),) = action.items()
        lines += ["    " + line for line in describe(verb, body)]
    for table, request in (params.get("RequestItems") or {}).items():
        if isinstance(request, dict):
            lines.append(f"    {table}: {len(request.get('Keys', []))} keys")
        else:
            lines.append(f"    {table}: {len(request)} writes")
    return lines


def capacity(responses: list[dict[str, Any] | None]) -> float:
    """The capacity units the responses report consumed, summed (a batch reports a list, one per table)."""
    total = 0.0
    for response in responses:
        consumed = (response or {}).get("ConsumedCapacity")
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            total += float(entry.get("CapacityUnits", 0.0))
    return total


def render_result(result: Any) -> list[str]:
    """Entities as ``TYPE {fields}`` lines; pages, lists and scalars as they come."""
    from singletable.model import Entity

    if result is None:
        return ["(none)"]
    if isinstance(result, Entity):
        data = _shortened(result.model_dump(mode="json", exclude_none=True))
        return [
            f"{type(result).__name__} {json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)}"
        ]
    if hasattr(result, "items") and hasattr(result, "cursor") and not isinstance(result, dict):
        lines = [line for item in result.items for line in render_result(item)]
        lines.append(f"cursor: {'(more)' if result.cursor else '(end)'}")
        return lines
    if hasattr(result, "score") and hasattr(result, "entity"):  # a search result (singletable.model.Scored)
        return [f"{result.score:.4f}  {line}" for line in render_result(result.entity)]
    if isinstance(result, (list, tuple)):
        lines = [line for item in result for line in render_result(item)]
        return lines or ["(empty)"]
    if isinstance(result, dict):
        return [json.dumps(result, sort_keys=True, ensure_ascii=False, default=str)]
    return [str(result)]
