"""migrate rehearse, the reverse check of derived items: every stored item of a derived type is one that a
stored owner's declaration calls for now. An item whose owner is gone, one its owner's values no longer
call for, one of a type only the old design derived, and one left under an old derived template are each
named with why; a clean migration names none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_derived_moves import LABEL, MOVE, RELABEL, before, seed

from draws import examples
from singletable.migrate import Migration, backfill, rehearse
from singletable.model import DB, Derived, Entity, Keys, Table, connect

resummed = Table(name="sites")
linked = Table(name="links")


class Link(Entity, table=linked, type="link", timestamps=False):
    """Named by neither of its parent's key fields: nothing in it gives the parent's key."""

    parent: str
    child: str
    keys = Keys(PK="LINK#{parent}", SK="CHILD#{child}")


class Node(Entity, table=linked, type="node", timestamps=False):
    node_id: str
    parent_id: str | None = None
    keys = Keys(PK="NODE#{node_id}", SK="NODE")
    link = Derived(
        Link,
        build=lambda n: Link(parent=n.parent_id, child=n.node_id) if n.parent_id else None,
        on=["parent_id"],
    )


LINKS = Migration("0001-noop", "nothing to change", [backfill(Node, set={})], table=linked)


class NewSummary(Entity, table=resummed, type="summary", timestamps=False):
    site_id: str
    count: int
    keys = Keys(PK="S#{site_id}", SK="SUMMARY#2")


class ResummedSite(Entity, table=resummed, type="site", timestamps=False, unique={"url": "URL#{url}"}):
    """The key as it was; the summary under a new sort key, derived from the tags only."""

    site_id: str
    kind: str = "shop"
    url: str | None = None
    tags: list[str] = []
    keys = Keys(PK="S#{site_id}", SK="SITE")
    summary = Derived(
        NewSummary, build=lambda s: NewSummary(site_id=s.site_id, count=len(s.tags)), on=("tags",)
    )


# A backfill of a field the summary does not depend on: the summaries stay as the old template stored them.
KINDS = Migration(
    "0001-kinds", "kinds in capitals", [backfill(ResummedSite, set={"kind": lambda v: v["kind"].upper()})]
)


def source(directory: Path, extra: list[dict[str, Any]]) -> Path:
    """A database file of the old design's sites, plus raw items written past the model."""
    file = directory / "live.db"
    db = connect(before, str(file))
    db.create_table()
    seed(db)
    for item in extra:
        put(db, item)
    db.close()
    return file


def put(db: DB, item: dict[str, Any]) -> None:
    db.call("PutItem", {"TableName": db.table_name, "Item": item})


def raw(kind: str, pk: str, sk: str, **fields: str) -> dict[str, Any]:
    return {"PK": {"S": pk}, "SK": {"S": sk}, "entityType": {"S": kind}} | {
        name: {"S": value} for name, value in fields.items()
    }


def derived_problems(found: Any) -> list[tuple[str, str]]:
    return sorted((p.key, p.detail) for p in found.problems if p.check == "derived")


def test_orphans_and_unwanted_derived_items_are_named(tmp_path: Path) -> None:
    extra = [
        raw("label", "LABEL#red", "SITE#9", site_id="9", tag="red"),  # no site 9
        raw("label", "LABEL#pink", "SITE#1", site_id="1", tag="pink"),  # site 1 is not tagged pink
        raw("siteTag", "TAG#pink", "SITE#1", site_id="1", tag="pink"),  # a type only the old design derives
    ]
    found = rehearse(RELABEL, str(source(tmp_path, extra)))
    assert derived_problems(found) == [
        ("PK=LABEL#pink, SK=SITE#1", "not what its owner PK=S#1, SK=SITE (site) derives"),
        ("PK=LABEL#red, SK=SITE#9", "no owner: its site PK=S#9, SK=SITE is not stored"),
        ("PK=TAG#pink, SK=SITE#1", "no owner: no declaration derives a siteTag now"),
    ]
    assert [p.check for p in found.problems] == ["derived"] * 3
    assert found.problem_count == 3 and not found.ok


