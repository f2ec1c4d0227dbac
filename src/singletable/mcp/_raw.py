"""``query_raw`` and ``scan_raw``: DynamoDB Query and Scan on an allowlisted table, from typed arguments only.

Offered only for the tables the policy names (``--raw-table``). The agent never writes expression text: a
key condition is ``{"partition": {"attribute", "value"}, "sort": {"attribute", "operator", "value"}}``, a
filter a list of ``{"attribute", "operator", "value" | "to" | "values"}`` with operators from an enum, a
projection a list of attribute names. :func:`raw_request` builds the request from them with a placeholder for
every name (``#a0``) and every value (``:r0``), so nothing the agent sends is parsed as an expression. A
value's DynamoDB type is its JSON type (text S, number N, true/false BOOL, null NULL), or ``{"N": "..."}``
for a number kept digit for digit and ``{"B": "<base64>"}`` for binary.

Results are plain JSON (:func:`plain_items`); the cursor is the last evaluated key, signed and bound to the
request it continues (:func:`request_scope`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from singletable.data.shared import to_plain
from singletable.mcp._schema import ArgumentError, object_schema
from singletable.mcp._tools import Policy, ToolSpec, paging_schema

KEY_OPERATORS = ["=", "<", "<=", ">", ">=", "between", "begins_with"]
FILTER_OPERATORS = [*KEY_OPERATORS[:1], "<>", *KEY_OPERATORS[1:], "contains", "in", "exists", "not_exists"]
COMPARISONS = frozenset({"=", "<>", "<", "<=", ">", ">="})
MAX_TEXT = 65_536  # characters in one value: more than any key allows, far less than an item's 400 KB
MAX_CONDITIONS = 20
MAX_IN_VALUES = 100  # DynamoDB's limit on IN's operands
EXACT_INTEGERS = 2**53  # beyond this a JSON reader's double no longer holds every integer
NUMBER_TEXT = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"

NAME = {"type": "string", "minLength": 1, "maxLength": 255, "description": "An attribute name (top level)."}
TEXT = {"type": "string", "maxLength": MAX_TEXT}
EXACT_NUMBER = object_schema({"N": {"type": "string", "pattern": NUMBER_TEXT, "maxLength": 64}}, ["N"])
BINARY = object_schema({"B": {"type": "string", "maxLength": MAX_TEXT, "contentEncoding": "base64"}}, ["B"])
KEY_VALUE = {
    "anyOf": [TEXT, {"type": "number"}, EXACT_NUMBER, BINARY],
    "description": 'A key value: text (S), a number (N), {"N": "digits"} or {"B": "base64"}.',
}
VALUE = {
    "anyOf": [TEXT, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, EXACT_NUMBER, BINARY],
    "description": 'A value: text (S), a number (N), true/false (BOOL), null (NULL), {"N": "digits"} or '
    '{"B": "base64"}.',
}


def _key_schema() -> dict[str, Any]:
    partition = object_schema({"attribute": NAME, "value": KEY_VALUE}, ["attribute", "value"])
    sort = object_schema(
        {
            "attribute": NAME,
            "operator": {"type": "string", "enum": KEY_OPERATORS},
            "value": KEY_VALUE,
            "to": {**KEY_VALUE, "description": "The upper bound (inclusive), for between only."},
        },
        ["attribute", "operator", "value"],
    )
    return {
        **object_schema({"partition": partition, "sort": sort}, ["partition"]),
        "description": "The key condition: the partition key equal to a value, and optionally one condition "
        "on the sort key.",
    }


def _filter_schema() -> dict[str, Any]:
    condition = object_schema(
        {
            "attribute": NAME,
            "operator": {"type": "string", "enum": FILTER_OPERATORS},
            "value": VALUE,
            "to": {**VALUE, "description": "The upper bound (inclusive), for between only."},
            "values": {"type": "array", "items": VALUE, "minItems": 1, "maxItems": MAX_IN_VALUES},
        },
        ["attribute", "operator"],
    )
    return {
        "type": "array",
        "items": condition,
        "maxItems": MAX_CONDITIONS,
        "description": "Conditions every returned item meets (all of them): exists and not_exists take no "
        "value, between takes value and to, in takes values, the others value. Items read and dropped "
        "still cost read capacity.",
    }


def _common(policy: Policy) -> dict[str, Any]:
    return {
        "table": {"type": "string", "enum": sorted(policy.raw_tables), "description": "The table to read."},
        "index": {"type": "string", "minLength": 3, "maxLength": 255, "pattern": "^[A-Za-z0-9_.-]+$"},
        "filter": _filter_schema(),
        "projection": {
            "type": "array",
            "items": NAME,
            "minItems": 1,
            "maxItems": 100,
            "uniqueItems": True,
            "description": "Return only these attributes.",
        },
    }


def raw_tools(policy: Policy) -> dict[str, ToolSpec]:
    """``query_raw`` and ``scan_raw`` when the policy allows raw reads of some table; else none."""
    if not policy.raw_tables:
        return {}
    tables = ", ".join(sorted(policy.raw_tables))
    query_properties = {
        **_common(policy),
        "key": _key_schema(),
        "descending": {"type": "boolean", "description": "Read the sort key from the highest down."},
        **paging_schema(policy),
    }
    scan_properties = {**_common(policy), **paging_schema(policy)}
    budget = f"reads until `limit` items or the call's read budget ({policy.max_rcu_per_call:g} RCU)"
    return {
        "query_raw": ToolSpec(
            "query_raw",
            f"Raw DynamoDB Query on an allowlisted table ({tables}), from typed arguments: a key condition, "
            f"filter conditions and a projection (no expression text). Prefer the access-pattern tools; "
            f"{budget}; items as plain JSON with a cursor for the next page.",
            object_schema(query_properties, ["table", "key"]),
            "query_raw",
        ),
        "scan_raw": ToolSpec(
            "scan_raw",
            f"Raw DynamoDB Scan of an allowlisted table ({tables}), from typed arguments: filter conditions "
            f"and a projection (no expression text). Reads the whole table page by page: prefer the "
            f"access-pattern tools; {budget}; items as plain JSON with a cursor for the next page.",
            object_schema(scan_properties, ["table"]),
            "scan_raw",
        ),
    }


# -- building the request --------------------------------------------------------------------------------


@dataclass(slots=True)
class Placeholders:
    """The request's ExpressionAttributeNames and -Values: one placeholder per name and per value."""

    names: dict[str, str] = field(default_factory=dict)  # attribute -> #a0
    values: dict[str, Any] = field(default_factory=dict)  # :r0 -> AttributeValue
    prefix: str = "r"

    def name(self, attribute: str) -> str:
        token = self.names.get(attribute)
        if token is None:
            token = self.names[attribute] = f"#{self.prefix}{len(self.names)}"
        return token

    def value(self, av: dict[str, Any]) -> str:
        token = f":{self.prefix}{len(self.values)}"
        self.values[token] = av
        return token

    def into(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.names:
            names = params.setdefault("ExpressionAttributeNames", {})
            names.update({token: name for name, token in self.names.items()})
        if self.values:
            params.setdefault("ExpressionAttributeValues", {}).update(self.values)
        return params


def attribute_value(tool: str, label: str, value: Any) -> dict[str, Any]:
    """A typed argument as an AttributeValue; :class:`ArgumentError` naming ``label`` if it is not one."""
    if isinstance(value, bool):
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, int):
        return {"N": str(value)}
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArgumentError(f"{tool}: argument {label}: {value!r} is not a number DynamoDB can store")
        return {"N": repr(value)}
    if isinstance(value, dict) and "N" in value:
        return {"N": value["N"]}
    if isinstance(value, dict) and "B" in value:
        try:
            return {"B": base64.b64decode(value["B"], validate=True)}
        except (binascii.Error, ValueError, TypeError):
            raise ArgumentError(f"{tool}: argument {label}.B: not base64 text") from None
    raise ArgumentError(f"{tool}: argument {label}: {value!r} is not a typed value")


