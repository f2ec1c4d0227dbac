"""Seed 000 (fus-main): sites, per-tag items, star ratings on a numeric GSI, comments, RBAC groups.

Choices: site-tag items are derived from ``Site.tags`` (rewritten in the site's transaction, so byTag is never
stale); ``siteId`` holds ``SITE#<id>`` as the design says, and the Python field ``site_id`` is read back from
it; every item carries ``entityType`` (only sites and groups also carry ``entitySk``, so only they are in
byEntity); comments live under the user as designed, so "my ratings" filters out comments by type.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import Field

from singletable.model import (
    GSI,
    Collection,
    Derived,
    Entity,
    Keys,
    MissingKeyFields,
    Pattern,
    Table,
    env,
)

fus = Table(
    name=env("DYNAMO_TABLE_NAME", "fus-main"),
    type_attribute="entityType",
    indexes=[
        GSI("byEntity", pk="entityType", sk="entitySk"),
        GSI("byTag", pk="tag", sk="siteId"),
        GSI("byStars", pk=("starRating", "N"), sk="siteId"),
        GSI("byGroup", pk="groupName", sk="userId"),
    ],
)


class SiteTag(Entity, table=fus, type="SITE_TAG"):
    site_id: str
    tag: str

    keys = Keys(PK="SITE#{site_id}", SK="TAG#{tag}", siteId="SITE#{site_id}")
    sites_by_tag = Pattern(index="byTag")


class Site(Entity, table=fus, type="SITE"):
    site_id: str
    url: str
    title: str
    description: str = ""
    scraped_content: str | None = None
    tags: list[str] = []
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="SITE#{site_id}", SK="METADATA", entitySk="SITE#{site_id}")
    all_sites = Pattern(index="byEntity")
    tag_items = Derived(SiteTag, each="tags", as_="tag")


class Rating(Entity, table=fus, type="RATING"):
    user_id: str
    site_id: str
    stars: int = Field(ge=1, le=5)
    note: str | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="USER#{user_id}", SK="SITE#{site_id}", starRating="{stars}", siteId="SITE#{site_id}")
    with_stars = Pattern(index="byStars")
    mine = Pattern()


class Comment(Entity, table=fus, type="COMMENT"):
    user_id: str
    site_id: str
    comment_id: str
    body: str
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="USER#{user_id}", SK="SITE#{site_id}#COMMENT#{comment_id}")


class Group(Entity, table=fus, type="GROUP"):
    name: str
    description: str = ""
    permissions: list[str] = []
    created_at: datetime | None = None
    updated_at: datetime | None = None

    keys = Keys(PK="GROUP#{name}", SK="METADATA", entitySk="GROUP#{name}")
    all_groups = Pattern(index="byEntity")


class Membership(Entity, table=fus, type="MEMBERSHIP"):
    user_id: str
    group_name: str
    added_at: datetime
    added_by: str

    keys = Keys(PK="USER#{user_id}", SK="MEMBERSHIP#{group_name}")
    members = Pattern(index="byGroup")
    of_user = Pattern()


user_activity = Collection(fus, "user_activity", pk="USER#{user_id}", entities=(Rating, Comment, Membership))


def raw(db, pk: str, sk: str) -> dict | None:
    return db.call("GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": pk}, "SK": {"S": sk}}}).get(
        "Item"
    )


def test_site_tags_follow_the_site(open_db, needs_transactions) -> None:
    db = open_db(fus)
    db.create(Site(site_id="s1", url="https://a.dev", title="A", tags=["javascript", "python"]))
    db.create(Site(site_id="s2", url="https://b.dev", title="B", tags=["python"]))
    assert raw(db, "SITE#s1", "TAG#javascript") == {
        "PK": {"S": "SITE#s1"},
        "SK": {"S": "TAG#javascript"},
        "tag": {"S": "javascript"},
        "siteId": {"S": "SITE#s1"},
        "entityType": {"S": "SITE_TAG"},
    }
    assert [t.site_id for t in db.query(SiteTag.sites_by_tag(tag="python"))] == ["s1", "s2"]

    db.update(Site.key(site_id="s1"), tags=["python", "rust"])
    assert raw(db, "SITE#s1", "TAG#javascript") is None
    assert [t.site_id for t in db.query(SiteTag.sites_by_tag("rust"))] == ["s1"]
    sites = db.batch_get([Site.key(site_id=t.site_id) for t in db.query(SiteTag.sites_by_tag("python"))])
    assert [s.title for s in sites] == ["A", "B"]

    db.put(Site(site_id="s2", url="https://b.dev", title="B2", tags=[]))
    assert list(db.query(SiteTag.sites_by_tag("python"))) == [SiteTag(site_id="s1", tag="python")]
    db.delete(Site, site_id="s1")
    assert raw(db, "SITE#s1", "TAG#python") is None and raw(db, "SITE#s1", "TAG#rust") is None
    assert [s.site_id for s in db.query(Site.all_sites())] == ["s2"]


def test_star_ratings_on_a_numeric_index(open_db) -> None:
    db = open_db(fus)
    db.put(Rating(user_id="u1", site_id="s1", stars=5, note="great"))
    db.put(Rating(user_id="u2", site_id="s1", stars=4))
    db.put(Rating(user_id="u2", site_id="s2", stars=5))
    item = raw(db, "USER#u1", "SITE#s1")
    assert item["starRating"] == {"N": "5"} and item["siteId"] == {"S": "SITE#s1"} and "siteId" in item
    fives = list(db.query(Rating.with_stars(5)))
    assert sorted((r.user_id, r.site_id) for r in fives) == [("u1", "s1"), ("u2", "s2")]
    assert all(isinstance(r.stars, int) for r in fives)

    db.update(Rating.key(user_id="u1", site_id="s1"), stars=3)
    assert [r.user_id for r in db.query(Rating.with_stars(5))] == ["u2"]
    assert [r.user_id for r in db.query(Rating.with_stars(3))] == ["u1"]
    with pytest.raises(MissingKeyFields) as caught:
        db.update(Rating.key(user_id="u1", site_id="s1"), Rating.f.stars.add(1))
    assert caught.value.attribute == "starRating" and caught.value.missing == ["stars"]

    # Comments share the user's partition and the SITE# prefix; "my ratings" still returns only ratings.
    db.create(Comment(user_id="u2", site_id="s1", comment_id="c1", body="hi"))
    assert [(r.site_id, r.stars) for r in db.query(Rating.mine(user_id="u2"))] == [("s1", 4), ("s2", 5)]


def test_groups_memberships_and_the_user_collection(open_db) -> None:
    db = open_db(fus)
    db.create(Group(name="editors", permissions=["edit"]))
    db.create(Group(name="admins", permissions=["*"]))
    added = datetime(2024, 5, 1, tzinfo=UTC)
    db.create(Membership(user_id="u1", group_name="editors", added_at=added, added_by="root"))
    db.create(Membership(user_id="u2", group_name="editors", added_at=added, added_by="root"))
    db.create(Membership(user_id="u1", group_name="admins", added_at=added, added_by="root"))
    db.put(Rating(user_id="u1", site_id="s9", stars=2))
    db.create(Comment(user_id="u1", site_id="s9", comment_id="c1", body="meh"))

    assert [g.name for g in db.query(Group.all_groups())] == ["admins", "editors"]
    assert [m.user_id for m in db.query(Membership.members(group_name="editors"))] == ["u1", "u2"]
    assert [m.group_name for m in db.query(Membership.of_user(user_id="u1"))] == ["admins", "editors"]
    assert db.get(Membership, user_id="u1", group_name="admins").added_at == added

    activity = db.collect(user_activity(user_id="u1"))
    assert len(activity) == 4
    assert [m.group_name for m in activity[Membership]] == ["admins", "editors"]
    assert activity.one(Rating).stars == 2 and activity.one(Comment).body == "meh"
