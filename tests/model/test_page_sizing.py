"""``db.page`` sizes its requests by what they keep, and warns when a page is costly.

Notes share the ``NOTE#`` prefix with their comments, so a page of notes reads comments and drops them. The
trace shows each request's Limit; the rule is ``model/_page_sizing.py``'s.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from singletable.model import CostlyPage, Entity, Keys, Pattern, Table

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

shared_table = Table(name="shared")


class Note(Entity, table=shared_table, type="NOTE", timestamps=False):
    user: str
    note_id: str

    keys = Keys(PK="USER#{user}", SK="NOTE#{note_id}")
    of_user = Pattern()


class Comment(Entity, table=shared_table, type="COMMENT", timestamps=False):
    user: str
    note_id: str
    number: int

    keys = Keys(PK="USER#{user}", SK="NOTE#{note_id}#C#{number:04d}")


def fill(db: Any, notes: int, comments: int) -> None:
    items: list[Entity] = []
    for note in range(notes):
        items.append(Note(user="u", note_id=str(note)))
        items += [Comment(user="u", note_id=str(note), number=n) for n in range(comments)]
    db.batch_write(put=items)


def test_a_page_asks_for_more_items_as_it_learns_how_few_it_keeps(open_db: Any) -> None:
    db = open_db(shared_table)
    fill(db, notes=5, comments=9)  # one item in ten is a note
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with db.trace() as trace:
            page = db.page(Note.of_user(user="u"), size=2)
    assert [n.note_id for n in page] == ["0", "1"]
    # Limit 3 keeps 1 of 3; then 2 more needed at 3 read per kept: 6; then 2 needed at 9 read per kept: 18
    assert [r.params["Limit"] for r in trace.requests] == [3, 6, 18]
    assert [r.count for r in trace.requests] == [3, 6, 18]
    following = db.page(Note.of_user(user="u"), size=2, cursor=page.cursor)
    assert [n.note_id for n in following] == ["2", "3"]  # reading past the page loses nothing
    last = db.page(Note.of_user(user="u"), size=2, cursor=following.cursor)
    assert [n.note_id for n in last] == ["4"] and last.cursor is None


def test_a_page_of_one_type_asks_for_one_more_than_its_size_once(open_db: Any) -> None:
    db = open_db(shared_table)
    fill(db, notes=6, comments=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with db.trace() as trace:
            page = db.page(Note.of_user(user="u"), size=4)
    assert len(page) == 4 and page.has_more
    assert [r.params["Limit"] for r in trace.requests] == [5]


@pytest.mark.sync_only(
    "the warning points at the caller's line, which the blocking harness is not; "
    "tests/model/test_async.py checks it for an awaiting coroutine"
)
def test_a_page_that_takes_many_round_trips_warns_with_the_numbers(open_db: Any) -> None:
    db = open_db(shared_table)
    fill(db, notes=2, comments=300)  # the second note is item 302 of the partition
    with db.trace() as trace, pytest.warns(CostlyPage) as caught:
        page = db.page(Note.of_user(user="u"), size=1)
    assert [n.note_id for n in page] == ["0"] and page.has_more
    limits = [r.params["Limit"] for r in trace.requests]
    assert limits == [2, 2, 4, 8, 16, 32, 64, 128, 256]  # doubling while one note in all read is kept
    (warning,) = caught.list
    assert str(warning.message) == (
        "NOTE.of_user: a page of 1 took 9 requests, read 512 items and kept 2; other entity types share its "
        "key prefix or its filter discards most items -- give the pattern a key prefix or an index of its own"
    )
    assert warning.filename == __file__  # pointed at the caller's line
