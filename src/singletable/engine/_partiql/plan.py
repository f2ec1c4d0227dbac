"""From a parsed statement to the API requests that carry it out.

A SELECT becomes one Query per pinned partition-key value (or one Scan); INSERT, UPDATE, DELETE and EXISTS
become the Put / Update / Delete / ConditionCheck shapes of TransactWriteItems, which ExecuteStatement runs
as PutItem / UpdateItem / DeleteItem and ExecuteTransaction hands to TransactWriteItems whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from singletable.engine._interfaces import TableCatalog

from .._errors import DynamoDBError, validation
from .._expressions import ast as ex
from .._expressions.unparse import unparse_condition, unparse_projection, unparse_update
from .._schema import IndexSchema, TableSchema
from .._table_descriptions import INVALID_NAME
from . import ast
from .checks import check_filter_projected, check_ordered_constants, check_overlapping_branches
from .errors import (
    BAD_TABLE_NAME,
    INSERT_STRUCT,
    KEY_ABSENT,
    KEY_EQUALITY,
    KEY_TYPE,
    MISSING_RESOURCE,
    NO_TABLE,
    ORDER_BY_HASH,
    ORDER_BY_WHERE,
    at,
)
from .translate import AV, Translator, conjuncts, is_value, plain_name

HASH_VALUE = ":hashkey"
_FLIP = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def find_table(engine: TableCatalog, name: str, missing: str = NO_TABLE) -> TableSchema:
    try:
        return engine.table(name)
    except DynamoDBError as error:
        if error.code == "ResourceNotFoundException":
            raise DynamoDBError("ResourceNotFoundException", missing) from None
        if error.message == INVALID_NAME:  # PartiQL words the naming rules its own way
            raise DynamoDBError("ValidationException", BAD_TABLE_NAME) from None
        raise


def _and(nodes: list[ex.Condition]) -> ex.Condition | None:
    result: ex.Condition | None = None
    for node in nodes:
        result = node if result is None else ex.And(result, node)
    return result


def _and_after(first: ex.Condition, nodes: list[ex.Condition]) -> ex.Condition:
    """``first AND nodes[0] AND ...``: ``_and`` of a list known to hold ``first``, never None."""
    result = first
    for node in nodes:
        result = ex.And(result, node)
    return result


def _check_key_type(name: str, kind: str, value: AV) -> None:
    if not isinstance(value, dict) or len(value) != 1 or kind not in value:
        raise validation(KEY_TYPE + name)


def _key_value(expr: ast.Expr, name: str) -> ast.Expr | None:
    """The constant side of ``name = constant`` (either way round), else None."""
    if not isinstance(expr, ast.Binary) or expr.op != "=":
        return None
    if plain_name(expr.left) == name and is_value(expr.right):
        return expr.right
    if plain_name(expr.right) == name and is_value(expr.left):
        return expr.left
    return None


@dataclass
class ReadPlan:
    """A SELECT as Query or Scan requests: ``hash_values`` is None for a Scan."""

    table: str
    index: str | None
    hash_values: list[AV] | None
    params: dict[str, Any] = field(default_factory=dict)
    full_key: dict[str, AV] | None = None  # the item's key when the WHERE pins all of it with equalities
    # SELECT's nested paths (a.b[0]) come back keyed by their last step ("b[0]"), not as nested documents.
    nested: tuple[tuple[Any, ...], ...] | None = None

    def reshape(self, item: AV) -> AV:
        if self.nested is None:
            return item
        out: AV = {}
        for elements in self.nested:
            value: Any = item
            for element in elements:
                if isinstance(element, int):
                    inner = value.get("L") if isinstance(value, dict) else None
                    value = inner[element] if inner is not None and element < len(inner) else None
                elif value is item:
                    value = item.get(element)
                else:
                    inner = value.get("M") if isinstance(value, dict) else None
                    value = inner.get(element) if inner is not None else None
                if value is None:
                    break
            if value is not None:
                last = max(i for i, element in enumerate(elements) if isinstance(element, str))
                label = elements[last] + "".join(f"[{n}]" for n in elements[last + 1 :])
                out[label] = value
        return out

    def request(self, partition: int) -> dict[str, Any]:
        params = dict(self.params)
        if self.hash_values is not None:
            values = dict(params.get("ExpressionAttributeValues") or {})
            values[HASH_VALUE] = self.hash_values[partition]
            params["ExpressionAttributeValues"] = values
        return params


def plan_select(
    engine: TableCatalog, select: ast.Select, parameters: list[AV], consistent: bool = False
) -> ReadPlan:
    check_ordered_constants(select.where, parameters)
    schema, index = _select_source(engine, select, consistent)
    source = index if index is not None else schema
    range_name = source.range.name if source.range is not None else None
    check_overlapping_branches(select.where, source.hash.name, range_name, parameters)
    translator = Translator(parameters)
    parts = conjuncts(select.where)
    hash_attr, range_attr = source.hash, source.range
    hash_values, key_parts = _hash_values(parts, hash_attr.name, translator)
    for value in hash_values or ():
        _check_key_type(hash_attr.name, hash_attr.type, value)
    range_node: ex.Condition | None = None
    if hash_values is not None and range_attr is not None:
        range_node, range_values = _range_part(parts, key_parts, range_attr.name, translator)
        for value in range_values:
            _check_key_type(range_attr.name, range_attr.type, value)

    descending = _order(select, source, hash_values is not None)
    filters = [part for part in parts if not any(part is used for used in key_parts)]
    if index is not None and hash_values is not None:
        check_filter_projected(schema, index, filters)
    rest = [translator.condition(part) for part in filters]
    params: dict[str, Any] = {"TableName": select.table}
    if select.index is not None:
        params["IndexName"] = select.index
    if hash_values is not None:
        key_node: ex.Condition = ex.Comparison(
            "=", ex.Path((translator.name(hash_attr.name),)), ex.ValuePlaceholder(HASH_VALUE)
        )
        if range_node is not None:
            key_node = ex.And(key_node, range_node)
        params["KeyConditionExpression"] = unparse_condition(key_node)
        if descending:
            params["ScanIndexForward"] = False
    _finish_select(select, params, rest, translator)
    plan = ReadPlan(select.table, select.index, hash_values, params)
    if select.projection is not None and any(isinstance(item, ast.PathExpr) for item in select.projection):
        plan.nested = tuple(
            # translator.path accepted each item above: a path or a name
            (item.root.name, *item.steps) if isinstance(item, ast.PathExpr) else (item.name,)  # type: ignore[union-attr]
            for item in select.projection
        )
    if index is None and hash_values is not None and len(hash_values) == 1:
        plan.full_key = _full_key(schema, parts, translator)
    return plan


def _select_source(
    engine: TableCatalog, select: ast.Select, consistent: bool
) -> tuple[TableSchema, IndexSchema | None]:
    """The table and (``FROM "table"."index"``) index a SELECT reads."""
    schema = find_table(engine, select.table)
    index: IndexSchema | None = None
    if select.index is not None:
        index = schema.indexes.get(select.index)
        if index is None:
            if select.index in schema.vector_indexes:  # searched by SearchVectors only
                raise validation("Scan operation not supported on this index type")
            raise validation("The table does not have the specified index")
    _refuse_multi_attribute(index)
    if select.projection_error is not None:
        raise select.projection_error
    if index is not None and index.is_global and consistent:
        raise validation("Strongly consistent read is not supported on Global Secondary Indexes")
    return schema, index


# DynamoDB's PartiQL does not read an index with multi-attribute keys (the text names tables, but the
# refusal follows the index: the same table's other indexes and its items still read and write).
MULTI_ATTRIBUTE_REFUSED = (
    "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute "
    "RANGE keys."
)


def _refuse_multi_attribute(index: IndexSchema | None) -> None:
    if index is not None and index.composite:
        raise validation(MULTI_ATTRIBUTE_REFUSED)


def _hash_values(
    parts: list[ast.Expr], hash_name: str, translator: Translator
) -> tuple[list[AV] | None, list[ast.Expr]]:
    """The partition key values the WHERE pins (``=``, ``IN`` or ORed equalities; None: a scan), with the
    conjunct that pins them."""
    for part in parts:
        constant = _key_value(part, hash_name)
        if constant is not None:
            return [translator.value(constant)], [part]
        if (
            isinstance(part, ast.InExpr)
            and not part.negated
            and plain_name(part.operand) == hash_name
            and isinstance(part.choices, ast.ListExpr | ast.BagExpr)
            and part.choices.items
            and all(is_value(choice) for choice in part.choices.items)
        ):
            return _distinct_values(part.choices.items, translator), [part]
        ored = _ored_equalities(part, hash_name)
        if ored is not None:
            return _distinct_values(ored, translator), [part]
    return None, []


def _distinct_values(constants: Iterable[ast.Expr], translator: Translator) -> list[AV]:
    values: list[AV] = []
    for constant in constants:
        value = translator.value(constant)
        if value not in values:
            values.append(value)
    return values


def _range_part(
    parts: list[ast.Expr], key_parts: list[ast.Expr], range_name: str, translator: Translator
) -> tuple[ex.Condition | None, list[AV]]:
    """The first conjunct that is a sort key condition (added to ``key_parts``), and its values."""
    for part in parts:
        if part in key_parts:
            continue
        range_node, range_values = _range_condition(part, range_name, translator)
        if range_node is not None:
            key_parts.append(part)
            return range_node, range_values
    return None, []


def _finish_select(
    select: ast.Select, params: dict[str, Any], rest: list[ex.Condition], translator: Translator
) -> None:
    """The filter, projection and expression attribute maps of a SELECT's request."""
    filter_node = _and(rest)
    if filter_node is not None:
        params["FilterExpression"] = unparse_condition(filter_node)
    if select.projection is not None:
        _check_projection(select.projection)
        paths = tuple(translator.path(item) for item in select.projection)
        params["ProjectionExpression"] = unparse_projection(ex.ProjectionExpression(paths))
    if translator.names:
        params["ExpressionAttributeNames"] = translator.names
    if translator.values:
        params["ExpressionAttributeValues"] = translator.values


