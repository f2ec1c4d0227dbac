"""Templated collection prefixes and unknown keyword arguments.

``Collection(sk_prefix="ISSUE#{number:06d}")`` renders its prefix from call arguments like a key template
(format specs included) instead of sending the template text; and every public call that takes keyword
arguments refuses a name it does not use with ``UnknownArgument`` naming the valid ones, before any request.
The collection runs on every target; the refusals are plain unit tests (nothing is sent).
"""

from __future__ import annotations

import pytest
from pydantic import Field

from singletable.model import (
    Collection,
    DeclarationError,
    Entity,
    Keys,
    ModelError,
    Pattern,
    Table,
    UnknownArgument,
    connect,
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

tracker = Table(name="tracker")


class Issue(Entity, table=tracker, type="ISSUE", unique=["slug"]):
    project: str
    number: int
    slug: str
    title: str = ""

    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number:06d}")
    in_project = Pattern()


class Comment(Entity, table=tracker, type="COMMENT"):
    project: str
    number: int
    comment_id: str
    text: str = ""

    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number:06d}#COMMENT#{comment_id}")


class Aliased(Entity, table=tracker, type="ALIASED"):
    record_id: str = Field(alias="RecordID")

    keys = Keys(PK="RECORD#{record_id}", SK="RECORD")


thread = Collection(
    tracker, "thread", pk="PROJECT#{project}", entities=(Issue, Comment), sk_prefix="ISSUE#{number:06d}"
)


def _fill(db) -> None:
    for number in (7, 70):
        db.create(Issue(project="p", number=number, slug=f"s{number}", title=f"issue {number}"))
        db.create(Comment(project="p", number=number, comment_id="c1", text=f"on {number}"))


def test_a_templated_prefix_takes_its_fields_as_arguments(open_db) -> None:
    db = open_db(tracker)
    _fill(db)
    query = thread(project="p", number=7)
    assert query.sk == ("begins_with", {"S": "ISSUE#000007"})
    got = db.collect(query)
    assert [(type(e).__name__, e.number) for e in got] == [("Issue", 7), ("Comment", 7)]
    assert db.collect(thread("p", 70)).one(Comment).text == "on 70"


def test_a_prefix_field_left_out_ends_the_prefix_at_the_literal_text_before_it(open_db) -> None:
    db = open_db(tracker)
    _fill(db)
    query = thread(project="p")
    assert query.sk == ("begins_with", {"S": "ISSUE#"})
    assert len(db.collect(query)) == 4


def test_a_prefix_field_no_member_has_is_a_declaration_error() -> None:
    with pytest.raises(
        DeclarationError, match=r"sk_prefix 'ISSUE#\{nmber\}' uses nmber, which no member entity"
    ):
        Collection(tracker, "bad", pk="PROJECT#{project}", entities=(Issue,), sk_prefix="ISSUE#{nmber}")


def _refused(call, where: str, unknown: list[str], valid: list[str]) -> UnknownArgument:
    with pytest.raises(UnknownArgument) as caught:
        call()
    error = caught.value
    assert isinstance(error, ModelError) and isinstance(error, TypeError)
    assert (error.where, error.unknown, error.valid) == (where, unknown, valid)
    assert str(error) == f"{where} got unknown argument(s) {', '.join(unknown)}; it takes {', '.join(valid)}"
    return error


def test_collections_patterns_and_keys_refuse_unknown_arguments() -> None:
    _refused(lambda: thread(project="p", nubmer=7), "collection thread()", ["nubmer"], ["project", "number"])
    _refused(
        lambda: Issue.in_project(project="p", numbr=1), "Issue.in_project()", ["numbr"], ["project", "number"]
    )
    fields = ["project", "number", "slug", "title"]
    _refused(lambda: Issue.key(project="p", number=1, nmber=2), "Issue.key()", ["nmber"], fields)
    issue = Issue(project="p", number=1, slug="s")
    _refused(lambda: issue.key(projct="q"), "Issue.key()", ["projct"], fields)


def test_db_reads_and_deletes_refuse_unknown_arguments(tmp_path) -> None:
    db = connect(tracker, str(tmp_path / "t.sqlite3"))
    db.create_table()
    key = ["project", "number"]
    _refused(lambda: db.get(Issue, project="p", number=1, title="x"), "db.get(Issue)", ["title"], key)
    _refused(lambda: db.must_get(Issue, project="p", numbr=1), "db.get(Issue)", ["numbr"], key)
    with pytest.raises(
        UnknownArgument, match=r"db.get\(a key or an entity\) got unknown argument\(s\) number; "
    ):
        db.get(Issue.key(project="p", number=1), number=2)
    _refused(lambda: db.delete(Issue, project="p", number=1, slug="s"), "db.delete(Issue)", ["slug"], key)
    with pytest.raises(UnknownArgument, match="takes no keyword arguments"):
        db.delete(Issue.key(project="p", number=1), number=2)
    _refused(lambda: db.find(Issue, title="x"), "db.find(Issue)", ["title"], ["slug"])
    with pytest.raises(UnknownArgument, match=r"^db.find\(Issue\) takes exactly one of slug$"):
        db.find(Issue)
    with pytest.raises(UnknownArgument), db.transaction() as tx:
        tx.delete(Issue, project="p", number=1, titel="x")
    with pytest.raises(
        AttributeError, match="ISSUE has no field 'titel'; its fields are project, number, slug"
    ):
        db.update(Issue.key(project="p", number=1), titel="x")
    assert db.get(Issue, project="p", number=1) is None
    db.close()


def test_an_entity_constructor_refuses_a_name_that_is_neither_a_field_nor_an_alias() -> None:
    error = _refused(
        lambda: Issue(project="p", number=1, slug="s", titel="x"),
        "Issue()",
        ["titel"],
        ["project", "number", "slug", "title"],
    )
    assert isinstance(error, TypeError)
    assert Issue(project="p", number=1, slug="s", title="x").title == "x"
    assert Aliased(RecordID="r1").record_id == Aliased(record_id="r1").record_id == "r1"
    _refused(lambda: Aliased(RecordId="r1"), "Aliased()", ["RecordId"], ["record_id", "RecordID"])


def test_an_unknown_class_keyword_is_a_declaration_error() -> None:
    with pytest.raises(
        DeclarationError, match="unknown class keyword\\(s\\) uniqe; an entity takes table, type"
    ):

        class Bad(Entity, table=tracker, type="BAD", uniqe=["x"]):
            x: str
            keys = Keys(PK="{x}", SK="BAD")
