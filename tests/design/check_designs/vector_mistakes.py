"""A notes app whose vector indexes make each mistake ``singletable check`` knows of vector search once.

``NotesByMeaning`` spans every workspace (ST405: notes are keyed by workspace, the index has no partition);
``NotesByTopic`` is partitioned by ``topic``, which ``Note`` may leave out (ST406); ``Unused`` indexes an
attribute no entity stores (ST406); ``NotesByScore`` ranks by DOT_PRODUCT (ST407).
"""

from __future__ import annotations

from singletable.model import Entity, Keys, Similar, Table, Vector, VectorIndex

notes = Table(
    name="vector_mistakes",
    vector_indexes=[
        VectorIndex("NotesByMeaning", vector="embedding", dimensions=8),
        VectorIndex("NotesByTopic", vector="embedding", dimensions=8, partition="topic"),
        VectorIndex("Unused", vector="other", dimensions=8),
        VectorIndex(
            "NotesByScore", vector="embedding", dimensions=8, distance="DOT_PRODUCT", partition="workspaceId"
        ),
    ],
)


class Note(Entity, table=notes, type="NOTE"):
    workspace_id: str
    note_id: str
    topic: str | None = None
    embedding: list[float] = Vector(8)

    keys = Keys(PK="WORKSPACE#{workspace_id}", SK="NOTE#{note_id}")
    near = Similar("NotesByScore")
