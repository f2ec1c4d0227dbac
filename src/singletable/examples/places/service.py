"""The archive's service API: what the places/posts/records app does, one method per access pattern.

Every read is a GetItem, a Query on the table or a Query on ``GSI`` -- never a Scan. Where several items
share an index sort key (posts of one collection, places of one name), DynamoDB returns them in no
documented order (DynamoDB Local orders them by a hash of the table key), so lists are ordered by the
index sort key and then by ID, reading past a ``limit`` only as far as the last tie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, TypeVar

from singletable.examples.places.design import (
    SEARCH_PARTITION_CHARS,
    Category,
    Collection,
    CollectionCategory,
    Place,
    PlaceSettings,
    PlaceWord,
    Post,
    Record,
    RecordHousehold,
    Sequence,
    Setting,
    User,
    fold,
    words,
)
from singletable.model import DB, NotFound

T = TypeVar("T")


class SearchTooShort(ValueError):
    """A place search needs as many folded characters as pick its GSI partition (two)."""


def ordered(items: Iterable[T], sort_key: Callable[[T], Any], limit: int | None = None) -> list[T]:
    """``items`` (already in index order) ordered by (index sort key, ID), cut at ``limit``.

    Items arrive sorted by their index sort key; ties arrive in any order. We keep reading past ``limit``
    while the next item ties with the last one kept, sort, then cut: the result is the same on every
    backend, and only the ties at the boundary are read beyond the limit.
    """
    out: list[T] = []
    iterator: Iterator[T] = iter(items)
    for item in iterator:
        if limit is not None and len(out) >= limit and sort_key(item)[0] != sort_key(out[-1])[0]:
            break
        out.append(item)
    out.sort(key=sort_key)
    return out if limit is None else out[:limit]


class Archive:
    """The places/posts/records archive on one table (see ``README.md`` beside it)."""

    def __init__(self, db: DB) -> None:
        self.db = db

    # -- ids ------------------------------------------------------------------------------------------

    def next_ids(self, count: int = 1) -> list[str]:
        """Allocate ``count`` IDs with one atomic ADD on the sequence item: safe under concurrent writers,
        since DynamoDB applies each UpdateItem to the counter in turn and returns the value it left."""
        if count < 1:
            raise ValueError("allocate at least one ID")
        top = self.db.update(Sequence.key(), Sequence.f.value.add(count), upsert=True).value
        return [str(n) for n in range(top - count + 1, top + 1)]

    def next_id(self) -> str:
        return self.next_ids(1)[0]

    # -- categories and collections -------------------------------------------------------------------

    def add_category(self, name: str, *, id: str | None = None) -> Category:
        return self.db.create(Category(id=id or self.next_id(), name=name))

    def categories(self) -> list[Category]:
        return ordered(self.db.query(Category.by_name()), lambda c: (c.name, c.id))

    def categories_named(self, name: str) -> list[Category]:
        return ordered(self.db.query(Category.by_name(name=name)), lambda c: (c.name, c.id))

    def add_collection(
        self,
        name: str,
        category_ids: Iterable[str] = (),
        *,
        id: str | None = None,
        description: str | None = None,
    ) -> Collection:
        """The collection and its category links, all or nothing (one transaction)."""
        collection = Collection(id=id or self.next_id(), name=name, description=description)
        with self.db.transaction() as tx:
            created = tx.create(collection)
            for category_id in dict.fromkeys(category_ids):
                tx.create(CollectionCategory(collection_id=collection.id, category_id=category_id))
        return created

    def collections(self) -> list[Collection]:
        return ordered(self.db.query(Collection.by_name()), lambda c: (c.name, c.id))

    def collections_named(self, name: str) -> list[Collection]:
        return ordered(self.db.query(Collection.by_name(name=name)), lambda c: (c.name, c.id))

    def link(self, collection_id: str, category_id: str) -> None:
        self.db.put(CollectionCategory(collection_id=collection_id, category_id=category_id))

    def unlink(self, collection_id: str, category_id: str) -> None:
        self.db.delete(CollectionCategory, collection_id=collection_id, category_id=category_id)

    def categories_of(self, collection_id: str) -> list[Category]:
        """The links in the collection's partition, then the categories in one BatchGetItem."""
        links = list(self.db.query(CollectionCategory.of_collection(collection_id=collection_id)))
        found = self.db.batch_get([Category.key(id=link.category_id) for link in links])
        return ordered(found, lambda c: (c.name, c.id))

    def collections_in(self, category_id: str) -> list[Collection]:
        """The category's GSI partition lists collection IDs (sorted); BatchGetItem fetches them."""
        links = self.db.query(CollectionCategory.in_category(category_id=category_id))
        return self.db.batch_get([Collection.key(id=link.collection_id) for link in links])

    # -- places -----------------------------------------------------------------------------------------

    def add_place(self, full_name: str, *, region: str | None = None, id: str | None = None) -> Place:
        """The place and its word-index entries in one transaction, so search and words agree."""
        place = Place(id=id or self.next_id(), full_name=full_name, region=region)
        with self.db.transaction() as tx:
            created = tx.create(place)
            for word in words(full_name):
                tx.update(PlaceWord.key(word=word), PlaceWord.f.place_ids.add({place.id}), upsert=True)
        return created

    def place(self, place_id: str) -> Place | None:
        found = list(self.db.query(Place.by_id(id=place_id), limit=1))
        return found[0] if found else None

    def rename_place(self, place_id: str, full_name: str) -> Place:
        """A new name may move the place to another sort key (``place#`` + its first two characters):
        the old item is deleted and the new one created with the word changes, in one transaction."""
        old = self.place(place_id)
        if old is None:
            raise NotFound(f"no place {place_id}")
        new = old.model_copy(update={"full_name": full_name, "search_name": fold(full_name)})
        before, after = set(words(old.full_name)), set(words(full_name))
        with self.db.transaction() as tx:
            if new.search_name[:SEARCH_PARTITION_CHARS] == old.search_name[:SEARCH_PARTITION_CHARS]:
                tx.put(new, condition=Place.f.full_name == old.full_name)
            else:
                tx.delete(old, condition=Place.f.full_name == old.full_name)
                tx.create(new)
            for word in sorted(before - after):
                tx.update(PlaceWord.key(word=word), PlaceWord.f.place_ids.delete({place_id}))
            for word in sorted(after - before):
                tx.update(PlaceWord.key(word=word), PlaceWord.f.place_ids.add({place_id}), upsert=True)
        return new

    def search_places(self, prefix: str, limit: int = 20) -> list[Place]:
        """Places whose folded name begins with the folded ``prefix``: one GSI partition, begins_with."""
        folded = fold(prefix)
        if len(folded) < SEARCH_PARTITION_CHARS:
            raise SearchTooShort(
                f"search for at least {SEARCH_PARTITION_CHARS} letters or digits (got {prefix!r}): "
                "places are partitioned by the first two characters of their folded name"
            )
        query = Place.search(search_name=folded)
        found = self.db.query(query, page_size=limit + 1)
        return ordered(found, lambda p: (p.search_name, p.id), limit)

    def place_word(self, word: str) -> PlaceWord | None:
        return self.db.get(PlaceWord, word=fold(word))

    def places_with_words(self, text: str) -> list[Place]:
        """Places whose name contains every word of ``text``: the word items in one BatchGetItem, their
        ID sets intersected, then one Query per place (its sort key depends on its name)."""
        wanted = sorted(set(fold(text).split()))
        if not wanted:
            return []
        found = self.db.batch_get([PlaceWord.key(word=w) for w in wanted])
        if len(found) < len(wanted):
            return []
        ids = set.intersection(*(set(w.place_ids) for w in found))
        places = [p for p in (self.place(i) for i in sorted(ids)) if p is not None]
        return ordered(places, lambda p: (p.search_name, p.id))

    def place_settings(self) -> PlaceSettings:
        return self.db.get(PlaceSettings) or PlaceSettings()

    def save_place_settings(self, settings: PlaceSettings) -> PlaceSettings:
        return self.db.put(settings)

    # -- posts, records, households ---------------------------------------------------------------------

    def add_post(
        self,
        collection_id: str,
        title: str,
        *,
        place_id: str | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> Post:
        """A new post; ``created_at`` defaults to the DB's clock (imports pass the original date)."""
        post = Post(
            id=id or self.next_id(),
            collection_id=collection_id,
            title=title,
            place_id=place_id,
            created_at=created_at,
        )
        return self.db.create(post)

    def post(self, post_id: str) -> Post | None:
        return self.db.get(Post, id=post_id)

    def all_posts(self) -> list[Post]:
        """Every post, from the single ``post`` GSI partition the design keeps on purpose."""
        return ordered(self.db.query(Post.all_posts()), lambda p: (p.collection_id, p.id))

    def posts_in(self, collection_id: str) -> list[Post]:
        return ordered(self.db.query(Post.all_posts(collection_id=collection_id)), lambda p: (p.id,))

    def add_record(self, record: Record) -> Record:
        """The record and, if it names a household, the post's household item, in one transaction
        (putting the household again is harmless: same key, same content)."""
        if not record.id:
            record = record.model_copy(update={"id": self.next_id()})
        with self.db.transaction() as tx:
            created = tx.create(record)
            if record.household:
                tx.put(RecordHousehold(post_id=record.post_id, household=record.household))
        return created

    def records_of(self, post_id: str) -> list[Record]:
        return list(self.db.query(Record.of_post(post_id=post_id)))

    def record(self, record_id: str) -> Record | None:
        found = list(self.db.query(Record.by_id(id=record_id), limit=1))
        return found[0] if found else None

    def households_of(self, post_id: str) -> list[str]:
        return [h.household for h in self.db.query(RecordHousehold.of_post(post_id=post_id))]

    def posts_with_household(self, household: str) -> list[str]:
        return [h.post_id for h in self.db.query(RecordHousehold.posts_with(household=household))]

    # -- settings and users -----------------------------------------------------------------------------

    def set_setting(self, name: str, value: str) -> Setting:
        return self.db.put(Setting(name=name, value=value))

    def setting(self, name: str) -> Setting | None:
        return self.db.get(Setting, name=name)

    def settings(self) -> list[Setting]:
        return list(self.db.query(Setting.by_name()))

    def add_user(
        self,
        issuer: str,
        subject: str,
        *,
        name: str | None = None,
        id: str | None = None,
        created_at: datetime | None = None,
    ) -> User:
        user = User(id=id or self.next_id(), issuer=issuer, subject=subject, name=name, created_at=created_at)
        return self.db.create(user)

    def user_by_identity(self, issuer: str, subject: str) -> User | None:
        """Sign-in: the identity provider's issuer and subject find the user through the GSI."""
        found = list(self.db.query(User.by_identity(issuer=issuer, subject=subject), limit=1))
        return found[0] if found else None