def _ored_equalities(part: ast.Expr, name: str) -> list[ast.Expr] | None:
    """The constants of ``name = a OR name = b ...`` (every branch an equality on ``name``), else None."""
    if isinstance(part, ast.Binary) and part.op == "OR":
        left = _ored_equalities(part.left, name)
        right = _ored_equalities(part.right, name) if left is not None else None
        return left + right if left is not None and right is not None else None
    constant = _key_value(part, name)
    return [constant] if constant is not None else None


def _range_condition(
    part: ast.Expr, name: str, translator: Translator
) -> tuple[ex.Condition | None, list[AV]]:
    """A range-key test DynamoDB can use as a key condition, with the values it compares against."""
    if isinstance(part, ast.Binary) and part.op in _FLIP:
        if plain_name(part.left) == name and is_value(part.right):
            op, constant = part.op, part.right
        elif plain_name(part.right) == name and is_value(part.left):
            op, constant = _FLIP[part.op], part.left
        else:
            return None, []
        value = translator.value(constant)
        return ex.Comparison(op, ex.Path((translator.name(name),)), translator.placeholder(value)), [value]
    if (
        isinstance(part, ast.BetweenExpr)
        and not part.negated
        and plain_name(part.operand) == name
        and is_value(part.low)
        and is_value(part.high)
    ):
        low, high = translator.value(part.low), translator.value(part.high)
        path = ex.Path((translator.name(name),))
        node = ex.Between(path, translator.placeholder(low), translator.placeholder(high))
        return node, [low, high]
    if (
        isinstance(part, ast.Call)
        and part.name.lower() == "begins_with"
        and len(part.args) == 2
        and plain_name(part.args[0]) == name
        and is_value(part.args[1])
    ):
        value = translator.value(part.args[1])
        path = ex.Path((translator.name(name),))
        return ex.FunctionCall("begins_with", (path, translator.placeholder(value))), [value]
    return None, []


