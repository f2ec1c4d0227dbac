"""What TransactWriteItems and TransactGetItems share: capacity at the transactional rate, cancellation.

Capacity (measured on DynamoDB; see docs/compatibility.md). A transactional read is two strongly consistent
reads. A transactional write doubles the table's arm only -- each index arm costs what the same write costs
outside a transaction -- and the table arm is sized on the larger of the item's old and new images, so a
Delete is sized on the item it deleted. A ConditionCheck is billed as a write of the item it read (2 units
per KB, as ``WriteCapacityUnits``). A same-token replay is billed as transactional reads of what the first
call was sized on.

Concurrency design (see also docs/compatibility.md). AWS runs a transaction in two phases and locks its
items in between, so a concurrent write on one of them fails with TransactionConflictException and a
concurrent transaction is cancelled with reason ``TransactionConflict``. Here a whole TransactWriteItems --
reading every item, evaluating every condition, writing every change, recording its ClientRequestToken --
is one SQLite ``BEGIN IMMEDIATE`` transaction, and SQLite admits one writer at a time: threads of one
Engine queue on its lock, other processes queue on the database's write lock. No client can ever observe a
transaction half-applied, so every interleaving is equivalent to some serial order and conflicts are
resolved by waiting rather than by failing. A writer gives up only when the write lock stays taken past the
connection's busy timeout (30 s by default; another process holding one very long write): then a
transaction is cancelled with ``TransactionConflict`` for every action, a single-item write fails with
TransactionConflictException, and BatchWriteItem returns everything as UnprocessedItems -- in each case
nothing was written and the caller may retry, as on AWS. Reads (GetItem, Query, TransactGetItems...) never
wait: WAL readers see the last committed state, so TransactGetItems never conflicts.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._capacity import Capacity, read_units, write_units
from singletable.engine._errors import DynamoDBError, validation

SAME_ITEM = "Transaction request cannot include multiple operations on one item"
CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
CONFLICT_REASON = {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
NO_REASON = {"Code": "None"}
TRANSACTION_FACTOR = 2.0  # a transactional read, or a table write, is two underlying ones: prepare and commit


def check_distinct(identities: list[tuple[Any, ...]]) -> None:
    if len(set(identities)) != len(identities):
        raise validation(SAME_ITEM)


def cancelled(reasons: list[dict[str, Any]]) -> DynamoDBError:
    """TransactionCanceledException with one reason per action, in request order."""
    codes = ", ".join(reason["Code"] for reason in reasons)
    return DynamoDBError(
        "TransactionCanceledException", CANCELLED.format(codes=codes), extra={"CancellationReasons": reasons}
    )


def conflicted(count: int) -> DynamoDBError:
    return cancelled([dict(CONFLICT_REASON) for _ in range(count)])


class TableUsage:
    """One table's consumption in a transaction: its writes as single operations charge them, and reads."""

    __slots__ = ("reads", "writes")

    def __init__(self, name: str) -> None:
        self.writes = Capacity(name)
        self.reads = 0.0

    def read(self, size: int) -> None:
        """A transactional read is strongly consistent, at the transactional rate."""
        self.reads += read_units(size, True) * TRANSACTION_FACTOR

    def check(self, size: int) -> None:
        """A ConditionCheck is billed as a write of the item it read (doubled with the table arm)."""
        self.writes.table += write_units(size)

    def render(self, mode: str) -> dict[str, Any]:
        table_writes = self.writes.table * TRANSACTION_FACTOR
        gsi, lsi = self.writes.gsi, self.writes.lsi
        writes = table_writes + sum(gsi.values()) + sum(lsi.values())
        out: dict[str, Any] = {"TableName": self.writes.table_name, "CapacityUnits": writes + self.reads}
        _split(out, self.reads, writes)
        if mode == "INDEXES":
            out["Table"] = _split({"CapacityUnits": self.reads + table_writes}, self.reads, table_writes)
            for member, units in (("GlobalSecondaryIndexes", gsi), ("LocalSecondaryIndexes", lsi)):
                if units:
                    out[member] = {n: _split({"CapacityUnits": u}, 0, u) for n, u in units.items()}
        return out


def _split(out: dict[str, Any], reads: float, writes: float) -> dict[str, Any]:
    if reads:
        out["ReadCapacityUnits"] = reads
    if writes:
        out["WriteCapacityUnits"] = writes
    return out


def usage_for(usages: dict[str, TableUsage], name: str) -> TableUsage:
    usage = usages.get(name)
    if usage is None:
        usage = usages[name] = TableUsage(name)
    return usage


def render_usages(usages: dict[str, TableUsage], mode: str | None) -> list[dict[str, Any]] | None:
    if mode is None or mode == "NONE":
        return None
    return [usage.render(mode) for usage in usages.values()]
