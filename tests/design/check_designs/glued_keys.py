"""Index keys glued from several fields, or a number zero-padded into a string (ST404), next to keys the rule
leaves alone: an overloaded index several types fill from different fields, a sparse key, a sliced slot,
and an index already keyed by fields."""

from __future__ import annotations

from datetime import datetime

from singletable.model import GSI, Entity, Key, Keys, Table

glued = Table(
    name="glued",
    indexes=[
        GSI("byStatus", pk="GSI1PK", sk="GSI1SK"),
        GSI("byScore", pk="GSI2PK", sk="GSI2SK"),
        GSI("overloaded", pk="GSI3PK", sk="GSI3SK"),
        GSI("open", pk="GSI4PK", sk="GSI4SK"),
        GSI("byInitial", pk="GSI5PK", sk="GSI5SK"),
        GSI("byFields", pk=["tenant", "status"], sk=["created_at"]),
    ],
)


class Ticket(Entity, table=glued, type="TICKET"):
    tenant: str
    ticket_id: str
    status: str
    score: int
    title: str
    created_at: datetime

    keys = Keys(
        PK="TENANT#{tenant}",
        SK="TICKET#{ticket_id}",
        GSI1PK="TENANT#{tenant}#STATUS#{status}",
        GSI1SK="{created_at}#{ticket_id}",
        GSI2PK="TENANT#{tenant}",
        GSI2SK="SCORE#{score:08d}",
        GSI3PK="TENANT#{tenant}",
        GSI3SK="TICKET#{created_at}#{ticket_id}",
        GSI4PK=Key("OPEN#{tenant}", when=lambda status: status == "open"),
        GSI4SK=Key("{created_at}#{ticket_id}", when=lambda status: status == "open"),
        GSI5PK="TENANT#{tenant}",
        GSI5SK="{title[:1]}#{ticket_id}",
    )


class Note(Entity, table=glued, type="NOTE"):
    tenant: str
    note_id: str
    author: str

    keys = Keys(
        PK="TENANT#{tenant}", SK="NOTE#{note_id}", GSI3PK="TENANT#{tenant}", GSI3SK="NOTE#{author}#{note_id}"
    )