def _order(select: ast.Select, source: Any, pinned: bool) -> bool:
    """Whether ORDER BY asks for descending sort-key order, after DynamoDB's checks on the clause."""
    if not select.order_by:
        return False
    if select.where is None:
        raise validation(ORDER_BY_WHERE)
    descending = False
    for path, desc in select.order_by:
        name = plain_name(path)
        if name is None or name not in source.key_names:
            shown = name if name is not None else "expression"
            raise validation(f"Variable reference {shown} in ORDER BY clause must be part of the primary key")
        if source.range is not None and name == source.range.name:
            descending = desc
    if not pinned:
        raise validation(ORDER_BY_HASH)
    return descending


def _check_projection(items: tuple[ast.Expr, ...]) -> None:
    seen: set[str] = set()
    for item in items:
        name = plain_name(item)
        if name is None:
            continue
        if name in seen:
            raise validation(f"Duplicate identifiers in select clause: {name}")
        seen.add(name)


def _full_key(schema: TableSchema, parts: list[ast.Expr], translator: Translator) -> dict[str, AV] | None:
    key: dict[str, AV] = {}
    for name in schema.key_names:
        for part in parts:
            constant = _key_value(part, name)
            if constant is not None:
                key[name] = translator.value(constant)
                break
        else:
            return None
    return key


