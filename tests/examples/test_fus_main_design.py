"""Seed 000 (fus-main) at the item level: what each entity writes and how each index sees it.

Was ``tests/model/test_seed_000_fus.py``; the design now lives in ``singletable.examples.fus_main.design``
and these tests check the items it writes against the design document on every target.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from singletable.examples.fus_main.design import (
    TABLE_NAME_VARIABLE,
    Comment,
    Group,
    Membership,
    Rating,
    Site,
    SiteTag,
    fus,
)
from singletable.model import MissingKeyFields

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def raw(db: Any, pk: str, sk: str) -> dict[str, Any] | None:
    return db.call("GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": pk}, "SK": {"S": sk}}}).get(
        "Item"
    )


def test_table_declaration_matches_the_design(monkeypatch: pytest.MonkeyPatch) -> None:
    params = fus.create_table_params("fus-main")
    assert params["BillingMode"] == "PAY_PER_REQUEST"
    assert params["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    types = {d["AttributeName"]: d["AttributeType"] for d in params["AttributeDefinitions"]}
    assert types == {
        "PK": "S",
        "SK": "S",
        "entityType": "S",
        "entitySk": "S",
        "tag": "S",
        "siteId": "S",
        "starRating": "N",
        "groupName": "S",
        "userId": "S",
        "commentSk": "S",
    }
    keys = {
        g["IndexName"]: [k["AttributeName"] for k in g["KeySchema"]] for g in params["GlobalSecondaryIndexes"]
    }
    assert keys == {
        "byEntity": ["entityType", "entitySk"],
        "byTag": ["tag", "siteId"],
        "byStars": ["starRating", "siteId"],
        "byGroup": ["groupName", "userId"],
        "bySite": ["siteId", "commentSk"],
    }
    assert fus.resolved_name() == "fus-main"
    monkeypatch.setenv(TABLE_NAME_VARIABLE, "fus-main-prod")
    assert fus.resolved_name() == "fus-main-prod"


def test_site_items_and_site_tags_follow_the_site(open_db) -> None:
    db = open_db(fus)
    tags = ["javascript", "python"]
    db.create(Site(site_id="s1", url="https://a.dev", title="A", tags=tags, created_at=T0))
    db.create(Site(site_id="s2", url="https://b.dev", title="B", tags=["python"]))
    site = raw(db, "SITE#s1", "METADATA")
    assert site["entityType"] == {"S": "SITE"}
    assert site["entitySk"] == {"S": "SITE#2024-05-01T00:00:00.000Z#s1"}
    assert site["siteId"] == {"S": "SITE#s1"}
    assert raw(db, "SITE#s1", "TAG#javascript") == {
        "PK": {"S": "SITE#s1"},
        "SK": {"S": "TAG#javascript"},
        "tag": {"S": "javascript"},
        "siteId": {"S": "SITE#s1"},
        "entityType": {"S": "SITE_TAG"},
    }
    assert [t.site_id for t in db.query(SiteTag.with_tag(tag="python"))] == ["s1", "s2"]

    db.update(Site.key(site_id="s1"), tags=["python", "rust"])
    assert raw(db, "SITE#s1", "TAG#javascript") is None
    assert [t.site_id for t in db.query(SiteTag.with_tag("rust"))] == ["s1"]

    db.put(Site(site_id="s2", url="https://b.dev", title="B2", tags=[]))
    assert list(db.query(SiteTag.with_tag("python"))) == [SiteTag(site_id="s1", tag="python")]
    # byEntity holds sites only (site tags carry entityType but no entitySk), oldest first.
    assert [s.site_id for s in db.query(Site.all_sites())] == ["s1", "s2"]
    db.delete(Site, site_id="s1")
    assert raw(db, "SITE#s1", "TAG#python") is None and raw(db, "SITE#s1", "TAG#rust") is None
    assert [s.site_id for s in db.query(Site.all_sites())] == ["s2"]


def test_ratings_on_the_numeric_index(open_db) -> None:
    db = open_db(fus)
    db.put(Rating(user_id="u1", site_id="s1", stars=5, note="great"))
    db.put(Rating(user_id="u2", site_id="s1", stars=4))
    db.put(Rating(user_id="u2", site_id="s2", stars=5))
    item = raw(db, "USER#u1", "SITE#s1")
    assert item["starRating"] == {"N": "5"} and item["stars"] == {"N": "5"}
    assert item["siteId"] == {"S": "SITE#s1"}
    fives = list(db.query(Rating.with_stars(5)))
    assert [(r.user_id, r.site_id) for r in fives] == [("u1", "s1"), ("u2", "s2")]
    assert all(isinstance(r.stars, int) for r in fives)

    db.update(Rating.key(user_id="u1", site_id="s1"), stars=3)
    assert [r.user_id for r in db.query(Rating.with_stars(5))] == ["u2"]
    assert [r.user_id for r in db.query(Rating.with_stars(3))] == ["u1"]
    with pytest.raises(MissingKeyFields) as caught:
        db.update(Rating.key(user_id="u1", site_id="s1"), Rating.f.stars.add(1))
    assert caught.value.attribute == "starRating" and caught.value.missing == ["stars"]
    with pytest.raises(ValueError):
        Rating(user_id="u1", site_id="s1", stars=6)


def test_comments_under_the_user_and_on_the_by_site_index(open_db) -> None:
    db = open_db(fus)
    db.put(Rating(user_id="u2", site_id="s1", stars=4))
    db.create(Comment(user_id="u2", site_id="s1", comment_id="c1", body="hi"))
    db.create(Comment(user_id="u1", site_id="s1", comment_id="c2", body="yo"))
    db.create(Comment(user_id="u2", site_id="s10", comment_id="c3", body="other site"))
    assert raw(db, "USER#u2", "SITE#s1#COMMENT#c1")["commentSk"] == {"S": "COMMENT#c1"}
    # Comments share the user's partition and the SITE# prefix; "my ratings" still returns only ratings.
    assert [(r.site_id, r.stars) for r in db.query(Rating.mine(user_id="u2"))] == [("s1", 4)]
    # The trailing "#COMMENT#" keeps site s10's comments out of site s1's.
    assert [c.comment_id for c in db.query(Comment.by_user_on_site(user_id="u2", site_id="s1"))] == ["c1"]
    # bySite: comments of every user, none of the ratings that also carry siteId.
    assert [(c.user_id, c.body) for c in db.query(Comment.for_site(site_id="s1"))] == [
        ("u2", "hi"),
        ("u1", "yo"),
    ]


def test_groups_and_memberships(open_db) -> None:
    db = open_db(fus)
    db.create(Group(name="editors", permissions=["sites:update"]))
    db.create(Group(name="admins", permissions=["sites:create"]))
    db.create(Membership(user_id="u1", group_name="editors", added_at=T0, added_by="root"))
    db.create(Membership(user_id="u2", group_name="editors", added_at=T0, added_by="root"))
    db.create(Membership(user_id="u1", group_name="admins", added_at=T0, added_by="root"))
    db.put(Rating(user_id="u1", site_id="s9", stars=2))

    assert raw(db, "USER#u1", "MEMBERSHIP#editors") == {
        "PK": {"S": "USER#u1"},
        "SK": {"S": "MEMBERSHIP#editors"},
        "userId": {"S": "u1"},
        "groupName": {"S": "editors"},
        "addedAt": {"S": "2024-05-01T00:00:00.000Z"},
        "addedBy": {"S": "root"},
        "entityType": {"S": "MEMBERSHIP"},
    }
    assert [g.name for g in db.query(Group.all_groups())] == ["admins", "editors"]
    assert [m.user_id for m in db.query(Membership.members(group_name="editors"))] == ["u1", "u2"]
    assert [m.group_name for m in db.query(Membership.of_user(user_id="u1"))] == ["admins", "editors"]
    assert db.get(Membership, user_id="u1", group_name="admins").added_at == T0
