"""0001: the older layout (:mod:`singletable.examples.places.legacy`) copied into the design's current one.

The old ``PK`` is a Number and the new one a String, and DynamoDB cannot change a table's key schema, so this
migration runs on the NEW table (create it from the design first) and copies into it: ``copy_from`` scans the
old table page by page (it is only read) and writes what each item becomes, each put only where its key is
free. The word index is rebuilt from the places -- each place ``ADD``s its ID to its words' string sets --
instead of copying the old word items, whose words were not folded. An old item of no known shape stops the
run (MigrationError naming it) rather than being dropped. The old table's name is ``PLACES_LEGACY_TABLE``
(default ``places-v1``), as :mod:`~singletable.examples.places.legacy` declares it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from singletable.examples.places.design import (
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
    places,
    words,
)
from singletable.examples.places.legacy import legacy
from singletable.migrate import AddToSet, Migration, MigrationError, copy_from
from singletable.model import Entity


@dataclass
class Converted:
    """What one old item becomes: entities to put, and (word, place ID) pairs for the word index."""

    puts: list[Entity] = field(default_factory=list)
    word_ids: list[tuple[str, str]] = field(default_factory=list)
    skipped: bool = False


def _text(item: dict[str, Any], name: str) -> str | None:
    av = item.get(name)
    if av is None:
        return None
    return av.get("S", av.get("N"))


def _number(item: dict[str, Any], name: str) -> int | None:
    av = item.get(name)
    return None if av is None else int(av["N"])


def _category(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([Category(id=id_, name=_text(item, "name") or _text(item, "GSISK"))])


def _collection(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    name = _text(item, "name") or _text(item, "GSISK")
    return Converted([Collection(id=id_, name=name, description=_text(item, "description"))])


def _collection_category(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([CollectionCategory(collection_id=id_, category_id=rest)])


def _place(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    place = Place(
        id=id_, full_name=_text(item, "fullName") or _text(item, "GSISK"), region=_text(item, "region")
    )
    return Converted([place], [(word, id_) for word in words(place.full_name)])


def _place_settings(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    settings = PlaceSettings(
        max_results=_number(item, "maxResults") or 20, default_region=_text(item, "defaultRegion")
    )
    return Converted([settings])


def _place_word(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted(skipped=True)  # rebuilt from the places


def _post(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    post = Post(
        id=id_,
        collection_id=_text(item, "collectionId") or _text(item, "GSISK"),
        title=_text(item, "title") or "",
        place_id=_text(item, "placeId"),
        created_at=_text(item, "createdAt"),
    )
    return Converted([post])


def _record(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    record = Record(
        id=id_,
        post_id=_text(item, "postId") or _text(item, "GSISK"),
        name=_text(item, "name") or "",
        household=_text(item, "household"),
        relationship=_text(item, "relationship"),
        age=_number(item, "age"),
        birthplace_id=_text(item, "birthplaceId"),
    )
    return Converted([record])


def _record_household(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([RecordHousehold(post_id=id_, household=rest)])


def _setting(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted(
        [Setting(name=_text(item, "name") or _text(item, "GSISK"), value=_text(item, "value") or "")]
    )


def _sequence(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([Sequence(value=_number(item, "value") or 0)])


def _user(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    issuer, subject = _text(item, "issuer"), _text(item, "subject")
    if issuer is None or subject is None or quote(issuer + subject, safe="") != _text(item, "GSISK"):
        raise MigrationError(f"user {id_}: issuer and subject do not match its old GSISK")
    user = User(
        id=id_, issuer=issuer, subject=subject, name=_text(item, "name"), created_at=_text(item, "createdAt")
    )
    return Converted([user])


_Converter = Callable[[str, str, dict[str, Any]], Converted]
# An old item's converter by its whole SK ...
_BY_SK: dict[str, _Converter] = {
    "category": _category,
    "collection": _collection,
    "placeSettings": _place_settings,
    "placeWord": _place_word,
    "post": _post,
    "record": _record,
    "settings": _setting,
    "sequence": _sequence,
    "user": _user,
}
# ... or, for SKs of the form KIND#REST, by KIND (REST is the converter's second argument).
_BY_KIND: dict[str, _Converter] = {
    "collection_category": _collection_category,
    "place": _place,
    "record_household": _record_household,
}


def convert(item: dict[str, Any]) -> Converted:
    """One old-layout item in the new layout (see ``legacy`` for how we read the old one)."""
    pk, sk = item["PK"]["N"], item["SK"]["S"]
    id_ = str(int(pk))
    kind, _, rest = sk.partition("#")
    converter = _BY_SK.get(sk) or _BY_KIND.get(kind)
    if converter is None:
        raise MigrationError(f"old item PK={id_} SK={sk!r} is of no known entity")
    return converter(id_, rest, item)


def copied(item: dict[str, Any]) -> list[Entity | AddToSet]:
    """What ``copy_from`` writes for one old item: its entities, and its place ID added to each word."""
    converted = convert(item)
    adds = [AddToSet(PlaceWord(word=word, place_ids={id_}), "place_ids") for word, id_ in converted.word_ids]
    return [*converted.puts, *adds]


migration = Migration(
    id="0001-string-ids",
    description="copy the older layout (numeric PK, GSISK on every item) into the string-PK table",
    steps=[copy_from(legacy, each=copied)],
    table=places,
)