# -- writes -------------------------------------------------------------------------------------------------


@dataclass
class WritePlan:
    """One write as a TransactWriteItems entry: ``kind`` is Put, Update, Delete or ConditionCheck."""

    kind: str
    params: dict[str, Any]
    returning: str | None = None
    is_insert: bool = False


def _write_key(
    schema: TableSchema, where: ast.Expr | None, translator: Translator
) -> tuple[dict[str, AV], list[ast.Expr]]:
    """The full key a write's WHERE pins with equalities, and the rest of the WHERE (its condition)."""
    parts = conjuncts(where)
    key: dict[str, AV] = {}
    used: list[ast.Expr] = []
    for attr in (schema.hash, schema.range):
        if attr is None:
            continue
        matches = [part for part in parts if _key_value(part, attr.name) is not None]
        if not matches:
            raise validation(KEY_EQUALITY)
        if len(matches) > 1:
            raise validation(
                f"Multiple conditions on same key {attr.name}. "
                "Only single item Update/Insert/Delete are supported"
            )
        constant = _key_value(matches[0], attr.name)
        assert constant is not None
        value = translator.value(constant)
        _check_key_type(attr.name, attr.type, value)
        key[attr.name] = value
        used.append(matches[0])
    return key, [part for part in parts if not any(part is u for u in used)]


def _finish(params: dict[str, Any], translator: Translator) -> dict[str, Any]:
    if translator.names:
        params["ExpressionAttributeNames"] = translator.names
    if translator.values:
        params["ExpressionAttributeValues"] = translator.values
    return params


