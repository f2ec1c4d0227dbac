"""A ``backfill`` of an entity declared ``schema_version`` brings every stored item to that version through
its ``@upgrade`` chain (the same chain reads apply), on the engine, ``serve`` and DynamoDB Local."""

from __future__ import annotations

import uuid
from typing import Any

from singletable.migrate import Migration, backfill, up
from singletable.model import GSI, Entity, Keys, Table, connect, upgrade

notes = Table(name="notes", indexes=[GSI("byTitle", pk="GSI1PK", sk="GSI1SK")])


class Note(Entity, table=notes, type="NOTE", schema_version=2, timestamps=False):
    id: str
    title: str
    body: str = ""

    keys = Keys(PK="NOTE#{id}", SK="NOTE", GSI1PK="TITLE#{title}", GSI1SK="NOTE#{id}")

    @upgrade(1)
    def heading_is_title(old: dict[str, Any]) -> dict[str, Any]:
        old["title"] = old.pop("heading").strip()
        return old


def v1(note_id: str, heading: str) -> dict[str, Any]:
    return {
        "PK": {"S": f"NOTE#{note_id}"},
        "SK": {"S": "NOTE"},
        "entityType": {"S": "NOTE"},
        "id": {"S": note_id},
        "heading": {"S": heading},
        "kept": {"N": "3.14159265358979323846264338327950288"},
    }


def scan(db: Any) -> list[dict[str, Any]]:
    items = db.call("Scan", {"TableName": db.table_name, "ConsistentRead": True})["Items"]
    return sorted((i for i in items if i["PK"]["S"].startswith("NOTE#")), key=lambda i: i["PK"]["S"])


def test_backfill_applies_the_upgrade_chain(target: Any) -> None:
    db = connect(notes, target, name=f"notes_{uuid.uuid4().hex[:8]}")
    db.create_table()
    try:
        for i in range(5):
            db.call("PutItem", {"TableName": db.table_name, "Item": v1(str(i), f"  Note {i} ")})
        db.create(Note(id="9", title="Current"))
        migration = Migration("0001-notes-v2", "notes at schema version 2", [backfill(Note, set={})])
        [result] = up(migration, db)
        assert result.written == 5  # the current item needed nothing
        items = scan(db)
        assert [i["title"]["S"] for i in items] == [f"Note {i}" for i in range(5)] + ["Current"]
        for item in items:
            assert item["_v"] == {"N": "2"} and "heading" not in item
            assert item["GSI1PK"] == {"S": f"TITLE#{item['title']['S']}"}
        assert all(i["kept"] == {"N": "3.14159265358979323846264338327950288"} for i in items[:5])
        again = Migration("0002-notes-again", "nothing left to do", [backfill(Note, set={})])
        [second] = up(again, db)
        assert second.written == 0
    finally:
        db.delete_table()
