"""The older layout the design's "Notes on changes" describe, as we read it (README, "The older layout").

The design's heading "Current (with string PK)" and its notes imply the earlier table differed in that:

* ``PK`` was a Number: an entity's numeric ID. Items without an ID of their own (place settings, the
  sequence) used ``PK = 0``; a word of the place index had a numeric ID and was found through the GSI
  (``SK = "placeWord"``, ``GSISK`` = the word) -- a string ``PK`` is what lets the new layout address words,
  settings and the sequence directly.
* Every item had a ``GSISK`` (so every item was in the GSI): ``"placeSettings"``, ``"sequence"``, a
  place word's word, a setting's name. ``collection_category`` had none -- so it was *not* in the GSI, which
  is why the new layout gives it one.
* A record's ``SK`` was ``"record"`` and its ``GSISK`` the post ID: every record of every post in one GSI
  partition.
* Place keys used the raw first two characters and the raw full name (case- and accent-sensitive search).
* A user's ``GSISK`` was ``urlencode(issuer + subject)``, with no separator.
* ID-valued attributes (``collectionId``, ``postId``, ``placeId``, ``birthplaceId``, ``placeIds``) were
  Numbers; no item carried ``entityType``.

:func:`legacy_items` writes the sample data in that layout so the migration has something real to move.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import quote

from singletable.examples import DEMO_CLOCK
from singletable.examples.places import sample
from singletable.examples.places.design import words
from singletable.model import GSI, Table, env

legacy = Table(
    name=env("PLACES_LEGACY_TABLE", "places-v1"),
    pk=("PK", "N"),
    sk="SK",
    indexes=[GSI("GSI", pk="SK", sk="GSISK")],
)

SINGLETON_PK = 0
WORD_IDS_START = 9001


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: int | str) -> dict[str, str]:
    return {"N": str(int(value))}


def _timestamp(days_ago: int) -> str:
    return (DEMO_CLOCK - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def legacy_items() -> list[dict[str, Any]]:
    """The sample archive as items of the older layout, in a fixed order."""
    return [
        *_category_and_collection_items(),
        *_place_and_word_items(),
        _singleton("placeSettings", maxResults=_n(20), defaultRegion=_s("Wales")),
        *_post_items(),
        *_record_and_household_items(),
        *_setting_items(),
        _singleton("sequence", value=_n(sample.SEQUENCE_START)),
        *_user_items(),
    ]


def _category_and_collection_items() -> list[dict[str, Any]]:
    """Categories, then each collection followed by its links to categories (which had no GSISK)."""
    items: list[dict[str, Any]] = []
    for id_, name in sample.CATEGORIES:
        items.append({"PK": _n(id_), "SK": _s("category"), "GSISK": _s(name), "name": _s(name)})
    for id_, name, categories in sample.COLLECTIONS:
        items.append({"PK": _n(id_), "SK": _s("collection"), "GSISK": _s(name), "name": _s(name)})
        for category in categories:
            items.append({"PK": _n(id_), "SK": _s(f"collection_category#{category}")})
    return items


def _place_and_word_items() -> list[dict[str, Any]]:
    """Places keyed by their raw name, then one item per word with numeric IDs from WORD_IDS_START."""
    items: list[dict[str, Any]] = []
    place_words: dict[str, list[str]] = {}
    for id_, name, region in sample.PLACES:
        items.append(
            {
                "PK": _n(id_),
                "SK": _s(f"place#{name[:2]}"),
                "GSISK": _s(name),
                "fullName": _s(name),
                "region": _s(region),
            }
        )
        for word in words(name):
            place_words.setdefault(word, []).append(id_)
    for offset, (word, ids) in enumerate(sorted(place_words.items())):
        items.append(
            {
                "PK": _n(WORD_IDS_START + offset),
                "SK": _s("placeWord"),
                "GSISK": _s(word),
                "placeIds": {"NS": sorted(ids)},
            }
        )
    return items


def _singleton(kind: str, **attributes: dict[str, Any]) -> dict[str, Any]:
    """An item without an ID of its own (place settings, the sequence): ``PK = 0``, SK and GSISK its kind."""
    return {"PK": _n(SINGLETON_PK), "SK": _s(kind), "GSISK": _s(kind), **attributes}


def _post_items() -> list[dict[str, Any]]:
    return [
        {
            "PK": _n(id_),
            "SK": _s("post"),
            "GSISK": _s(collection),
            "collectionId": _n(collection),
            "title": _s(title),
            "placeId": _n(place),
            "createdAt": _s(_timestamp(days_ago)),
        }
        for id_, collection, title, place, days_ago in sample.POSTS
    ]


def _record_and_household_items() -> list[dict[str, Any]]:
    """Records (all in one GSI partition ``record``), then one item per household of a post."""
    items: list[dict[str, Any]] = []
    households: set[tuple[str, str]] = set()
    for record in sample.RECORDS:
        item: dict[str, Any] = {
            "PK": _n(record.id),
            "SK": _s("record"),
            "GSISK": _s(record.post_id),
            "postId": _n(record.post_id),
            "name": _s(record.name),
        }
        for attribute, value in (("household", record.household), ("relationship", record.relationship)):
            if value is not None:
                item[attribute] = _s(value)
        if record.age is not None:
            item["age"] = _n(record.age)
        if record.birthplace_id is not None:
            item["birthplaceId"] = _n(record.birthplace_id)
        items.append(item)
        if record.household:
            households.add((record.post_id, record.household))
    for post_id, household in sorted(households):
        items.append({"PK": _n(post_id), "SK": _s(f"record_household#{household}"), "GSISK": _s(post_id)})
    return items


def _setting_items() -> list[dict[str, Any]]:
    return [
        {
            "PK": _n(1081 + offset),
            "SK": _s("settings"),
            "GSISK": _s(name),
            "name": _s(name),
            "value": _s(value),
        }
        for offset, (name, value) in enumerate(sample.SETTINGS)
    ]


def _user_items() -> list[dict[str, Any]]:
    """Users, found through the GSI by ``urlencode(issuer + subject)`` with no separator."""
    return [
        {
            "PK": _n(id_),
            "SK": _s("user"),
            "GSISK": _s(quote(issuer + subject, safe="")),
            "issuer": _s(issuer),
            "subject": _s(subject),
            "name": _s(name),
            "createdAt": _s(_timestamp(days_ago)),
        }
        for id_, issuer, subject, name, days_ago in sample.USERS
    ]
