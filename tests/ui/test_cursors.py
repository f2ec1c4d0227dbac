"""Page cursors: any trail of keys round-trips; any change to a cursor, or another listing, is refused."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from singletable.ui._security import (
    TRAIL_PAGES,
    BadCursor,
    csrf_token,
    csrf_valid,
    decode_trail,
    encode_trail,
)

SECRET = b"k" * 32
values = st.one_of(
    st.text(min_size=1, max_size=12).map(lambda s: {"S": s}),
    st.integers().map(lambda n: {"N": str(n)}),
    st.binary(min_size=1, max_size=12).map(lambda b: {"B": b}),
)
keys = st.dictionaries(st.sampled_from(["PK", "SK", "GSI1PK", "n"]), values, min_size=1, max_size=3)
trails = st.lists(st.one_of(st.none(), keys), min_size=1, max_size=4)
URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@given(trails)
def test_a_trail_round_trips(trail):
    assert decode_trail(SECRET, "scope", encode_trail(SECRET, "scope", trail)) == trail


@given(trails, st.data())
def test_any_change_to_a_cursor_is_refused(trail, data):
    cursor = encode_trail(SECRET, "scope", trail)
    position = data.draw(st.integers(0, len(cursor) - 1))
    replacement = data.draw(
        st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    )
    changed = cursor[:position] + replacement + cursor[position + 1 :]
    if _bytes(changed) != _bytes(cursor):  # the last character's spare bits carry nothing
        with pytest.raises(BadCursor):
            decode_trail(SECRET, "scope", changed)


def _bytes(cursor: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except ValueError:
        return None


def test_a_cursor_belongs_to_its_listing_and_secret():
    cursor = encode_trail(SECRET, "listing A", [None, {"PK": {"S": "x"}}])
    with pytest.raises(BadCursor, match="belongs to another listing"):
        decode_trail(SECRET, "listing B", cursor)
    with pytest.raises(BadCursor):
        decode_trail(b"another secret", "listing A", cursor)


def test_a_long_trail_keeps_its_latest_pages():
    trail = [None] + [{"PK": {"S": str(n)}} for n in range(TRAIL_PAGES + 10)]
    assert decode_trail(SECRET, "s", encode_trail(SECRET, "s", trail)) == trail[-TRAIL_PAGES:]


def test_csrf_tokens_belong_to_their_session():
    token = csrf_token(SECRET, "session-1")
    assert csrf_valid(SECRET, "session-1", token)
    assert not csrf_valid(SECRET, "session-2", token)
    assert not csrf_valid(b"other", "session-1", token)
    assert not csrf_valid(SECRET, None, token) and not csrf_valid(SECRET, "session-1", None)
    assert not csrf_valid(SECRET, "session-1", "é" + token[1:])