def _operands(tool: str, label: str, condition: dict[str, Any]) -> list[str]:
    """Which of value/to/values the condition's operator takes; an error naming the first misfit."""
    operator = condition["operator"]
    wanted = (
        []
        if operator in ("exists", "not_exists")
        else ["values"]
        if operator == "in"
        else ["value", "to"]
        if operator == "between"
        else ["value"]
    )
    for name in wanted:
        if name not in condition:
            raise ArgumentError(f"{tool}: argument {label}.{name}: {operator} needs it")
    for name in ("value", "to", "values"):
        if name not in wanted and name in condition:
            raise ArgumentError(f"{tool}: argument {label}.{name}: {operator} takes no {name}")
    return wanted


def _condition(tool: str, label: str, condition: dict[str, Any], marks: Placeholders) -> str:
    operator = condition["operator"]
    _operands(tool, label, condition)
    name = marks.name(condition["attribute"])

    def value(key: str) -> str:
        return marks.value(attribute_value(tool, f"{label}.{key}", condition[key]))

    if operator in COMPARISONS:
        return f"{name} {operator} {value('value')}"
    if operator == "between":
        return f"{name} BETWEEN {value('value')} AND {value('to')}"
    if operator in ("begins_with", "contains"):
        return f"{operator}({name}, {value('value')})"
    if operator == "in":
        options = [
            marks.value(attribute_value(tool, f"{label}.values[{i}]", v))
            for i, v in enumerate(condition["values"])
        ]
        return f"{name} IN ({', '.join(options)})"
    return f"attribute_{operator}({name})"  # exists, not_exists


