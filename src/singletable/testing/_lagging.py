"""An eventually consistent global secondary index that lags its table by N item writes.

On DynamoDB a GSI is updated asynchronously: a Query or Scan of it may not yet see the latest writes to its
table. :class:`LaggingIndexes` reproduces that exactly for a chosen lag. The rule: **a read of a lagging
index answers as if the last N item writes to its table had not happened** -- an item put by one of them is
missing (or shows its earlier version), an item deleted by one of them is still there, and an item changed
by several of them shows its state from before the earliest. Reads of the table itself (GetItem, Query and
Scan without IndexName, transactions) see every write, as strongly consistent reads on AWS do.

How: every item write to a table with a lagging index, made through the API (PutItem, UpdateItem,
DeleteItem, BatchWriteItem, TransactWriteItems, PartiQL INSERT/UPDATE/DELETE), is logged with the item's
old image, read in the same hold of the engine's lock as the write. A read of the index first runs as
usual (so its errors are the engine's), then -- when the log holds writes to undo -- is answered again by a
scratch in-memory engine holding the table as of N writes ago: the current items, with each logged key
put back to its old image. That scratch engine runs the same request (key condition, filter, projection,
Limit, ExclusiveStartKey, Select, segments), so every part of the answer is the engine's own. It costs a
copy of the table's items that are in the index, per lagged read: meant for test-sized tables.

Not logged (so never lagged): TTL deletions, and writes made by calling an Engine's Python methods
directly instead of through a client.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, NamedTuple

from singletable.engine import DynamoDBError, Engine
from singletable.testing._requests import (
    KeyId,
    Request,
    item_writes,
    key_id,
    key_of,
    statement_table,
    statements,
)

PARTIQL_OPERATIONS = frozenset({"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"})
BATCH = 25


class LoggedWrite(NamedTuple):
    """One item write to a lagging table: which item, and what it held before (None: nothing)."""

    key: KeyId
    old: dict[str, Any] | None


class LaggingIndexes:
    """The lagging indexes of one fault plan and the write log they are answered from."""

    def __init__(self) -> None:
        self.lags: dict[tuple[str, str | None], int] = {}  # (table, index) -> N writes
        self._logs: dict[str, deque[LoggedWrite]] = {}
        self._lock = threading.Lock()

    def add(self, table: str, index: str, writes: int) -> None:
        with self._lock:
            self.lags[(table, index)] = writes
            longest = max(n for (name, _), n in self.lags.items() if name == table)
            self._logs[table] = deque(self._logs.get(table, ()), maxlen=longest)

    def remove(self, table: str, index: str) -> None:
        with self._lock:
            self.lags.pop((table, index), None)
            if not any(name == table for name, _ in self.lags):
                self._logs.pop(table, None)

    def watches(self, request: Request) -> bool:
        """Whether ``request`` writes to, or reads an index of, a table with a lagging index."""
        return any(table in self._logs for table in request.tables)

    # -- answering ----------------------------------------------------------------------------------------

    def call(self, engine: Engine, run: Any, request: Request) -> tuple[dict[str, Any], bool]:
        """``run(request)``'s answer, with the write logged or the index read lagged; and whether the lag
        changed what was read."""
        operation, params = request.operation, request.params
        if operation in ("Query", "Scan"):
            index = params.get("IndexName")
            # an IndexName that is no string (a list, a number) is no lagging index: the engine refuses it
            lagging = request.tables and isinstance(index, str)
            lag = self.lags.get((request.tables[0], index)) if lagging else None
            if lag is None:
                return run(request), False
            with engine.storage.lock:
                response = run(request)
                undo = self._undo(request.tables[0], lag)
                lagged = lagged_read(engine, request, params["IndexName"], undo) if undo else None
            return (response, False) if lagged is None else (lagged, True)
        writes = item_writes(operation, params, lambda table: _key_names(engine, table))
        if writes is not None:
            return self._logged(engine, run, request, [w for w in writes if w.table in self._logs]), False
        if operation in PARTIQL_OPERATIONS:
            return self._logged_partiql(engine, run, request), False
        return run(request), False

    def _undo(self, table: str, lag: int) -> dict[KeyId, dict[str, Any] | None]:
        """Each item the last ``lag`` writes to ``table`` touched, with its image from before them."""
        with self._lock:
            log = list(self._logs.get(table, ()))[-lag:]
        undo: dict[KeyId, dict[str, Any] | None] = {}
        for write in log:
            undo.setdefault(write.key, write.old)
        return undo

    def _append(self, table: str, writes: list[LoggedWrite]) -> None:
        with self._lock:
            log = self._logs.get(table)
            if log is not None:
                log.extend(writes)

    def _logged(self, engine: Engine, run: Any, request: Request, writes: list[Any]) -> dict[str, Any]:
        """Run an item write, logging the old image of each item it writes to a lagging table."""
        if not writes:
            return run(request)
        with engine.storage.lock:
            try:
                olds = [(w, _get(engine, w.table, w.key)) for w in writes]
            except DynamoDBError:  # a key the engine refuses: so will the write, with its own words
                return run(request)
            response = run(request)
        skipped = _unprocessed_keys(engine, response)
        for write, old in olds:
            identity = key_id(write.key)
            if (write.table, identity) not in skipped:
                self._append(write.table, [LoggedWrite(identity, old)])
        return response

    def _logged_partiql(self, engine: Engine, run: Any, request: Request) -> dict[str, Any]:
        """Run PartiQL statements, logging what their writes changed in lagging tables (found by comparing
        those tables before and after: a statement's keys are in its WHERE clause, not in parameters)."""
        tables = []
        for statement in statements(request.params):
            table, writes = statement_table(statement)
            if writes and table in self._logs and table not in tables:
                tables.append(table)
        if not tables:
            return run(request)
        with engine.storage.lock:
            before = {table: _items(engine, table) for table in tables}
            response = run(request)
            after = {table: _items(engine, table) for table in tables}
        for table in tables:
            old, new = before[table], after[table]
            changed = [key for key in {**old, **new} if old.get(key) != new.get(key)]
            self._append(table, [LoggedWrite(key, old.get(key)) for key in changed])
        return response


def lagged_read(
    engine: Engine, request: Request, index: str, undo: dict[KeyId, dict[str, Any] | None]
) -> dict[str, Any] | None:
    """The Query or Scan of ``index`` answered against the table as of before the writes in ``undo``;
    None when ``index`` is no global secondary index of the table (then nothing lags)."""
    table = request.tables[0]
    description = engine.execute("DescribeTable", {"TableName": table})["Table"]
    gsi = next(
        (g for g in description.get("GlobalSecondaryIndexes", ()) if g["IndexName"] == index),
        None,
    )
    if gsi is None:
        return None
    key_names = tuple(k["AttributeName"] for k in description["KeySchema"])
    index_names = tuple(k["AttributeName"] for k in gsi["KeySchema"])
    wanted = set(key_names) | set(index_names)
    items = {
        key_id(key_of(item, key_names)): item  # type: ignore[arg-type]  # every stored item has its table's key
        for item in _scan(engine, table)
        if all(name in item for name in index_names)
    }
    for identity, old in undo.items():
        items.pop(identity, None)
        if old is not None and all(name in old for name in index_names):
            items[identity] = old
    with Engine(":memory:") as scratch:
        scratch.execute(
            "CreateTable",
            {
                "TableName": table,
                "AttributeDefinitions": [
                    d for d in description["AttributeDefinitions"] if d["AttributeName"] in wanted
                ],
                "KeySchema": description["KeySchema"],
                "BillingMode": "PAY_PER_REQUEST",
                "GlobalSecondaryIndexes": [
                    {"IndexName": index, "KeySchema": gsi["KeySchema"], "Projection": gsi["Projection"]}
                ],
            },
        )
        rows = list(items.values())
        for start in range(0, len(rows), BATCH):
            chunk = rows[start : start + BATCH]
            scratch.execute(
                "BatchWriteItem", {"RequestItems": {table: [{"PutRequest": {"Item": i}} for i in chunk]}}
            )
        return scratch.execute(request.operation, request.params, for_wire=True)


def _key_names(engine: Engine, table: str) -> tuple[str, ...] | None:
    schema = engine.find_table(table)
    return schema.key_names if schema is not None else None


def _get(engine: Engine, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    return engine.execute("GetItem", {"TableName": table, "Key": key, "ConsistentRead": True}).get("Item")


def _scan(engine: Engine, table: str) -> list[dict[str, Any]]:
    """Every item of ``table``, strongly consistent."""
    params: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    found: list[dict[str, Any]] = []
    while True:
        page = engine.execute("Scan", params)
        found.extend(page.get("Items", ()))
        last = page.get("LastEvaluatedKey")
        if not last:
            return found
        params["ExclusiveStartKey"] = last


def _items(engine: Engine, table: str) -> dict[KeyId, dict[str, Any]]:
    names = _key_names(engine, table)
    if names is None:
        return {}
    return {key_id(key_of(item, names)): item for item in _scan(engine, table)}  # type: ignore[arg-type]  # every stored item has its table's key


def _unprocessed_keys(engine: Engine, response: dict[str, Any]) -> set[tuple[str, KeyId]]:
    """The (table, key) of each write a BatchWriteItem answer says it did not make."""
    skipped: set[tuple[str, KeyId]] = set()
    for table, requests in (response.get("UnprocessedItems") or {}).items():
        names = _key_names(engine, table)
        for request in requests if names else ():
            source = request.get("PutRequest", {}).get("Item") or request.get("DeleteRequest", {}).get("Key")
            key = key_of(source, names)  # type: ignore[arg-type]  # names is set here (the loop runs only then)
            if key is not None:
                skipped.add((table, key_id(key)))
    return skipped
