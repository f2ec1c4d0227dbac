"""Seed 002: places, posts and records on one table whose sort key doubles as the GSI's partition key.

The table is an *inverted index*: ``PK`` is an entity's ID, ``SK`` names the entity type (sometimes with a
qualifier) and is also the partition key of ``GSI``, whose sort key ``GSISK`` is written only where the app
queries the index -- entities without a ``GSISK`` stay out of the index (the design's "<none>").

Choices the design leaves open are recorded in ``README.md`` beside it; the ones visible here:

* IDs are decimal strings allocated from one ``sequence`` item, so every entity's ``PK`` is unique across
  types and an ID names one partition.
* Place names are searched by a *folded* form (:func:`fold`: accents stripped, case folded, punctuation to
  spaces), stored as ``searchName``; its first two characters pick the GSI partition ``place#xx``.
* A setting is keyed ``settings#<name>``: the design's constant ``PK = SK = "settings"`` holds one item.
* A user's ``GSISK`` is ``urlencode(issuer) + "#" + urlencode(subject)``: with no separator two identities
  could collide.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any

from pydantic import model_validator

from singletable.model import GSI, Entity, Keys, Pattern, Table, env

places = Table(
    name=env("PLACES_TABLE", "places"),
    pk="PK",
    sk="SK",
    indexes=[GSI("GSI", pk="SK", sk="GSISK")],
    naming="camel",
)

# Letters NFKD does not decompose into a base letter plus marks.
_LETTERS = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "\u0131": "i"}
)
_APOSTROPHES = re.compile("['\u2019`]")  # ' and the typographic apostrophe
_OTHER = re.compile(r"[^0-9a-z]+")
SEARCH_PARTITION_CHARS = 2


def fold(text: str) -> str:
    """The form place names are indexed and searched by, so "Ynys Môn", "ynys mon" and "YNYS-MÔN" meet.

    Accents are stripped (NFKD, combining marks dropped, a few letters mapped by hand), case is folded
    (``casefold``: "ß" -> "ss"), apostrophes vanish ("King's" -> "kings") and every other non-alphanumeric
    run becomes one space. The result never contains the key delimiter ``#``.
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).translate(_LETTERS)
    bare = _APOSTROPHES.sub("", bare)
    return _OTHER.sub(" ", bare).strip()


def words(full_name: str) -> list[str]:
    """The words a place is indexed under in the word index, folded like searches, each once."""
    return sorted(set(fold(full_name).split()))


class Category(Entity, table=places, type="category", timestamps=False):
    id: str
    name: str
    keys = Keys(PK="{id}", SK="category", GSISK="{name}")
    by_name = Pattern(index="GSI", doc="every category, ordered by name; with name=, those of one name")


class Collection(Entity, table=places, type="collection", timestamps=False):
    id: str
    name: str
    description: str | None = None
    keys = Keys(PK="{id}", SK="collection", GSISK="{name}")
    by_name = Pattern(index="GSI", doc="every collection, ordered by name; with name=, those of one name")


class CollectionCategory(Entity, table=places, type="collection_category", timestamps=False):
    """A collection is in a category: stored in the collection's partition, indexed under the category."""

    collection_id: str
    category_id: str
    keys = Keys(PK="{collection_id}", SK="collection_category#{category_id}", GSISK="{collection_id}")
    of_collection = Pattern(doc="the category links in a collection's partition")
    in_category = Pattern(index="GSI", doc="collections linked to a category, by collection ID")


class Place(Entity, table=places, type="place", timestamps=False):
    id: str
    full_name: str
    region: str | None = None
    search_name: str = ""
    keys = Keys(PK="{id}", SK="place#{search_name[:2]}", GSISK="{search_name}")
    search = Pattern(index="GSI", prefix=True, doc="places whose folded name begins with a prefix")
    by_id = Pattern(sk="place#", doc="a place by ID: its sort key depends on its name, so a Query")

    @model_validator(mode="before")
    @classmethod
    def _search_name(cls, data: Any) -> Any:
        """searchName always follows fullName, so a rename cannot leave the index on the old name."""
        if isinstance(data, dict):
            name = data.get("full_name", data.get("fullName"))
            if isinstance(name, str):
                data = {**data, "search_name": fold(name)}
                data.pop("searchName", None)
        return data


class PlaceSettings(Entity, table=places, type="placeSettings", timestamps=False):
    max_results: int = 20
    default_region: str | None = None
    keys = Keys(PK="placeSettings", SK="placeSettings")


class PlaceWord(Entity, table=places, type="placeWord", timestamps=False):
    """One word of the place-name index: the IDs of the places whose folded name contains it."""

    word: str
    place_ids: set[str] = set()
    keys = Keys(PK="placeWord#{word}", SK="placeWord")


class Post(Entity, table=places, type="post"):
    id: str
    collection_id: str
    title: str
    place_id: str | None = None
    created_at: datetime | None = None
    keys = Keys(PK="{id}", SK="post", GSISK="{collection_id}")
    all_posts = Pattern(index="GSI", doc="every post (one GSI partition), ordered by collection ID")


class Record(Entity, table=places, type="record", timestamps=False):
    id: str
    post_id: str
    name: str
    household: str | None = None
    relationship: str | None = None
    age: int | None = None
    birthplace_id: str | None = None
    keys = Keys(PK="{id}", SK="record_post#{post_id}", GSISK="{id}")
    of_post = Pattern(index="GSI", doc="a post's records: one GSI partition per post, by record ID")
    by_id = Pattern(sk="record_post#", doc="a record by ID: its sort key holds the post ID, so a Query")


class RecordHousehold(Entity, table=places, type="record_household", timestamps=False):
    """A household transcribed on a post: in the post's partition, indexed under the household."""

    post_id: str
    household: str
    keys = Keys(PK="{post_id}", SK="record_household#{household}", GSISK="{post_id}")
    of_post = Pattern(doc="the households in a post's partition")
    posts_with = Pattern(index="GSI", doc="posts on which a household appears, by post ID")


class Setting(Entity, table=places, type="settings", timestamps=False):
    name: str
    value: str
    keys = Keys(PK="settings#{name}", SK="settings", GSISK="{name}")
    by_name = Pattern(index="GSI", doc="every setting, ordered by name")


class Sequence(Entity, table=places, type="sequence", timestamps=False):
    value: int = 0
    keys = Keys(PK="sequence", SK="sequence")


class User(Entity, table=places, type="user"):
    id: str
    issuer: str
    subject: str
    name: str | None = None
    created_at: datetime | None = None
    keys = Keys(PK="{id}", SK="user", GSISK="{issuer|url}#{subject|url}")
    by_identity = Pattern(index="GSI", doc="the user signed in with an issuer and subject")


ENTITIES: tuple[type[Entity], ...] = (
    Category,
    Collection,
    CollectionCategory,
    Place,
    PlaceSettings,
    PlaceWord,
    Post,
    Record,
    RecordHousehold,
    Setting,
    Sequence,
    User,
)
