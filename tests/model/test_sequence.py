"""Gapless sequences: ``Sequence.create`` numbers new items 1, 2, 3... with no gap and no
duplicate, on every target, under 16 concurrent writers, and a create that fails consumes no number."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.model import (
    DB,
    AlreadyExists,
    DeclarationError,
    Entity,
    Keys,
    Sequence,
    SequenceContended,
    Table,
    UniqueViolation,
    connect,
)

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

tracker = Table(name="tracker")


class Project(Entity, table=tracker, type="PROJECT"):
    id: str
    name: str = ""
    next_issue_number: int = 0
    keys = Keys(PK="PROJECT#{id}", SK="PROJECT")


class Issue(Entity, table=tracker, type="ISSUE", unique={"slug": "SLUG#{slug}"}):
    project: str
    number: int
    slug: str
    keys = Keys(PK="PROJECT#{project}", SK="ISSUE#{number}")


def issues(project: str = "p") -> Sequence:
    return Sequence(Project.key(id=project), Project.f.next_issue_number)


def issue(slug: str, project: str = "p") -> Callable[[int], Issue]:
    return lambda n: Issue(project=project, number=n, slug=slug)


def numbers(db: DB, project: str = "p") -> list[int]:
    found = db.call(
        "Query",
        {
            "TableName": db.table_name,
            "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
            "ExpressionAttributeValues": {":p": {"S": f"PROJECT#{project}"}, ":s": {"S": "ISSUE#"}},
            "ConsistentRead": True,
        },
    )["Items"]
    return sorted(int(item["number"]["N"]) for item in found)


def test_numbers_follow_one_another_and_keep_the_counter_items_other_fields(open_db: Any) -> None:
    db = open_db(tracker)
    db.create(Project(id="p", name="Tracker"))
    seq = issues()
    assert seq.current(db) == 0
    made = [seq.create(db, issue(f"s{i}")) for i in range(5)]
    assert [i.number for i in made] == [1, 2, 3, 4, 5]
    assert numbers(db) == [1, 2, 3, 4, 5]
    assert seq.current(db) == 5
    project = db.get(Project, id="p", consistent=True)
    assert (project.name, project.next_issue_number) == ("Tracker", 5)
    assert seq.retries == 0


def test_a_missing_counter_item_starts_from_zero(open_db: Any) -> None:
    db = open_db(tracker)
    seq = issues("new")
    assert seq.create(db, issue("a", "new")).number == 1
    assert seq.create(db, issue("b", "new")).number == 2
    assert numbers(db, "new") == [1, 2]


def test_a_failed_create_consumes_no_number(open_db: Any) -> None:
    db = open_db(tracker)
    seq = issues()
    seq.create(db, issue("taken"))
    with pytest.raises(UniqueViolation, match="slug"):
        seq.create(db, issue("taken"))
    assert seq.current(db) == 1
    db.create(Issue(project="p", number=2, slug="written-by-hand"))  # the next number's key is taken
    with pytest.raises(AlreadyExists, match="ISSUE already exists"):
        seq.create(db, issue("fresh"))
    assert seq.current(db) == 1
    assert numbers(db) == [1, 2]
    assert db.find(Issue, slug="fresh") is None  # nothing of the failed creates was written


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from("abcdef"), max_size=14))
def test_any_mix_of_creates_and_failed_creates_leaves_no_gap(slugs: list[str]) -> None:
    """Repeated slugs fail with UniqueViolation; the numbers given are exactly 1..(creates that succeeded)."""
    with connect(tracker, ":memory:", name="issues") as db:
        db.create_table()
        seq = issues()
        given_numbers = []
        for slug in slugs:
            try:
                given_numbers.append(seq.create(db, issue(slug)).number)
            except UniqueViolation:
                pass
        expected = list(range(1, len(set(slugs)) + 1))
        assert given_numbers == expected
        assert numbers(db) == expected
        assert seq.current(db) == len(expected)


@pytest.mark.sync_only(
    "its build(n) writes through the DB while a create runs, which a synchronous build cannot do "
    "on an AsyncDB"
)
def test_a_writer_that_loses_the_race_retries_then_gives_up(open_db: Any) -> None:
    db = open_db(tracker)
    seq = Sequence(Project.key(id="p"), "next_issue_number", attempts=2)
    other = issues()
    calls = []

    def racing(n: int) -> Issue:  # another writer takes the number between our read and our transaction
        calls.append(n)
        if len(calls) == 1:
            other.create(db, issue("other"))
        return Issue(project="p", number=n, slug=f"mine{len(calls)}")

    assert seq.create(db, racing).number == 2
    assert (calls, seq.retries) == ([1, 2], 1)
    assert numbers(db) == [1, 2]

    once = Sequence(Project.key(id="p"), Project.f.next_issue_number, attempts=1)

    def always_racing(n: int) -> Issue:
        other.create(db, issue(f"other{n}"))
        return Issue(project="p", number=n, slug=f"lost{n}")

    with pytest.raises(SequenceContended) as caught:
        once.create(db, always_racing)
    assert str(caught.value) == (
        "Sequence on PROJECT.next_issue_number: another writer took the next number under each of 1 "
        "attempts; nothing was written -- try again, or raise attempts=..."
    )
    assert numbers(db) == [1, 2, 3]
    assert db.find(Issue, slug="lost3") is None


@pytest.mark.sync_only(
    "tests/model/test_async.py gathers 16 sequence creates on every target: its async form"
)
def test_sixteen_concurrent_writers_take_every_number_once(open_db: Any) -> None:
    db = open_db(tracker)
    seq = issues()
    threads, each = 16, 3
    made: list[int] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def writer(w: int) -> None:
        start.wait()
        for i in range(each):
            try:
                number = seq.create(db, issue(f"w{w}-{i}")).number
            except BaseException as error:
                errors.append(error)
                return
            with lock:
                made.append(number)

    pool = [threading.Thread(target=writer, args=(w,)) for w in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert errors == []
    total = threads * each
    assert sorted(made) == list(range(1, total + 1))
    assert numbers(db) == list(range(1, total + 1))
    assert seq.current(db) == total


def test_build_must_return_an_entity(open_db: Any) -> None:
    db = open_db(tracker)
    with pytest.raises(TypeError, match="build\\(n\\) must return an entity, not dict"):
        issues().create(db, lambda n: {"number": n})
    assert issues().current(db) == 0


class Other(Entity, table=tracker, type="OTHER"):
    id: str
    label: str = ""
    keys = Keys(PK="OTHER#{id}", SK="OTHER")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Sequence("PROJECT#p", "n"),
            "Sequence(counter=...) takes an entity key such as Project.key(...)",
        ),
        (lambda: Sequence(Project.key(id="p"), "missing"), "PROJECT has no field 'missing'; its fields: "),
        (
            lambda: Sequence(Project.key(id="p"), "name"),
            "PROJECT.name must be an int field outside the primary",
        ),
        (
            lambda: Sequence(Project.key(id="p"), "id"),
            "PROJECT.id must be an int field outside the primary key",
        ),
        (
            lambda: Sequence(Project.key(id="p"), Other.f.label),
            "OTHER.f.label is not a top-level field of PROJECT",
        ),
        (
            lambda: Sequence(Project.key(id="p"), "next_issue_number", attempts=0),
            "must be a positive int, not 0",
        ),
    ],
)
def test_a_sequence_that_cannot_work_is_refused_when_declared(make: Callable[[], Any], message: str) -> None:
    with pytest.raises(
        DeclarationError, match=message.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.")
    ):
        make()