def plan_write(
    engine: TableCatalog,
    statement: ast.Statement,
    parameters: list[AV],
    *,
    missing: str = NO_TABLE,
    prefix: str = "",
) -> WritePlan:
    """``prefix`` goes before the statement's own refusals (ExecuteTransaction names its member)."""
    table = statement.select.table if isinstance(statement, ast.Exists) else statement.table
    if isinstance(statement, ast.Update) and statement.from_first:
        missing = MISSING_RESOURCE
    schema = find_table(engine, table, missing)
    translator = Translator(parameters)

    def exists() -> ex.Condition:
        return ex.FunctionCall("attribute_exists", (ex.Path((translator.name(schema.hash.name),)),))

    if isinstance(statement, ast.Insert):
        if not isinstance(statement.value, ast.StructExpr):
            raise at(INSERT_STRUCT, statement.value.pos)
        item = translator.struct(statement.value)
        for attr in (schema.hash, schema.range):
            if attr is None:
                continue
            if attr.name not in item:
                raise validation(KEY_ABSENT + attr.name)
            _check_key_type(attr.name, attr.type, item[attr.name])
        names = {"#n0": schema.hash.name}
        params = {
            "TableName": table,
            "Item": item,
            "ConditionExpression": "attribute_not_exists(#n0)",
            "ExpressionAttributeNames": names,
        }
        return WritePlan("Put", params, is_insert=True)
    if isinstance(statement, ast.Update):
        key, rest = _write_key(schema, statement.where, translator)
        update = translator.update(statement.actions)
        condition = _and_after(exists(), [translator.condition(part) for part in rest])
        params = {
            "TableName": table,
            "Key": key,
            "UpdateExpression": unparse_update(update),
            "ConditionExpression": unparse_condition(condition),
        }
        return WritePlan("Update", _finish(params, translator), statement.returning)
    if isinstance(statement, ast.Delete):
        key, rest = _write_key(schema, statement.where, translator)
        params = {"TableName": table, "Key": key}
        check = _and([translator.condition(part) for part in rest])
        if check is not None:
            # A DELETE of an item that is not there is a no-op whatever else its WHERE says.
            absent = ex.FunctionCall("attribute_not_exists", (ex.Path((translator.name(schema.hash.name),)),))
            params["ConditionExpression"] = unparse_condition(ex.Or(absent, check))
        return WritePlan("Delete", _finish(params, translator), statement.returning)
    if isinstance(statement, ast.Exists):
        key, rest = _write_key(schema, statement.select.where, translator)
        if not rest:
            raise validation(prefix + EXISTS_CONDITION)
        condition = _and_after(exists(), [translator.condition(part) for part in rest])
        params = {"TableName": table, "Key": key, "ConditionExpression": unparse_condition(condition)}
        return WritePlan("ConditionCheck", _finish(params, translator))
    raise validation("Unsupported operation")


SINGLE_ITEM = "Only single item select is supported"
EXISTS_CONDITION = "EXISTS() must contain a single item read with additional condition"


def plan_get(
    engine: TableCatalog,
    select: ast.Select,
    parameters: list[AV],
    *,
    missing: str = NO_TABLE,
    not_single: str = SINGLE_ITEM,
    not_key: str | None = None,
) -> dict[str, Any]:
    """A SELECT that names exactly one item by its full key (batches, transactions) as GetItem params.

    ``not_single`` refuses a WHERE that does not pin one item; ``not_key`` (default: the same) one with a
    condition on anything but the key."""
    schema = find_table(engine, select.table, missing)
    if select.index is not None:
        _refuse_multi_attribute(schema.indexes.get(select.index))
    if select.projection_error is not None:
        raise select.projection_error
    translator = Translator(parameters)
    parts = conjuncts(select.where)
    key: dict[str, AV] = {}
    for part in parts:
        for attr in (schema.hash, schema.range):
            if attr is None:
                continue
            constant = _key_value(part, attr.name)
            if constant is not None and attr.name not in key:
                value = translator.value(constant)
                _check_key_type(attr.name, attr.type, value)
                key[attr.name] = value
                break
        else:
            raise validation(not_key or not_single)
    if select.index is not None or len(key) != len(schema.key_names) or len(parts) != len(key):
        raise validation(not_single)
    params: dict[str, Any] = {"TableName": select.table, "Key": key}
    if select.projection is not None:
        _check_projection(select.projection)
        paths = tuple(translator.path(item) for item in select.projection)
        params["ProjectionExpression"] = unparse_projection(ex.ProjectionExpression(paths))
    return _finish(params, translator)
