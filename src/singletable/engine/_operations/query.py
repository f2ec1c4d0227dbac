"""Query: the items of one partition of a table or index, in sort-key order, a page at a time."""

from __future__ import annotations

from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine import _legacy as legacy
from singletable.engine._errors import validation
from singletable.engine._expressions import RequestExpressions
from singletable.engine._interfaces import OperationEngine
from singletable.engine._keys import index_key_bytes, join_key_parts, parts_end
from singletable.engine._paging import Page, check_index_projection, check_start_key, resolve_index
from singletable.engine._schema import IndexSchema, TableSchema
from singletable.engine._storage import KEY_MAX
from singletable.engine._write_path import index_entry

# In the order DynamoDB lists them when refusing a mix. KeyConditions only clashes with
# KeyConditionExpression: it may be combined with FilterExpression and ProjectionExpression.
LEGACY = ("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions")
MODERN = ("ProjectionExpression", "FilterExpression", "KeyConditionExpression")


def _prefix_end(prefix: bytes) -> tuple[bytes, bool]:
    """The smallest key above every key starting with ``prefix``: (bound, strict)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return KEY_MAX, False
    return stripped[:-1] + bytes((stripped[-1] + 1,)), True


def _bounds(
    range_op: str | None, values: tuple[dict[str, Any], ...], key_type: str | None
) -> tuple[bytes, bool, bytes, bool]:
    if range_op is None:
        return b"", False, KEY_MAX, False
    encoded = [codec.encode_key(v, key_type) for v in values]  # type: ignore[arg-type]  # a range op: a range key
    if range_op == "=":
        return encoded[0], False, encoded[0], False
    if range_op == "<":
        return b"", False, encoded[0], True
    if range_op == "<=":
        return b"", False, encoded[0], False
    if range_op == ">":
        return encoded[0], True, KEY_MAX, False
    if range_op == ">=":
        return encoded[0], False, KEY_MAX, False
    if range_op == "BETWEEN":
        return encoded[0], False, encoded[1], False
    end, strict = _prefix_end(encoded[0])  # BEGINS_WITH
    return encoded[0], False, end, strict


def _joined_bounds(
    prefix: bytes, range_op: str | None, values: tuple[dict[str, Any], ...], key_type: str | None
) -> tuple[bytes, bool, bytes, bool]:
    """:func:`_bounds` on a multi-attribute sort key: ``prefix`` is the joined RANGE attributes tested by
    equality, ``range_op`` tests the next one (see ``_keys.join_key_parts``)."""
    prefix_hi, prefix_hi_strict = (parts_end(prefix), True) if prefix else (KEY_MAX, False)
    if range_op is None:
        return prefix, False, prefix_hi, prefix_hi_strict
    encoded = [codec.encode_key(v, key_type) for v in values]  # type: ignore[arg-type]  # a range op: a range key
    if range_op == "BEGINS_WITH":
        start = prefix + encoded[0].replace(b"\x00", b"\x00\xff")
        end, strict = _prefix_end(start)
        return start, False, end, strict
    first = prefix + join_key_parts([encoded[0]])
    if range_op == "=":
        return first, False, parts_end(first), True
    if range_op == "<":
        return prefix, False, first, True
    if range_op == "<=":
        return prefix, False, parts_end(first), True
    if range_op == ">":
        return parts_end(first), False, prefix_hi, prefix_hi_strict
    if range_op == ">=":
        return first, False, prefix_hi, prefix_hi_strict
    return first, False, parts_end(prefix + join_key_parts([encoded[1]])), True  # BETWEEN


def _composite_range(index: IndexSchema, key_condition: Any) -> tuple[bytes, tuple[bytes, bool, bytes, bool]]:
    """The partition key bytes and sort-key bounds a key condition selects on an index with multi-attribute
    keys."""
    hash_values = (key_condition.hash_value, *key_condition.hash_rest)
    pk = index_key_bytes(
        [codec.encode_key(av, attr.type) for av, attr in zip(hash_values, index.hash_keys, strict=True)]
    )
    range_keys = index.range_keys
    if len(range_keys) <= 1:
        key_type = range_keys[0].type if range_keys else None
        return pk, _bounds(key_condition.range_op, key_condition.range_values, key_type)
    equal = key_condition.range_equal
    encoded = [codec.encode_key(av, attr.type) for av, attr in zip(equal, range_keys, strict=False)]
    prefix = join_key_parts(encoded)
    key_type = range_keys[len(equal)].type if key_condition.range_op is not None else None
    return pk, _joined_bounds(prefix, key_condition.range_op, key_condition.range_values, key_type)


def run(
    engine: OperationEngine, params: dict[str, Any], *, key_filter: bool = False, for_wire: bool = False
) -> dict[str, Any]:
    """``key_filter``: PartiQL's WHERE may test key attributes beyond the key condition; the API may not.
    ``for_wire``: answering for the wire codec (see ``Engine.execute``), items may pass through undecoded."""
    legacy_names = LEGACY if params.get("KeyConditionExpression") is not None else LEGACY[:-1]
    legacy.reject_mixed(params, legacy_names, MODERN)
    schema = engine.table(params["TableName"])
    index = resolve_index(schema, params, "querying")
    key_source = index if index is not None else schema
    key_condition, filter_, projection = _compile(params, key_source, key_filter)
    check_index_projection(schema, index, filter_, projection, check_filter=True)

    if index is not None and index.composite:
        pk, bounds = _composite_range(index, key_condition)
    else:
        hash_attr, range_attr = key_source.hash, key_source.range
        pk = codec.encode_key(key_condition.hash_value, hash_attr.type)
        bounds = _bounds(
            key_condition.range_op, key_condition.range_values, range_attr.type if range_attr else None
        )
    lo, lo_strict, hi, hi_strict = bounds
    start = params.get("ExclusiveStartKey")
    after = _resume_after(schema, index, start, pk, bounds) if start is not None else None
    page = Page(schema, index, params, filter_, projection, for_wire)
    # One statement, so no ``storage.read()`` around it: in autocommit a SELECT reads one snapshot from its
    # first row to its last (its implicit transaction ends when the cursor is reset, at the latest when
    # ``rows`` goes out of scope on return), which is all a page needs -- BEGIN and COMMIT around it cost
    # two more statements a Query (~20,000 instructions). The caller holds the storage's lock, as for
    # every operation.
    rows = engine.storage.query(
        schema.table_id,
        index.index_id if index is not None else None,
        pk,
        lo,
        lo_strict,
        hi,
        hi_strict,
        params.get("ScanIndexForward", True) is not False,
        after,
        fetch=page.fetch,
    )
    page.consume(rows)
    return page.response(params.get("ReturnConsumedCapacity"))


def _compile(
    params: dict[str, Any], key_source: TableSchema | IndexSchema, key_filter: bool
) -> tuple[Any, ...]:
    """The request's key condition, filter and projection (expressions or their legacy forms), checked in
    DynamoDB's order."""
    key_text = params.get("KeyConditionExpression")
    filter_text = params.get("FilterExpression")
    projection_text = params.get("ProjectionExpression")
    legacy_keys = params.get("KeyConditions") if key_text is None else None
    no_values = "FilterExpression and KeyConditionExpression are null"
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=key_text is not None or filter_text is not None or projection_text is not None,
        absent=no_values,
    )
    if key_text is None:
        if params.get("ExpressionAttributeValues") is not None and filter_text is None:
            raise validation(
                f"ExpressionAttributeValues can only be specified when using expressions: {no_values}"
            )
        if legacy_keys is None:
            raise validation(
                "Either the KeyConditions or KeyConditionExpression parameter must be specified "
                "in the request."
            )
    hash_keys, range_keys = key_source.condition_keys
    if legacy_keys is not None:
        key_condition = legacy.key_conditions(params, hash_keys, range_keys)
    else:
        key_condition = expressions.key_condition(key_text, hash_keys, range_keys)
    filter_ = expressions.condition(filter_text, "FilterExpression") if filter_text is not None else None
    if filter_text is None:
        filter_ = legacy.filter_condition(params, "QueryFilter", key_source.key_names)
    if filter_ is not None and not key_filter:
        key_names = set(key_source.key_names)
        for name in sorted(filter_.top_level_names):
            if name in key_names:
                raise validation(
                    "Filter Expression can only contain non-primary key attributes: "
                    f"Primary key attribute: {name}"
                )
    projection = legacy.projection(expressions, params)
    expressions.finish()
    return key_condition, filter_, projection


