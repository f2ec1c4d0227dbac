"""Looking at tables on a target: list, describe, get, query, scan, put, delete, count (docs/data.md).

Each function is one DynamoDB operation as a person means it: ``query`` and ``scan`` return an iterator of
items that follows ``LastEvaluatedKey`` page after page until ``limit`` items or the end; ``count`` adds up
``Count`` over every page. Items are AttributeValues (binary as ``bytes``), as the engine and boto3 give
them. A refusal raises :class:`~singletable.data.TargetError` with DynamoDB's code and message.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

from singletable.data._keys import Expression
from singletable.data._targets import Target

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]


def tables(target: Target) -> Iterator[str]:
    """Every table's name, in DynamoDB's order (ListTables, page by page)."""
    params: dict[str, Any] = {}
    while True:
        response = target.call("ListTables", **params)
        yield from response.get("TableNames", ())
        if "LastEvaluatedTableName" not in response:
            return
        params["ExclusiveStartTableName"] = response["LastEvaluatedTableName"]


def describe(target: Target, table: str) -> dict[str, Any]:
    """The table's TableDescription (DescribeTable)."""
    return target.call("DescribeTable", TableName=table)["Table"]


def get(target: Target, table: str, key: Item, *, consistent: bool = False) -> Item | None:
    """The item with this primary key, or None (GetItem)."""
    params: dict[str, Any] = {"TableName": table, "Key": key}
    if consistent:
        params["ConsistentRead"] = True
    return target.call("GetItem", **params).get("Item")


def put(target: Target, table: str, item: Item) -> Item | None:
    """Write an item, replacing any with its key; returns the item it replaced, or None (PutItem)."""
    return target.call("PutItem", TableName=table, Item=item, ReturnValues="ALL_OLD").get("Attributes")


def delete(target: Target, table: str, key: Item) -> Item | None:
    """Delete the item with this key; returns it, or None when there was none (DeleteItem)."""
    return target.call("DeleteItem", TableName=table, Key=key, ReturnValues="ALL_OLD").get("Attributes")


def query(
    target: Target,
    table: str,
    key_condition: Expression,
    *,
    index: str | None = None,
    filter: Expression | None = None,
    limit: int | None = None,
    newest_first: bool = False,
    consistent: bool = False,
) -> Iterator[Item]:
    """Items whose key matches ``key_condition`` (see :func:`~singletable.data.key_condition`), in sort-key
    order (descending with ``newest_first``), at most ``limit`` of them, ``filter`` applied by DynamoDB."""
    params = _read_params(table, index, filter, consistent)
    merge_into(params, key_condition, "KeyConditionExpression")
    if newest_first:
        params["ScanIndexForward"] = False
    return paged(target, "Query", params, limit)


def scan(
    target: Target,
    table: str,
    *,
    index: str | None = None,
    filter: Expression | None = None,
    limit: int | None = None,
    segments: int = 1,
    segment: int | None = None,
    consistent: bool = False,
) -> Iterator[Item]:
    """Every item (at most ``limit``), ``filter`` applied by DynamoDB. ``segments=N`` reads the table as N
    parallel-scan segments at once (items in no particular order); ``segment=I`` with ``segments=N`` reads
    only segment I, for a caller that shares the work out itself."""
    params = _read_params(table, index, filter, consistent)
    if segment is not None:
        if not 0 <= segment < segments:
            raise ValueError(f"segment {segment} is not one of 0..{segments - 1}")
        return paged(target, "Scan", {**params, "Segment": segment, "TotalSegments": segments}, limit)
    if segments == 1:
        return paged(target, "Scan", params, limit)
    if segments < 1:
        raise ValueError("segments must be at least 1")
    return _parallel(target, params, segments, limit)


def count(
    target: Target,
    table: str,
    *,
    key_condition: Expression | None = None,
    index: str | None = None,
    filter: Expression | None = None,
) -> int:
    """How many items match: a Query's when ``key_condition`` is given, else a Scan's (Select=COUNT)."""
    params = _read_params(table, index, filter, False)
    params["Select"] = "COUNT"
    operation = "Scan"
    if key_condition is not None:
        merge_into(params, key_condition, "KeyConditionExpression")
        operation = "Query"
    total = 0
    while True:
        response = target.call(operation, **params)
        total += response["Count"]
        if "LastEvaluatedKey" not in response:
            return total
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _read_params(
    table: str, index: str | None, filter: Expression | None, consistent: bool
) -> dict[str, Any]:
    params: dict[str, Any] = {"TableName": table}
    if index is not None:
        params["IndexName"] = index
    if filter is not None:
        merge_into(params, filter, "FilterExpression")
    if consistent:
        params["ConsistentRead"] = True
    return params