def test_an_item_left_under_an_old_derived_template_is_named(tmp_path: Path) -> None:
    found = rehearse(KINDS, str(source(tmp_path, [])))
    site1 = [
        (p.check, p.detail) for p in found.problems if p.key in ("PK=S#1, SK=SUMMARY", "PK=S#1, SK=SITE")
    ]
    assert sorted(site1) == [
        ("derived", "its summary item PK=S#1, SK=SUMMARY#2 is missing"),
        ("derived", "not what its owner PK=S#1, SK=SITE (site) derives"),
        ("keys", "SK is 'SUMMARY' (S), the summary templates give 'SUMMARY#2' (S)"),
    ]
    stale = sorted((p.key, p.detail) for p in found.problems if p.detail.startswith("not what"))
    assert stale == [
        (f"PK=S#{n}, SK=SUMMARY", f"not what its owner PK=S#{n}, SK=SITE (site) derives") for n in "1234"
    ]


@pytest.mark.parametrize("migration", [LABEL, RELABEL, MOVE], ids=["label", "relabel", "move"])
def test_a_clean_migration_leaves_no_orphan(tmp_path: Path, migration: Migration) -> None:
    found = rehearse(migration, str(source(tmp_path, [])))
    assert found.ok, found.problems
    assert found.checked == sum(c.after for c in found.counts if c.type != "(guard)")


def test_orphans_past_the_listed_problems_are_counted(tmp_path: Path) -> None:
    extra = [raw("label", "LABEL#red", f"SITE#x{n:02}", site_id=f"x{n:02}", tag="red") for n in range(25)]
    found = rehearse(LABEL, str(source(tmp_path, extra)))
    assert found.problem_count == 25 and len(found.problems) == 20
    for listed in found.problems:
        site = listed.key.removeprefix("PK=LABEL#red, SK=SITE#")
        assert (listed.check, listed.detail) == (
            "derived",
            f"no owner: its site PK=SITE#{site}, SK=SITE is not stored",
        )
    assert len({p.key for p in found.problems}) == 20


def test_an_orphan_whose_owner_cannot_be_named_says_which_type_derives_it(tmp_path: Path) -> None:
    file = tmp_path / "links.db"
    db = connect(linked, str(file))
    db.create_table()
    db.create(Node(node_id="a"))
    db.create(Node(node_id="b", parent_id="a"))
    db.call(
        "PutItem", {"TableName": "links", "Item": raw("link", "LINK#a", "CHILD#c", parent="a", child="c")}
    )
    db.close()
    found = rehearse(LINKS, str(file))
    assert [(p.key, p.check, p.detail) for p in found.problems] == [
        ("PK=LINK#a, SK=CHILD#c", "derived", "no owner: no stored node derives it")
    ]
    assert {c.type: c.after for c in found.counts} == {"node": 2, "link": 2}


FIXTURE = HealthCheck.function_scoped_fixture  # each example makes its own directory
TAGS = ["red", "blue", "green"]
site_tags = st.dictionaries(st.sampled_from("123"), st.lists(st.sampled_from(TAGS), unique=True), max_size=3)
labels = st.lists(st.tuples(st.sampled_from("1234"), st.sampled_from(TAGS)), unique=True, max_size=8)


@settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sites=site_tags, extra=labels)
def test_exactly_the_labels_no_owner_calls_for_are_named(
    tmp_path_factory: pytest.TempPathFactory, sites: dict[str, list[str]], extra: list[tuple[str, str]]
) -> None:
    """Random sites and hand-written label items: the rehearsal names each label no site's tags call for,
    and why, and nothing else."""
    unwanted = [(site, tag) for site, tag in extra if tag not in sites.get(site, [])]  # the rest collide
    file = tmp_path_factory.mktemp("labels") / "live.db"
    db = connect(before, str(file))
    db.create_table()
    seed(db, [{"site_id": site, "tags": tags} for site, tags in sites.items()])
    for site, tag in unwanted:
        db.call(
            "PutItem",
            {
                "TableName": "sites",
                "Item": raw("label", f"LABEL#{tag}", f"SITE#{site}", site_id=site, tag=tag),
            },
        )
    db.close()
    found = rehearse(RELABEL, str(file))
    expected = sorted(
        (
            f"PK=LABEL#{tag}, SK=SITE#{site}",
            f"not what its owner PK=S#{site}, SK=SITE (site) derives"
            if site in sites
            else f"no owner: its site PK=S#{site}, SK=SITE is not stored",
        )
        for site, tag in unwanted
    )
    assert derived_problems(found) == expected
    assert found.problem_count == len(expected)
