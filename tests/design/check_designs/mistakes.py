"""A design that makes one of each mistake the static rules catch (the seeds make the others)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from singletable.model import GSI, Entity, Index, Keys, Pattern, Table

LISTING_INCLUDE = tuple(f"attribute{n}" for n in range(21))

app = Table(
    name="mistakes",
    ttl_attribute="expiresAt",
    indexes=[
        GSI("byOwner", pk="ownerKey"),
        GSI("slim", pk="GSI2PK", sk="GSI2SK", projection=["title"]),
        GSI("byScore", pk="score", sk="SK"),
        Index("wide", pk="GSI4PK", sk="GSI4SK", projection=LISTING_INCLUDE),
    ],
)


class Chapter(Entity, table=app, type="CHAPTER"):
    book_id: str
    number: int
    day: str
    title: str
    owner: str
    text: str = Field(default="", max_length=390_000)

    keys = Keys(
        PK="BOOK#{book_id}",
        SK="CHAPTER#{number}#{day}",
        ownerKey="OWNER#{owner}",
        GSI2PK="BOOK#{book_id}",
        GSI2SK="CHAPTER#{number:05d}",
    )
    latest_by_owner = Pattern(index="byOwner", newest_first=True, doc="an owner's chapters, newest first")
    titles = Pattern(index="slim", hydrate=False, doc="chapter titles of a book")
    everything = Pattern(scan=True, doc="every chapter")
    long_ones = Pattern(filter=lambda f: f.number > 10, doc="chapters past the tenth")


class Reader(Entity, table=app, type="READER", ttl="purge_at"):
    reader_id: str
    score: int = 0
    follower_ids: list[str] = []
    expires_at: datetime | None = None
    purge_at: datetime | None = None

    keys = Keys(PK="READER#{reader_id}", SK="READER")


class Issue(Entity, table=app, type="ISSUE"):
    """Issues and their comments under one project, ISSUE#<n> and
    ISSUE#<n>#COMMENT#<id>, so listing a project's issues by begins_with(SK, "ISSUE#") reads every comment."""

    project: str
    number: int = Field(ge=1)
    title: str

    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number:06d}")
    of_project = Pattern(doc="a project's issues")


class IssueComment(Entity, table=app, type="ISSUE_COMMENT"):
    project: str
    number: int = Field(ge=1)
    comment_id: str

    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number:06d}#COMMENT#{comment_id}")
    on_issue = Pattern(doc="an issue's comments: begins_with(SK, ISSUE#<n>#COMMENT#)")


class Setting(Entity, table=app, type="SETTING"):
    """Seed 002's settings as its document wrote them: PK = SK = "settings", listed by name on an index."""

    name: str
    value: str

    keys = Keys(PK="settings", SK="settings", GSI2PK="SETTINGS", GSI2SK="{name}")
