"""A key template that renders an empty string is refused by the model, before any request, on every target.

DynamoDB refuses empty strings in table and index key attributes ("Attribute values of type String and Binary
must have a length greater than zero if the attribute is used as a key attribute for a table or index",
PutItem); the model names the entity, key attribute, template and field instead of passing on DynamoDB's raw
ValidationException.
"""

from __future__ import annotations

from typing import Any

import pytest

from singletable.model import GSI, Entity, Keys, KeyTemplateError, Table

empty_keys = Table(name="empty-keys", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Book(Entity, table=empty_keys, type="BOOK", timestamps=False):
    shelf: str
    isbn: str
    title: str = "untitled"

    keys = Keys(PK="{shelf}", SK="BOOK#{isbn}", GSI1PK="BOOKS", GSI1SK="{title}")


TITLE = (
    "BOOK: key attribute GSI1SK = '{title}' renders an empty string from title = ''; DynamoDB refuses empty "
    "strings in table and index key attributes (give the field a non-empty value, or add literal text to the "
    "template)"
)
SHELF = TITLE.replace("GSI1SK = '{title}'", "PK = '{shelf}'").replace("title = ''", "shelf = ''")


def test_create_and_put_refuse_an_empty_index_key(open_db: Any) -> None:
    db = open_db(empty_keys)
    for write in (db.create, db.put):
        with pytest.raises(KeyTemplateError) as caught:
            write(Book(shelf="s", isbn="1", title=""))
        assert str(caught.value) == TITLE
    assert db.get(Book, shelf="s", isbn="1") is None  # nothing was written


def test_an_update_that_rebuilds_a_key_to_empty_is_refused_and_writes_nothing(open_db: Any) -> None:
    db = open_db(empty_keys)
    db.create(Book(shelf="s", isbn="1", title="Dune"))
    with pytest.raises(KeyTemplateError) as caught:
        db.update(Book.key(shelf="s", isbn="1"), title="")
    assert str(caught.value) == TITLE
    assert db.get(Book, shelf="s", isbn="1").title == "Dune"


def test_a_key_ref_or_get_with_an_empty_primary_key_is_refused(open_db: Any) -> None:
    db = open_db(empty_keys)
    for use in (
        lambda: db.get(Book, shelf="", isbn="1"),
        lambda: db.delete(Book.key(shelf="", isbn="1")),
        lambda: Book.key(shelf="", isbn="1").item_key(),
        lambda: db.create(Book(shelf="", isbn="1")),
    ):
        with pytest.raises(KeyTemplateError) as caught:
            use()
        assert str(caught.value) == SHELF


def test_a_key_with_literal_text_around_an_empty_field_is_written(open_db: Any) -> None:
    """Only an empty *key* is refused: ``BOOK#{isbn}`` with ``isbn=""`` renders ``BOOK#``, which DynamoDB
    takes."""
    db = open_db(empty_keys)
    db.create(Book(shelf="s", isbn=""))
    assert db.get(Book, shelf="s", isbn="").isbn == ""
