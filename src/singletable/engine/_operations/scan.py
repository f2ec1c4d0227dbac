"""Scan: every item of a table or index, a page at a time, optionally one segment of a parallel scan."""

from __future__ import annotations

from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine import _legacy as legacy
from singletable.engine._errors import validation
from singletable.engine._expressions import RequestExpressions
from singletable.engine._interfaces import OperationEngine
from singletable.engine._paging import Page, check_index_projection, check_start_key, resolve_index
from singletable.engine._schema import IndexSchema, TableSchema
from singletable.engine._storage import HASH_SPACE, partition_hash
from singletable.engine._write_path import index_entry

# In the order DynamoDB lists them when refusing a mix.
LEGACY = ("AttributesToGet", "ScanFilter", "ConditionalOperator")
MODERN = ("ProjectionExpression", "FilterExpression")
NO_FILTER = "FilterExpression is null"


def segment_range(segment: int, total: int) -> tuple[int, int]:
    """The half-open range of partition hashes that belongs to ``segment`` of ``total``.

    Hashes are uniform over 32 bits, so equal slices give even segments, and the slices tile the space:
    every item falls in exactly one segment.
    """
    return -(-segment * HASH_SPACE // total), -(-(segment + 1) * HASH_SPACE // total)


def check_segment(segment: int | None, total: int | None) -> None:
    """Segment and TotalSegments come together, Segment zero-based below TotalSegments; checked with the
    request, before the table is looked up."""
    if segment is not None and total is None:
        raise validation(
            "The TotalSegments parameter is required but was not present in the request when Segment "
            "parameter is present"
        )
    if total is not None and segment is None:
        raise validation(
            "The Segment parameter is required but was not present in the request when parameter "
            "TotalSegments is present"
        )
    if segment is not None and total is not None and segment >= total:
        raise validation(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            f"Segment: {segment} is not less than TotalSegments: {total}"
        )


def run(engine: OperationEngine, params: dict[str, Any], *, for_wire: bool = False) -> dict[str, Any]:
    """``for_wire``: answering for the wire codec (see ``Engine.execute``), items may pass undecoded."""
    segment, total = params.get("Segment"), params.get("TotalSegments")
    check_segment(segment, total)
    legacy.reject_mixed(params, LEGACY, MODERN)
    filter_text = params.get("FilterExpression")
    projection_text = params.get("ProjectionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=filter_text is not None or projection_text is not None,
        absent=NO_FILTER,
    )
    if params.get("ExpressionAttributeValues") is not None and filter_text is None:
        # Only a FilterExpression can use values, so DynamoDB names it as the missing expression.
        raise validation(
            f"ExpressionAttributeValues can only be specified when using expressions: {NO_FILTER}"
        )
    filter_ = (
        expressions.condition(filter_text, "FilterExpression")
        if filter_text is not None
        else legacy.filter_condition(params, "ScanFilter")
    )
    projection = legacy.projection(expressions, params)
    expressions.finish()
    # Looked up only now: DynamoDB reports a malformed filter or projection before a missing table.
    schema = engine.table(params["TableName"])
    index = resolve_index(schema, params, "scanning")
    check_index_projection(schema, index, filter_, projection, check_filter=False)

    hash_start, hash_end = (
        segment_range(segment, total) if segment is not None and total is not None else (0, HASH_SPACE)
    )
    after = _resume_after(schema, index, params.get("ExclusiveStartKey"), hash_start)
    if not hash_start <= after[0] < hash_end:
        raise validation("Exclusive start key must lie within the segment")

    page = Page(schema, index, params, filter_, projection, for_wire)
    # One statement, read without BEGIN/COMMIT around it, as a Query's (see query.run).
    rows = engine.storage.scan(
        schema.table_id, index.index_id if index is not None else None, after, hash_end, fetch=page.fetch
    )
    page.consume(rows)
    return page.response(params.get("ReturnConsumedCapacity"))


def _resume_after(
    schema: TableSchema, index: IndexSchema | None, start: dict[str, Any] | None, hash_start: int
) -> tuple[Any, ...]:
    """Where the scan starts: the segment's first partition hash, or just after the ExclusiveStartKey."""
    if start is None:
        return (hash_start, b"", b"") if index is None else (hash_start, b"", b"", b"", b"")
    check_start_key(schema, index, start)
    key_source = index if index is not None else schema
    if index is not None and index.composite:
        pk, sk = index_entry(schema, index, start) or (b"", b"")  # check_start_key: all there
    else:
        pk = codec.encode_key(start[key_source.hash.name], key_source.hash.type)
        sk = (
            codec.encode_key(start[key_source.range.name], key_source.range.type)
            if key_source.range is not None
            else b""
        )
    after: tuple[Any, ...] = (partition_hash(pk), pk, sk)
    if index is not None:
        tpk = codec.encode_key(start[schema.hash.name], schema.hash.type)
        tsk = codec.encode_key(start[schema.range.name], schema.range.type) if schema.range else b""
        after += (tpk, tsk)
    return after