def _resume_after(
    schema: TableSchema,
    index: IndexSchema | None,
    start: dict[str, Any],
    pk: bytes,
    bounds: tuple[bytes, bool, bytes, bool],
) -> tuple[bytes, ...]:
    """Where a page resumes: the ExclusiveStartKey's sort key (and, on an index, the table key), which must
    lie in the queried partition and range."""
    check_start_key(schema, index, start)
    if index is not None and index.composite:
        start_pk, start_sk = index_entry(schema, index, start) or (b"", b"")  # check_start_key: all there
    else:
        key_source = index if index is not None else schema
        hash_attr, range_attr = key_source.hash, key_source.range
        start_pk = codec.encode_key(start[hash_attr.name], hash_attr.type)
        start_sk = b"" if range_attr is None else codec.encode_key(start[range_attr.name], range_attr.type)
    if start_pk != pk:
        raise validation("The provided starting key does not match the range key predicate")
    lo, lo_strict, hi, hi_strict = bounds
    if start_sk < lo or (lo_strict and start_sk == lo) or start_sk > hi or (hi_strict and start_sk == hi):
        raise validation("The provided starting key does not match the range key predicate")
    if index is None:
        return (start_sk,)
    tpk = codec.encode_key(start[schema.hash.name], schema.hash.type)
    tsk = codec.encode_key(start[schema.range.name], schema.range.type) if schema.range else b""
    return (start_sk, tpk, tsk)
