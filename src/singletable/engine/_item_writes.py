"""The prepare step of every item write: a PutItem, UpdateItem, DeleteItem or ConditionCheck request
becomes a :class:`~singletable.engine._write_path.PreparedWrite`.

PutItem, BatchWriteItem's PutRequest and TransactWriteItems' Put all call :func:`prepare_put` (and likewise
for deletes and updates), so the same request gets the same error wherever it arrives. The functions differ
on purpose in the order they raise errors: each follows the order DynamoDB checks that request in (DeleteItem
and UpdateItem check legacy Expected before ReturnValues and Key; PutItem skips the expression checks when
the request has no condition parameter at all).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine import _legacy as legacy
from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions
from singletable.engine._interfaces import TableCatalog
from singletable.engine._schema import TableSchema
from singletable.engine._write_path import (
    CHECK,
    DELETE,
    PUT,
    UPDATE,
    PreparedWrite,
    check_index_keys,
    check_item_size,
    check_return_values,
    key_from_item,
    key_from_request,
    prepared_write,
)

PUT_RETURN_VALUES = ("NONE", "ALL_OLD")
PUT_LEGACY = ("Expected", "ConditionalOperator")
PUT_CONDITION_PARAMETERS = (
    "ConditionExpression",
    "Expected",
    "ConditionalOperator",
    "ExpressionAttributeNames",
    "ExpressionAttributeValues",
)
DELETE_RETURN_VALUES = ("NONE", "ALL_OLD")
DELETE_LEGACY = ("Expected", "ConditionalOperator")
UPDATE_RETURN_VALUES = ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
UPDATE_LEGACY = ("AttributeUpdates", "Expected", "ConditionalOperator")
UPDATE_MODERN = ("UpdateExpression", "ConditionExpression")
Item = dict[str, Any]


def prepare_put(engine: TableCatalog, params: dict[str, Any]) -> PreparedWrite:
    """Every check PutItem makes before reading the item; also BatchWriteItem's PutRequest and
    TransactWriteItems' Put, so all three answer with the same errors."""
    get = params.get
    # Without any condition parameter (every BatchWriteItem put, most PutItems) neither the mixing rule
    # nor the expression checks can fail, and there is nothing to compile. (Two members are TableName and
    # Item, which the request's shape requires.)
    plain = len(params) == 2 or legacy.none_given(params, PUT_CONDITION_PARAMETERS)
    if not plain:
        legacy.reject_mixed(params, PUT_LEGACY, ("ConditionExpression",))
    name = params["TableName"]
    found = engine.find_table(name)
    if found is None:
        found = _lookup(engine, name)
    if get("ReturnValues") is not None:
        check_return_values(get("ReturnValues"), PUT_RETURN_VALUES)
    item, size = codec.validate_item_sized(params["Item"])
    check_item_size(size)
    if found is None and not plain:  # every check that needs no table first, then the table's absence
        _put_condition(params)
    schema = found if found is not None else engine.table(name)
    pk, sk = key_from_item(schema, item)
    if schema.index_key_checks or schema.has_vector_indexes:
        check_index_keys(schema, item)
    # prepared_write's fields, set here: every PutItem and batch put runs this, and matching nine keyword
    # arguments to their parameters costs each ~500 instructions.
    write = PreparedWrite()
    write.action = PUT
    write.schema = schema
    write.pk = pk
    write.sk = sk
    write.key = item
    write.item = item
    write.size = size
    write.update = None
    write.condition = None if plain else _put_condition(params)
    write.return_on_failure = get("ReturnValuesOnConditionCheckFailure")
    write.measure_written = False
    return write


def _lookup(engine: TableCatalog, name: str) -> TableSchema | None:
    """The table, or None when there is none: DynamoDB makes every check of a write that needs no table
    (its values, its expressions) before it looks the table up, so each prepare step below makes those
    checks and then asks ``engine.table`` again, which answers ResourceNotFoundException.

    Called only when ``engine.find_table(name)`` found nothing: a table the catalog holds (every write but
    the first after another process created it) costs one dict lookup, no call of this function."""
    try:
        return engine.table(name)  # refreshes a stale catalog; checks the name
    except DynamoDBError as error:
        if error.code != "ResourceNotFoundException":
            raise
        return None


def _put_condition(params: dict[str, Any]) -> Any:
    """PutItem's condition: its ConditionExpression, or its legacy Expected. A function of its own so that
    :func:`prepare_put` holds no closure (its variables would be cells, built on every put)."""
    return _condition(params, lambda: legacy.expected(params))


