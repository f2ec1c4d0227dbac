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
    """The key of a table or one of its indexes: attribute names and types (``S``, ``N`` or ``B``).

    ``hash`` and ``range`` are the first partition and sort attributes; a GSI may key on up to four of each
    (multi-attribute keys), all of them then in ``hashes`` and ``ranges``, in KeySchema order (``partition``
    and ``sort`` give every attribute of either form)."""

    hash: tuple[str, str]
    range: tuple[str, str] | None
    hashes: tuple[tuple[str, str], ...] = ()
    ranges: tuple[tuple[str, str], ...] = ()

    @property
    def partition(self) -> tuple[tuple[str, str], ...]:
        """Every partition attribute, with its type."""
        return self.hashes or (self.hash,)

    @property
    def sort(self) -> tuple[tuple[str, str], ...]:
        """Every sort attribute, with its type (none for a key without a sort key)."""
        return self.ranges or ((self.range,) if self.range else ())

    @property
    def names(self) -> list[str]:
        return [name for name, _ in (*self.partition, *self.sort)]


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
    hashes = tuple(
        (e["AttributeName"], types[e["AttributeName"]]) for e in elements if e["KeyType"] == "HASH"
    )
    ranges = tuple(
        (e["AttributeName"], types[e["AttributeName"]]) for e in elements if e["KeyType"] == "RANGE"
    )
    several = len(hashes) > 1 or len(ranges) > 1  # (a key of one attribute per part keeps the short form)
    return KeySchema(hashes[0], ranges[0] if ranges else None, *((hashes, ranges) if several else ()))


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
    """A KeyConditionExpression from ``PK=v`` and at most a sort-key comparison or two inclusive bounds.

    On an index keyed on several attributes, every partition attribute takes ``NAME=VALUE``, and sort
    attributes are given from the left: ``NAME=VALUE`` for all but the last given, which may instead take
    a comparison, ``^=`` or two bounds (DynamoDB's rule for such keys)."""
    partition = dict(schema.partition)
    sorts = [name for name, _ in schema.sort]
    equal: dict[str, AttributeValue] = {}
    bounds: dict[str, list[tuple[str, AttributeValue]]] = {}
    for argument in arguments:
        name, op, text = split_argument(argument)
        if name in partition:
            if op != "=" or name in equal:
                raise ValueError(f"the partition key {name} takes one NAME=VALUE, not {argument!r}")
            equal[name] = typed_value(text, partition[name], name)
        elif name in sorts:
            bounds.setdefault(name, []).append((op, typed_value(text, dict(schema.sort)[name], name)))
        else:
            raise ValueError(f"{name} is not a key attribute here: the key is {' '.join(schema.names)}")
    missing = [name for name in partition if name not in equal]
    if missing:
        if len(partition) == 1:
            raise ValueError(f"a query needs the partition key: {missing[0]}=VALUE")
        raise ValueError(
            f"a query needs every partition key attribute ({', '.join(partition)}): give "
            + " ".join(f"{name}=VALUE" for name in missing)
        )
    names: dict[str, str] = {}
    values: dict[str, AttributeValue] = {}
    parts = []
    for n, name in enumerate(partition):
        names[f"#k{n}"], values[f":k{n}"] = name, equal[name]
        parts.append(f"#k{n} = :k{n}")
    given = [name for name in sorts if name in bounds]
    if given != sorts[: len(given)]:
        gap = next(name for name, expected in zip(given, sorts, strict=False) if name != expected)
        raise ValueError(
            f"sort key attributes are given from the left ({', '.join(sorts)}): {gap} needs "
            f"{sorts[sorts.index(gap) - 1]} first"
        )
    for position, name in enumerate(given):
        last = position == len(given) - 1
        conditions = bounds[name]
        if not last and [op for op, _ in conditions] != ["="]:
            raise ValueError(
                f"{name} is followed by {given[position + 1]}, so it takes one NAME=VALUE (a range goes on "
                "the last sort key attribute given)"
            )
        token = f"#k{len(names)}"
        names[token] = name
        text, found = _sort_condition(conditions, name, token, f":k{len(values)}")
        parts.append(text)
        values.update(found)
    return Expression(" AND ".join(parts), names, values)


def _sort_condition(
    bounds: list[tuple[str, AttributeValue]], name: str, token: str, value: str
) -> tuple[str, dict[str, AttributeValue]]:
    if len(bounds) == 1:
        op, found = bounds[0]
        if op == "^=":
            return f"begins_with({token}, {value})", {value: found}
        return f"{token} {op} {value}", {value: found}
    ops = {op: found for op, found in bounds}
    if len(bounds) == 2 and set(ops) == {">=", "<="}:
        high = f":k{int(value[2:]) + 1}"
        return f"{token} BETWEEN {value} AND {high}", {value: ops[">="], high: ops["<="]}
    raise ValueError(
        f"the sort key {name} takes one condition, or two inclusive bounds {name}>=LOW {name}<=HIGH (BETWEEN)"
    )
