"""Seed 002 (places/posts/records): string PK = ID, SK = entity type doubling as the GSI partition key
(an inverted index), a sparse GSI sort key, prefix search by the first two characters of a name.

Choices: the GSI is ``GSI`` with key ``SK`` / ``GSISK``. "URL-encoded Issuer + Subject" is written
``{issuer|url}#{subject|url}`` so the two parts parse back. Settings with a constant PK *and* SK could hold
only one item, yet the GSI sorts them by name; we key each setting ``settings#<name>``. Entities without a
GSI use (PlaceSettings, PlaceWord, Sequence) declare no GSISK and stay out of the index.
"""

from __future__ import annotations

from singletable.model import GSI, Entity, Keys, KeyTemplateError, Pattern, Table, env

places = Table(name=env("TABLE_NAME", "places"), indexes=[GSI("GSI", pk="SK", sk="GSISK")], naming="camel")


class Category(Entity, table=places, type="category", timestamps=False):
    id: str
    name: str
    keys = Keys(PK="{id}", SK="category", GSISK="{name}")
    by_name = Pattern(index="GSI")


class Place(Entity, table=places, type="place", timestamps=False):
    id: str
    full_name: str
    keys = Keys(PK="{id}", SK="place#{full_name[:2]}", GSISK="{full_name}")
    search = Pattern(index="GSI", prefix=True)


class PlaceWord(Entity, table=places, type="placeWord", timestamps=False):
    word: str
    place_ids: set[str] = set()
    keys = Keys(PK="placeWord#{word}", SK="placeWord")


class Record(Entity, table=places, type="record", timestamps=False):
    id: str
    post_id: str
    value: float
    keys = Keys(PK="{id}", SK="record_post#{post_id}", GSISK="{id}")
    of_post = Pattern(index="GSI")


class Sequence(Entity, table=places, type="sequence", timestamps=False):
    value: int = 0
    keys = Keys(PK="sequence", SK="sequence")


class User(Entity, table=places, type="user", timestamps=False):
    id: str
    issuer: str
    subject: str
    keys = Keys(PK="{id}", SK="user", GSISK="{issuer|url}#{subject|url}")
    by_identity = Pattern(index="GSI")


def test_prefix_search_on_the_first_two_characters(open_db) -> None:
    db = open_db(places)
    for i, name in enumerate(["London", "Lonsdale", "Lowestoft", "Leeds", "Paris"]):
        db.put(Place(id=f"p{i}", full_name=name))
    assert [p.full_name for p in db.query(Place.search(full_name="Lon"))] == ["London", "Lonsdale"]
    assert [p.full_name for p in db.query(Place.search(full_name="Lo"))] == [
        "London",
        "Lonsdale",
        "Lowestoft",
    ]
    item = db.call(
        "GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": "p3"}, "SK": {"S": "place#Le"}}}
    )
    assert item["Item"]["GSISK"] == {"S": "Leeds"}
    assert db.get(Place, id="p3", full_name="Leeds").full_name == "Leeds"


def test_inverted_index_sparse_entities_and_a_sequence(open_db) -> None:
    db = open_db(places)
    db.put(Category(id="c2", name="Parks"))
    db.put(Category(id="c1", name="Museums"))
    db.put(Record(id="r1", post_id="post1", value=1.5))
    db.put(Record(id="r2", post_id="post1", value=2.0))
    db.put(PlaceWord(word="lon", place_ids={"p0", "p1"}))
    assert [c.name for c in db.query(Category.by_name())] == ["Museums", "Parks"]
    assert [(r.id, r.value) for r in db.query(Record.of_post(post_id="post1"))] == [("r1", 1.5), ("r2", 2.0)]
    assert db.call("Scan", {"TableName": db.table_name, "IndexName": "GSI", "Select": "COUNT"})["Count"] == 4

    assert db.update(Sequence.key(), Sequence.f.value.add(1), upsert=True).value == 1
    assert db.update(Sequence.key(), Sequence.f.value.add(1), upsert=True).value == 2
    word = db.update(PlaceWord.key(word="lon"), PlaceWord.f.place_ids.add({"p9"}))
    assert word.place_ids == {"p0", "p1", "p9"}
    word = db.update(PlaceWord.key(word="lon"), PlaceWord.f.place_ids.delete({"p0"}))
    assert word.place_ids == {"p1", "p9"}


def test_url_encoded_identity_keys(open_db) -> None:
    db = open_db(places)
    db.put(User(id="u1", issuer="https://accounts.google.com", subject="1234#5"))
    item = db.call("GetItem", {"TableName": db.table_name, "Key": {"PK": {"S": "u1"}, "SK": {"S": "user"}}})
    assert item["Item"]["GSISK"] == {"S": "https%3A%2F%2Faccounts.google.com#1234%235"}
    (user,) = db.query(User.by_identity(issuer="https://accounts.google.com", subject="1234#5"))
    assert user.id == "u1"
    meta = User.model_entity()
    assert meta.keys["GSISK"].parse("https%3A%2F%2Faccounts.google.com#1234%235") == {
        "issuer": "https://accounts.google.com",
        "subject": "1234#5",
    }


def test_delimiter_in_an_unencoded_value_is_refused(open_db) -> None:
    db = open_db(places)
    try:
        db.put(Category(id="c#1", name="x"))
    except KeyTemplateError as error:
        assert "delimiter" in str(error) and "|url" in str(error)
    else:
        raise AssertionError("a '#' in an id must not silently corrupt the key")