def raw_request(tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The Query or Scan (operation, parameters) that checked ``arguments`` describe, without paging."""
    marks = Placeholders()
    params: dict[str, Any] = {"TableName": arguments["table"]}
    if "index" in arguments:
        params["IndexName"] = arguments["index"]
    operation = "Scan"
    if tool == "query_raw":
        operation = "Query"
        key = arguments["key"]
        parts = [_condition(tool, "key.partition", {**key["partition"], "operator": "="}, marks)]
        if "sort" in key:
            parts.append(_condition(tool, "key.sort", key["sort"], marks))
        params["KeyConditionExpression"] = " AND ".join(parts)
        if arguments.get("descending"):
            params["ScanIndexForward"] = False
    conditions = [
        _condition(tool, f"filter[{i}]", c, marks) for i, c in enumerate(arguments.get("filter", ()))
    ]
    if conditions:
        params["FilterExpression"] = " AND ".join(f"({c})" for c in conditions)
    if "projection" in arguments:
        params["ProjectionExpression"] = ", ".join(marks.name(n) for n in arguments["projection"])
    return operation, marks.into(params)


def request_scope(kind: str, operation: str, params: dict[str, Any]) -> str:
    """What a cursor of this request is bound to: a digest of the request itself, so a cursor continues
    only the read it came from."""
    text = orjson.dumps([kind, operation, params], default=_bytes_text, option=orjson.OPT_SORT_KEYS)
    return f"{kind}:{hashlib.sha256(text).hexdigest()}"


def _bytes_text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError(type(value).__name__)


# -- the results -----------------------------------------------------------------------------------------


def plain_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items of AttributeValues as plain JSON: sets as sorted lists, binary as base64 text, numbers as JSON
    numbers -- as text when a JSON number (a double) cannot hold them exactly."""
    return [_json_numbers(to_plain(item)) for item in items]


def _json_numbers(value: Any) -> Any:
    if isinstance(value, Decimal):
        as_float = float(value)
        return as_float if math.isfinite(as_float) and Decimal(repr(as_float)) == value else str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > EXACT_INTEGERS:
        return str(value)
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_numbers(v) for v in value]
    return value