def _condition(params: dict[str, Any], legacy_condition: Callable[[], Any]) -> Any:
    """The request's ConditionExpression, or ``legacy_condition()`` (Expected) without one, with the
    expression parameters' checks. PutItem reads Expected here; DeleteItem has read it earlier, as
    DynamoDB orders its errors, and passes what it found."""
    text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
        absent="ConditionExpression is null",
    )
    condition = expressions.condition(text) if text is not None else legacy_condition()
    expressions.finish()
    return condition


def prepare_delete(engine: TableCatalog, params: dict[str, Any]) -> PreparedWrite:
    """Every check DeleteItem makes before reading the item; also BatchWriteItem's DeleteRequest and
    TransactWriteItems' Delete."""
    found, legacy_condition, key, pk, sk = _keyed_request(
        engine, params, DELETE_LEGACY, ("ConditionExpression",), DELETE_RETURN_VALUES
    )
    condition = _condition(params, lambda: legacy_condition)
    schema = found if found is not None else engine.table(params["TableName"])
    return prepared_write(
        action=DELETE,
        schema=schema,
        pk=pk,
        sk=sk,
        key=key,
        condition=condition,
        return_on_failure=params.get("ReturnValuesOnConditionCheckFailure"),
    )


def _keyed_request(
    engine: TableCatalog,
    params: dict[str, Any],
    legacy_names: tuple[str, ...],
    modern_names: tuple[str, ...],
    return_values: tuple[str, ...],
) -> tuple[TableSchema | None, Any, Item, bytes, bytes]:
    """DeleteItem's and UpdateItem's checks before their expressions, in the order DynamoDB makes them
    (legacy and modern parameters not mixed, legacy Expected, ReturnValues, the Key); returns (the schema
    or None when the table does not exist, the Expected condition or None, Key, pk, sk). Without a table
    only the Key's values are checked, and the caller reports the table missing after its expressions."""
    legacy.reject_mixed(params, legacy_names, modern_names)
    name = params["TableName"]
    schema = engine.find_table(name)
    if schema is None:
        schema = _lookup(engine, name)
    legacy_condition = legacy.expected(params)
    check_return_values(params.get("ReturnValues"), return_values)
    key = params["Key"]
    if schema is None:
        if isinstance(key, dict):
            codec.validate_item_sized(key, context=codec.ValueContext.KEY)
        return None, legacy_condition, key, b"", b""
    pk, sk = key_from_request(schema, key)
    return schema, legacy_condition, key, pk, sk


def prepare_update(engine: TableCatalog, params: dict[str, Any]) -> PreparedWrite:
    """Every check UpdateItem makes before reading the item; also TransactWriteItems' Update. Checks that
    need the item (key attributes, the new item's size) run in ``PreparedWrite.evaluate``."""
    found, legacy_condition, key, pk, sk = _keyed_request(
        engine, params, UPDATE_LEGACY, UPDATE_MODERN, UPDATE_RETURN_VALUES
    )
    update_text = params.get("UpdateExpression")
    condition_text = params.get("ConditionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=update_text is not None or condition_text is not None,
        absent="UpdateExpression and ConditionExpression are null",
    )
    update: Any = expressions.update(update_text) if update_text is not None else None
    condition = expressions.condition(condition_text) if condition_text is not None else legacy_condition
    expressions.finish()
    schema = found if found is not None else engine.table(params["TableName"])
    if update is None:
        update = legacy.attribute_updates(params, schema.key_names)
    return prepared_write(
        action=UPDATE,
        schema=schema,
        pk=pk,
        sk=sk,
        key=key,
        update=update,
        condition=condition,
        return_on_failure=params.get("ReturnValuesOnConditionCheckFailure"),
    )


def prepare_check(engine: TableCatalog, params: dict[str, Any]) -> PreparedWrite:
    """A TransactWriteItems ConditionCheck: DeleteItem's key and condition rules, and no write."""
    name = params["TableName"]
    found = engine.find_table(name)
    if found is None:
        found = _lookup(engine, name)
    key = params["Key"]
    if found is not None:
        pk, sk = key_from_request(found, key)
    elif isinstance(key, dict):
        codec.validate_item_sized(key, context=codec.ValueContext.KEY)
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"), params.get("ExpressionAttributeValues"), uses_expressions=True
    )
    condition = expressions.condition(params["ConditionExpression"])
    expressions.finish()
    schema = found if found is not None else engine.table(name)
    return prepared_write(
        action=CHECK,
        schema=schema,
        pk=pk,
        sk=sk,
        key=key,
        condition=condition,
        return_on_failure=params.get("ReturnValuesOnConditionCheckFailure"),
    )