def merge_into(params: dict[str, Any], expression: Expression, field: str) -> None:
    """Add an expression and its placeholders; the two expressions of a read must not reuse a placeholder."""
    params[field] = expression.text
    for key, mapping in (
        ("ExpressionAttributeNames", expression.names),
        ("ExpressionAttributeValues", expression.values),
    ):
        if not mapping:
            continue
        merged = params.setdefault(key, {})
        clash = sorted(set(merged) & set(mapping))
        if clash:
            raise ValueError(f"the filter reuses the key condition's placeholder {clash[0]}; rename it")
        merged.update(mapping)


def paged(target: Target, operation: str, params: dict[str, Any], limit: int | None) -> Iterator[Item]:
    """Items of a Query or Scan request, following LastEvaluatedKey, at most ``limit``."""
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1")
    return _pages(target, operation, dict(params), limit)


def _pages(target: Target, operation: str, params: dict[str, Any], limit: int | None) -> Iterator[Item]:
    """Without a filter every item read is returned, so DynamoDB's ``Limit`` asks for no more than are
    left (a ``--limit 5`` scan on AWS reads five items, not a 1 MB page); with one, pages stay whole."""
    left = limit
    exact = "FilterExpression" not in params
    while True:
        if exact and left is not None:
            params["Limit"] = left
        response = target.call(operation, **params)
        for item in response.get("Items", ()):
            yield item
            if left is not None:
                left -= 1
                if left == 0:
                    return
        if "LastEvaluatedKey" not in response:
            return
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _parallel(target: Target, params: dict[str, Any], segments: int, limit: int | None) -> Iterator[Item]:
    """Scan ``segments`` segments on as many threads; items as they arrive, at most ``limit``."""
    given = 0
    for _segment, items, _last in scan_pages(target, params, segments):
        for item in items:
            yield item
            given += 1
            if limit is not None and given >= limit:
                return


# One page of a scan: (segment, items, LastEvaluatedKey or None when the segment is done).
Page = tuple[int, list[Item], Item | None]


def scan_pages(
    target: Target, params: dict[str, Any], segments: int = 1, start: dict[int, Item | None] | None = None
) -> Iterator[Page]:
    """Every page of a Scan request, ``segments`` parallel-scan segments at once (one thread each); the
    scan behind ``scan(segments=N)``, export and copy.

    ``start`` gives segments resumed from a checkpoint their ExclusiveStartKey; segments it marks done
    (absent from it when it is given) are not read again. Pages of one segment arrive in order; an error in
    a reader is raised in the caller, and closing the iterator stops the readers.
    """
    todo = {s: None for s in range(segments)} if start is None else dict(start)
    if segments == 1 and todo:
        yield from _segment_pages(target, params, 0, 1, todo.get(0))
        return
    pages: queue.Queue[Page | BaseException | int] = queue.Queue(maxsize=2 * max(1, len(todo)))
    stop = threading.Event()

    def run(segment: int, key: Item | None) -> None:
        try:
            for page in _segment_pages(target, params, segment, segments, key):
                if stop.is_set():
                    return
                pages.put(page)
            pages.put(segment)
        except BaseException as error:  # handed to the consumer, which raises it
            pages.put(error)

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in todo.items()]
    for thread in threads:
        thread.start()
    running = len(threads)
    try:
        while running:
            got = pages.get()
            if isinstance(got, int):
                running -= 1
            elif isinstance(got, BaseException):
                raise got
            else:
                yield got
    finally:
        stop.set()
        while any(t.is_alive() for t in threads):  # let blocked readers finish so their threads end
            try:
                pages.get(timeout=0.05)
            except queue.Empty:
                pass


def _segment_pages(
    target: Target, params: dict[str, Any], segment: int, segments: int, key: Item | None
) -> Iterator[Page]:
    params = dict(params)
    if segments > 1:
        params.update(Segment=segment, TotalSegments=segments)
    if key is not None:
        params["ExclusiveStartKey"] = key
    while True:
        page = target.call("Scan", **params)
        last = page.get("LastEvaluatedKey")
        yield segment, page["Items"], last
        if last is None:
            return
        params["ExclusiveStartKey"] = last
