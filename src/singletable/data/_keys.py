"""Keys and key conditions as a shell user types them: ``PK=USER#1 SK^=ORDER#`` (docs/data.md, "Keys").

A table's key attributes and their types come from DescribeTable (:func:`key_schema`), so ``n=10`` is a
Number where ``n`` is a Number key and a String where it is a String key; a Binary key value is base64. One
argument is ``NAME OP VALUE`` with OP one of ``=``, ``<``, ``<=``, ``>``, ``>=`` or ``^=`` (begins_with); two
bounds on the sort key, ``SK>=A SK<=B``, are DynamoDB's ``BETWEEN``. What the shorthand cannot say is passed
as an expression (``key_condition=`` with ``values=``), DynamoDB's own syntax.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from singletable.data._targets import Target

AttributeValue = dict[str, Any]
_ARGUMENT = re.compile(r"^(?P<name>[^=<>^]+)(?P<op><=|>=|\^=|=|<|>)(?P<value>.*)$", re.DOTALL)


class KeySchema(NamedTuple):
    """The key of a table or one of its indexes: attribute names and types (``S``, ``N`` or ``B``)."""

    hash: tuple[str, str]
    range: tuple[str, str] | None

    @property
    def names(self) -> list[str]:
        return [self.hash[0]] + ([self.range[0]] if self.range else [])


class Expression(NamedTuple):
    """A DynamoDB expression with its placeholders: ``#n`` -> attribute name, ``:v`` -> AttributeValue."""

    text: str
    names: dict[str, str]
    values: dict[str, AttributeValue]


def key_schema(description: Mapping[str, Any], index: str | None = None) -> KeySchema:
    """The key of a TableDescription, or of its index ``index``; ``ValueError`` names a missing index."""
    types = {d["AttributeName"]: d["AttributeType"] for d in description.get("AttributeDefinitions", ())}
    elements = description["KeySchema"]
    if index is not None:
        indexes = [
            *description.get("GlobalSecondaryIndexes", ()),
            *description.get("LocalSecondaryIndexes", ()),
        ]
        found = [i for i in indexes if i["IndexName"] == index]
        if not found:
            names = ", ".join(i["IndexName"] for i in indexes) or "none"
            raise ValueError(f"table {description['TableName']} has no index {index} (its indexes: {names})")
        elements = found[0]["KeySchema"]
    by_type = {e["KeyType"]: e["AttributeName"] for e in elements}
    hash_name, range_name = by_type["HASH"], by_type.get("RANGE")
    return KeySchema((hash_name, types[hash_name]), (range_name, types[range_name]) if range_name else None)


def describe_keys(target: Target, table: str, index: str | None = None) -> KeySchema:
    """:func:`key_schema` of a table on a target (one DescribeTable)."""
    return key_schema(target.call("DescribeTable", TableName=table)["Table"], index)


def typed_value(text: str, kind: str, name: str) -> AttributeValue:
    """A command-line value as the AttributeValue of a key attribute of type ``kind``."""
    if kind == "B":
        try:
            return {"B": base64.b64decode(text, validate=True)}
        except binascii.Error:
            raise ValueError(f"{name} is a Binary key: give its value in base64, not {text!r}") from None
    return {kind: text}


def split_argument(argument: str) -> tuple[str, str, str]:
    """``"SK^=ORDER#"`` -> ``("SK", "^=", "ORDER#")``; ``ValueError`` for text that is not NAME OP VALUE."""
    match = _ARGUMENT.match(argument)
    if match is None:
        raise ValueError(f"{argument!r} is not NAME=VALUE (or NAME<VALUE, <=, >, >=, ^= for begins_with)")
    return match["name"], match["op"], match["value"]


def key_from_arguments(arguments: Sequence[str], schema: KeySchema) -> dict[str, AttributeValue]:
    """A primary key from ``NAME=VALUE`` arguments, one per key attribute, typed by the schema."""
    types = dict([schema.hash, *([schema.range] if schema.range else [])])
    key: dict[str, AttributeValue] = {}
    for argument in arguments:
        name, op, value = split_argument(argument)
        if op != "=":
            raise ValueError(f"a key is NAME=VALUE, not {argument!r}")
        if name not in types:
            raise ValueError(f"{name} is not a key attribute: the key is {' '.join(schema.names)}")
        if name in key:
            raise ValueError(f"{name} is given twice")
        key[name] = typed_value(value, types[name], name)
    missing = [name for name in schema.names if name not in key]
    if missing:
        raise ValueError(f"the key needs {' and '.join(missing)} (the key is {' '.join(schema.names)})")
    return key


def key_condition(arguments: Sequence[str], schema: KeySchema) -> Expression:
    """A KeyConditionExpression from ``PK=v`` and at most a sort-key comparison or two inclusive bounds."""
    hash_name, hash_type = schema.hash
    equal: AttributeValue | None = None
    bounds: list[tuple[str, AttributeValue]] = []
    for argument in arguments:
        name, op, text = split_argument(argument)
        if name == hash_name:
            if op != "=" or equal is not None:
                raise ValueError(f"the partition key {hash_name} takes one NAME=VALUE, not {argument!r}")
            equal = typed_value(text, hash_type, name)
        elif schema.range is not None and name == schema.range[0]:
            bounds.append((op, typed_value(text, schema.range[1], name)))
        else:
            raise ValueError(f"{name} is not a key attribute here: the key is {' '.join(schema.names)}")
    if equal is None:
        raise ValueError(f"a query needs the partition key: {hash_name}=VALUE")
    text, values = "#k0 = :k0", {":k0": equal}
    sort = _sort_condition(bounds, schema.range[0] if schema.range else "")
    if sort:
        text += " AND " + sort[0]
        values.update(sort[1])
    names = {"#k0": hash_name, **({"#k1": schema.range[0]} if sort and schema.range else {})}
    return Expression(text, names, values)


def _sort_condition(
    bounds: list[tuple[str, AttributeValue]], name: str
) -> tuple[str, dict[str, AttributeValue]] | None:
    if not bounds:
        return None
    if len(bounds) == 1:
        op, value = bounds[0]
        if op == "^=":
            return "begins_with(#k1, :k1)", {":k1": value}
        return f"#k1 {op} :k1", {":k1": value}
    ops = {op: value for op, value in bounds}
    if len(bounds) == 2 and set(ops) == {">=", "<="}:
        return "#k1 BETWEEN :k1 AND :k2", {":k1": ops[">="], ":k2": ops["<="]}
    raise ValueError(
        f"the sort key {name} takes one condition, or two inclusive bounds {name}>=LOW {name}<=HIGH (BETWEEN)"
    )
