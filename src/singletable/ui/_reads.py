"""The console's reads, one page at a time: browsing item collections, raw Query and Scan, access patterns.

Each read is one DynamoDB request (``Limit`` items, ``ReturnConsumedCapacity=INDEXES``) sent through
:class:`singletable.data.Target`, so a file, ``singletable serve`` and DynamoDB Local answer alike. The page
keeps what a person needs to understand it: the exact request it became (DynamoDB JSON), the items grouped
by partition, the ConsumedCapacity, and signed cursors to the next and previous pages (:mod:`._security`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from singletable.data import (
    Design,
    Expression,
    Target,
    item_to_json,
    key_condition,
    key_schema,
    read_json,
    to_plain,
)
from singletable.data.shared import merge_into
from singletable.ui._inputs import whole_number
from singletable.ui._present import PARTS_JOINER, Partition, group, show
from singletable.ui._security import decode_trail, encode_trail

Item = dict[str, Any]
DEFAULT_LIMIT = 25
MAX_LIMIT = 500
# The raw Query form's sort-key operators, as the key shorthand of singletable.data spells them.
SORT_OPERATORS = {"=": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "begins_with": "^="}


@dataclass
class Typed:
    """An item read by a pattern, as its entity (the model's typed values), or why it is not one."""

    entity: str
    values: Any = None
    error: str = ""


@dataclass
class Page:
    """One page of a read, everything the template shows."""

    operation: str
    request: dict[str, Any]
    partitions: list[Partition]
    count: int
    scanned: int | None
    capacity: Any
    next_page: str | None
    previous_page: str | None
    page_number: int
    items: list[Item] = field(default_factory=list)
    typed: list[Typed] = field(default_factory=list)


class ReadForm(ValueError):
    """A read whose form cannot become a request; the message says which field and why."""


def limit_of(text: str | None) -> int:
    if not text:
        return DEFAULT_LIMIT
    try:
        return whole_number(text, "limit", 1, MAX_LIMIT)
    except ValueError as error:
        raise ReadForm(str(error)) from None


def read_page(
    target: Target,
    description: Mapping[str, Any],
    design: Design | None,
    secret: bytes,
    operation: str,
    params: dict[str, Any],
    *,
    scope: str,
    cursor: str | None,
    limit: int,
) -> Page:
    """Run one page of ``operation`` (Query or Scan) from ``cursor`` (a trail signed for ``scope``)."""
    trail: list[Item | None] = decode_trail(secret, scope, cursor) if cursor else [None]
    request = {**params, "Limit": limit, "ReturnConsumedCapacity": "INDEXES"}
    if trail[-1] is not None:
        request["ExclusiveStartKey"] = trail[-1]
    response = target.call(operation, **request)
    items = response.get("Items", [])
    index = request.get("IndexName")
    table_key = key_schema(description).names
    key_names = list(dict.fromkeys(table_key + (key_schema(description, index).names if index else [])))
    shown = [show(item, key_names, table_key, design) for item in items]
    last = response.get("LastEvaluatedKey")
    partition_keys = [n for n, _ in key_schema(description, index).partition] if index else table_key[:1]
    return Page(
        operation=operation,
        request=request_json(operation, request),
        partitions=group(items, partition_keys, shown),
        count=response.get("Count", len(items)),
        scanned=response.get("ScannedCount"),
        capacity=response.get("ConsumedCapacity"),
        next_page=encode_trail(secret, scope, [*trail, last]) if last else None,
        previous_page=encode_trail(secret, scope, trail[:-1]) if len(trail) > 1 else None,
        page_number=len(trail),
        items=items,
    )


def request_json(operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """The request as DynamoDB JSON (binary as base64), as the API receives it."""
    shown: dict[str, Any] = {"Operation": operation}
    for name, value in request.items():
        if name in ("ExpressionAttributeValues", "ExclusiveStartKey", "Key", "Item"):
            value = item_to_json(value)
        shown[name] = value
    return shown


def scope_of(kind: str, table: str, **choices: Any) -> str:
    """What a cursor is bound to: the listing's kind, table and every choice that shapes it."""
    return json.dumps([kind, table, sorted((k, v) for k, v in choices.items() if v)], separators=(",", ":"))


def browse_request(
    description: Mapping[str, Any],
    design: Design | None,
    *,
    index: str | None,
    partition: str,
    sort_prefix: str,
    partition_prefix: str,
    entity: str,
) -> tuple[str, dict[str, Any]]:
    """Item collections: a Scan of the table or index (partitions come back whole, each in sort-key order),
    or a Query of one partition (``partition``, optionally ``sort_prefix``); ``partition_prefix`` keeps
    partitions whose key begins with it, ``entity`` items of that entity."""
    table = description["TableName"]
    schema = _schema(description, index)
    params: dict[str, Any] = {"TableName": table, **({"IndexName": index} if index else {})}
    filters: list[Expression] = []
    if partition_prefix:
        filters.append(
            Expression("begins_with(#p, :p)", {"#p": schema.hash[0]}, {":p": {"S": partition_prefix}})
        )
    if entity:
        filters.append(_entity_filter(design, entity))
    if partition:
        arguments = _partition_arguments(schema, partition, index or table)
        if sort_prefix:
            if schema.range is None:
                raise ReadForm(f"{index or table} has no sort key: leave the sort-key prefix empty")
            arguments.append(f"{schema.range[0]}^={sort_prefix}")
        merge_into(params, key_condition(arguments, schema), "KeyConditionExpression")
    if filters:
        merge_into(params, _conjunction(filters), "FilterExpression")
    return ("Query" if partition else "Scan"), params


def _partition_arguments(schema: Any, partition: str, where: str) -> list[str]:
    """``NAME=VALUE`` for each partition attribute: one value, or (an index keyed on several) the values
    joined by ``" | "`` as the partitions show them."""
    names = [name for name, _ in schema.partition]
    values = partition.split(PARTS_JOINER) if len(names) > 1 else [partition]
    if len(values) != len(names):
        raise ReadForm(
            f"{where} is partitioned by {', '.join(names)}: give one value for each, joined by "
            f"{PARTS_JOINER!r} ({PARTS_JOINER.join(names)})"
        )
    return [f"{name}={value}" for name, value in zip(names, values, strict=True)]


def _schema(description: Mapping[str, Any], index: str | None) -> Any:
    try:
        return key_schema(description, index)
    except ValueError as error:
        raise ReadForm(str(error)) from None


def _entity_filter(design: Design | None, entity: str) -> Expression:
    if design is None or entity not in design.entities:
        known = ", ".join(sorted(design.entities)) if design else "none without --design"
        raise ReadForm(f"no entity {entity!r} in the design (its entities: {known})")
    kind = design.entities[entity].model_entity().type
    return Expression("#type = :type", {"#type": design.type_attribute}, {":type": {"S": kind}})


def _conjunction(expressions: list[Expression]) -> Expression:
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    for expression in expressions:
        names.update(expression.names)
        values.update(expression.values)
    return Expression(" AND ".join(f"({e.text})" for e in expressions), names, values)


def raw_request(description: Mapping[str, Any], form: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    """The raw Query/Scan form as a request: index, partition key value, sort-key operator and value(s),
    a FilterExpression with its names and values (plain JSON), direction."""
    table = description["TableName"]
    index = form.get("index") or None
    schema = _schema(description, index)
    operation = "Scan" if form.get("operation") == "Scan" else "Query"
    params: dict[str, Any] = {"TableName": table, **({"IndexName": index} if index else {})}
    if operation == "Query":
        merge_into(params, key_condition(_key_arguments(schema, form), schema), "KeyConditionExpression")
        if form.get("direction") == "backward":
            params["ScanIndexForward"] = False
    text = form.get("filter", "").strip()
    names = _json_object(form.get("names", ""), "names")
    values = _json_object(form.get("values", ""), "values")
    if text:
        from singletable.data import from_plain

        merge_into(params, Expression(text, names, from_plain(values)), "FilterExpression")
    elif names or values:
        raise ReadForm("names and values go with a filter expression: write the filter, or leave them empty")
    return operation, params


def _key_arguments(schema: Any, form: Mapping[str, str]) -> list[str]:
    """The raw form's key condition: each partition attribute's field (``partition``, then ``partition_2``
    up to ``partition_4`` on an index keyed on several), the sort attributes given by equality from the left
    (``sort_eq_1``...), and the comparison, which goes on the next sort attribute."""
    partition = [name for name, _ in schema.partition]
    fields = ["partition", *(f"partition_{n}" for n in range(2, len(partition) + 1))]
    missing = [name for name, field in zip(partition, fields, strict=True) if not form.get(field)]
    if missing:
        raise ReadForm(
            f"a Query needs the partition key {', '.join(missing)}: give its value (or choose Scan)"
            if len(partition) == 1
            else f"a Query of this index needs every partition key attribute: give {', '.join(missing)} "
            "(or choose Scan)"
        )
    arguments = [f"{name}={form[field]}" for name, field in zip(partition, fields, strict=True)]
    sorts = [name for name, _ in schema.sort]
    equal = 0
    while equal < len(sorts) - 1 and form.get(f"sort_eq_{equal + 1}"):
        arguments.append(f"{sorts[equal]}={form[f'sort_eq_{equal + 1}']}")
        equal += 1
    skipped = [n for n in range(equal + 2, len(sorts)) if form.get(f"sort_eq_{n}")]
    if skipped:
        raise ReadForm(
            f"sort key attributes are given from the left: {sorts[skipped[0] - 1]} needs {sorts[equal]} first"
        )
    operator = form.get("sort_operator", "")
    if operator and (form.get("sort_value") or operator == "between"):
        if schema.range is None:
            raise ReadForm("this table or index has no sort key: leave the sort-key condition empty")
        name = sorts[equal]
        if operator == "between":
            arguments += [f"{name}>={form.get('sort_value', '')}", f"{name}<={form.get('sort_high', '')}"]
        elif operator in SORT_OPERATORS:
            arguments.append(f"{name}{SORT_OPERATORS[operator]}{form['sort_value']}")
        else:
            raise ReadForm(f"unknown sort-key operator {operator!r} (one of {', '.join(SORT_OPERATORS)})")
    return arguments


def _json_object(text: str, what: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = read_json(text)
    except ValueError as error:
        raise ReadForm(f"{what}: {error}") from None
    if not isinstance(value, dict):
        raise ReadForm(f'{what} must be a JSON object, like {{"#n": "name"}} or {{":v": 5}}')
    return value


def typed(design: Design, items: list[Item]) -> list[Typed]:
    """Each item of a pattern's page as its entity's values (JSON-ready), or the reason it is not one."""
    found = []
    for item in items:
        entity = design.label(item)
        cls = design.entities.get(entity)
        if cls is None:
            found.append(Typed(entity or "?", error="not an entity of this design"))
            continue
        try:
            values = cls.model_entity().from_item(item).model_dump(mode="json")
        except Exception as error:  # the model's own account of an item that does not fit, in one line
            found.append(Typed(entity, to_plain(item), f"{type(error).__name__}: {error}".splitlines()[0]))
            continue
        found.append(Typed(entity, values))
    return found
