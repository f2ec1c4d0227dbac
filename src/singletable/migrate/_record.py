"""The table's own record of its migrations: one item, outside every index, holding what was applied (with
each migration's checksum) and where a running migration stopped (its checkpoint).

The item's partition and sort key are ``_singletable#migrations``; it has no entity type and no index-key
attribute, so no GSI, LSI or entity query sees it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from singletable.migrate._calls import Caller
from singletable.migrate._items import AV, Item
from singletable.migrate._steps import MigrationError
from singletable.model import Table

RECORD_ID = "_singletable#migrations"
APPLIED = "singletableApplied"
RUNNING = "singletableRunning"


@dataclass(slots=True)
class Segment:
    """One parallel-scan segment of the running step: the last key of its last page done, or done."""

    last_key: Item | None = None
    done: bool = False


@dataclass(slots=True)
class Checkpoint:
    """Where a running migration is: its ``step`` (index) and, per scan segment of that step, where it is
    (empty before the step's first page)."""

    checksum: str
    step: int = 0
    segments: list[Segment] = field(default_factory=list)
    scanned: int = 0
    written: int = 0


@dataclass(slots=True)
class Applied:
    checksum: str
    description: str
    applied_at: str
    written: int


def record_key(table: Table) -> Item:
    """The record item's key, in the table's key types (a Number partition key cannot hold it)."""
    key: Item = {}
    for name, kind in ((table.pk_name, table.pk_type), (table.sk_name, table.sk_type)):
        if not name:
            continue
        if kind == "S":
            key[name] = {"S": RECORD_ID}
        elif kind == "B":
            key[name] = {"B": RECORD_ID.encode()}
        else:
            raise MigrationError(
                f"migrations are recorded in the table under {name} = {RECORD_ID!r}, "
                f"but {name} is a Number: this table cannot hold the record"
            )
    for index in table.indexes:
        if all(a in key for a in (index.pk, index.sk) if a):
            raise MigrationError(
                f"index {index.name} is keyed by the table's own key attributes, so the migrations' record "
                f"item ({RECORD_ID!r}) would appear in it"
            )
    for attribute in (APPLIED, RUNNING):
        if attribute in table.key_types or attribute == table.type_attribute:
            raise MigrationError(f"the table uses {attribute}, the attribute migrations are recorded in")
    return key


def is_record(item: Item, key: Item) -> bool:
    return all(item.get(name) == av for name, av in key.items())


class Record:
    """Reads and writes the record item of one table."""

    def __init__(self, call: Caller, table: Table) -> None:
        self.call = call
        self.key = record_key(table)
        self._ready = False

    def read(self) -> tuple[dict[str, Applied], dict[str, Checkpoint]]:
        item = self.call("GetItem", {"Key": self.key, "ConsistentRead": True}).get("Item", {})
        applied = {
            mid: Applied(
                v["M"]["checksum"]["S"],
                v["M"]["description"]["S"],
                v["M"]["appliedAt"]["S"],
                int(v["M"]["written"]["N"]),
            )
            for mid, v in item.get(APPLIED, {}).get("M", {}).items()
        }
        running = {mid: _checkpoint(v["M"]) for mid, v in item.get(RUNNING, {}).get("M", {}).items()}
        return applied, running

    def _ensure(self) -> None:
        if self._ready:
            return
        self._ready = True
        self.call(
            "UpdateItem",
            {
                "Key": self.key,
                "UpdateExpression": "SET #a = if_not_exists(#a, :e), #r = if_not_exists(#r, :e)",
                "ExpressionAttributeNames": {"#a": APPLIED, "#r": RUNNING},
                "ExpressionAttributeValues": {":e": {"M": {}}},
            },
        )

    def save(self, migration_id: str, checkpoint: Checkpoint) -> None:
        """Record ``checkpoint`` (after a page, or a step, is done)."""
        state: dict[str, AV] = {
            "checksum": {"S": checkpoint.checksum},
            "step": {"N": str(checkpoint.step)},
            "scanned": {"N": str(checkpoint.scanned)},
            "written": {"N": str(checkpoint.written)},
        }
        if checkpoint.segments:
            state["segments"] = {"L": [_segment(one) for one in checkpoint.segments]}
        self._set("SET #r.#id = :s", {":s": {"M": state}}, migration_id)

    def finish(self, migration_id: str, checksum: str, description: str, written: int) -> None:
        """Mark the migration applied and drop its checkpoint, in one write."""
        applied = {
            "checksum": {"S": checksum},
            "description": {"S": description},
            "appliedAt": {"S": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")},
            "written": {"N": str(written)},
        }
        self._set("SET #a.#id = :s REMOVE #r.#id", {":s": {"M": applied}}, migration_id)

    def _set(self, expression: str, values: dict[str, AV], migration_id: str) -> None:
        self._ensure()
        self.call(
            "UpdateItem",
            {
                "Key": self.key,
                "UpdateExpression": expression,
                "ExpressionAttributeNames": {"#a": APPLIED, "#r": RUNNING, "#id": migration_id}
                if "#a" in expression
                else {"#r": RUNNING, "#id": migration_id},
                "ExpressionAttributeValues": values,
            },
        )


def _segment(segment: Segment) -> AV:
    state: dict[str, AV] = {"done": {"BOOL": segment.done}}
    if segment.last_key:
        state["lastKey"] = {"M": segment.last_key}
    return {"M": state}


def _checkpoint(state: dict[str, AV]) -> Checkpoint:
    segments = [
        Segment(one["M"].get("lastKey", {}).get("M"), one["M"]["done"]["BOOL"])
        for one in state.get("segments", {}).get("L", [])
    ]
    return Checkpoint(
        state["checksum"]["S"],
        int(state["step"]["N"]),
        segments,
        int(state["scanned"]["N"]),
        int(state["written"]["N"]),
    )
