"""Seed 002 (places/posts/records): every access pattern, the item layout, the sequence under concurrent
writers and the error paths, on the embedded engine and on DynamoDB Local."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from singletable.examples import DEMO_CLOCK
from singletable.examples.places.design import Category, Place, PlaceWord, Sequence, User, fold, places, words
from singletable.examples.places.sample import SEQUENCE_START, load
from singletable.examples.places.service import Archive, SearchTooShort
from singletable.model import AlreadyExists, KeyTemplateError, NotFound, connect


@pytest.fixture
def archive(open_db, load_sample) -> Archive:
    service = Archive(open_db(places, clock=lambda: DEMO_CLOCK))
    load_sample(service.db, lambda: load(service))  # the id sequence is an item: the copy carries it
    return service


def raw(archive: Archive, pk: str, sk: str) -> dict:
    params = {"TableName": archive.db.table_name, "Key": {"PK": {"S": pk}, "SK": {"S": sk}}}
    return {k: next(iter(v.values())) for k, v in archive.db.call("GetItem", params)["Item"].items()}


def test_fold_strips_case_accents_and_punctuation() -> None:
    assert fold("Ynys Môn") == fold("YNYS-MON") == "ynys mon"
    assert fold("King's Lynn") == "kings lynn"
    assert fold("  St. Davids ") == "st davids"
    assert fold("Straße Ærø") == "strasse aero"
    assert words("Llanfair-Pwllgwyngyll, Llanfair") == ["llanfair", "pwllgwyngyll"]


def test_categories_and_collections(archive: Archive) -> None:
    assert [c.name for c in archive.categories()] == ["Census", "Nonconformist chapels", "Parish registers"]
    assert [c.id for c in archive.categories_named("Census")] == ["1001"]
    assert archive.categories_named("Wills") == []
    assert [c.id for c in archive.collections()] == ["1011", "1012", "1013"]
    assert [c.id for c in archive.collections_named("Chapel burial books")] == ["1013"]
    assert [c.id for c in archive.categories_of("1013")] == ["1003", "1002"]
    assert [c.id for c in archive.collections_in("1002")] == ["1012", "1013"]
    archive.unlink("1013", "1002")
    archive.link("1011", "1002")
    assert [c.id for c in archive.collections_in("1002")] == ["1011", "1012"]


def test_place_search_folds_and_orders_ties_by_id(archive: Archive) -> None:
    assert [p.full_name for p in archive.search_places("llan")] == [
        "Llandudno",
        "Llanelli",
        "Llanfair Pwllgwyngyll",
        "Llangefni",
    ]
    assert [p.id for p in archive.search_places("YNYS MÔ")] == ["1024"]
    assert [p.id for p in archive.search_places("ABERDÂR")] == ["1029"]
    assert [p.id for p in archive.search_places("newport")] == ["1025", "1026"]
    # a limit that falls inside a tie still returns the lowest IDs of the tie
    assert [p.id for p in archive.search_places("newp", limit=1)] == ["1025"]
    assert [p.id for p in archive.search_places("ne", limit=2)] == ["1027", "1025"]
    assert archive.search_places("zz") == []
    with pytest.raises(SearchTooShort):
        archive.search_places("L")
    with pytest.raises(SearchTooShort):
        archive.search_places("'-")


def test_place_words_and_settings(archive: Archive) -> None:
    assert archive.place_word("NEWPORT").place_ids == {"1025", "1026"}
    assert archive.place_word("nowhere") is None
    assert [p.id for p in archive.places_with_words("St. Davids")] == ["1028"]
    assert [p.id for p in archive.places_with_words("llanfair")] == ["1021"]
    assert archive.places_with_words("newport gwent") == []
    assert archive.place_settings().default_region == "Wales"
    assert archive.place("1028").full_name == "St Davids"
    assert archive.place("9999") is None


def test_posts_records_and_households(archive: Archive) -> None:
    assert [(p.collection_id, p.id) for p in archive.all_posts()] == [
        ("1011", "1051"),
        ("1011", "1052"),
        ("1012", "1053"),
        ("1013", "1054"),
    ]
    assert [p.id for p in archive.posts_in("1011")] == ["1051", "1052"]
    assert archive.posts_in("1099") == []
    assert [r.id for r in archive.records_of("1051")] == ["1061", "1062", "1063", "1064"]
    assert archive.record("1066").post_id == "1053"
    assert archive.record("1051") is None  # a post's ID names no record
    assert archive.households_of("1051") == ["hh-101", "hh-102"]
    assert archive.posts_with_household("hh-101") == ["1051", "1053"]
    template = archive.record("1065")
    added = archive.add_record(template.model_copy(update={"id": "", "name": "Mary Williams"}))
    assert added.id == str(SEQUENCE_START + 1)
    assert [r.name for r in archive.records_of("1052")] == ["John Williams", "Mary Williams"]
    assert archive.households_of("1052") == ["hh-103"]


def test_settings_and_users(archive: Archive) -> None:
    assert [s.name for s in archive.settings()] == ["maintenance", "site_title", "uploads"]
    assert archive.setting("maintenance").value == "off"
    archive.set_setting("maintenance", "on")
    assert archive.setting("maintenance").value == "on" and len(archive.settings()) == 3
    user = archive.user_by_identity("https://accounts.google.com", "110248495921238986420")
    assert user.id == "1091" and user.created_at < DEMO_CLOCK
    assert archive.user_by_identity("https://accounts.google.com", "1102484959212389864") is None
    # the old layout's bare concatenation would give these two identities one key
    a = archive.add_user("https://id.example/", "x1")
    b = archive.add_user("https://id.example/x", "1")
    assert archive.user_by_identity("https://id.example/", "x1").id == a.id != b.id
    assert raw(archive, b.id, "user")["GSISK"] == "https%3A%2F%2Fid.example%2Fx#1"


def test_item_layout_and_sparse_index(archive: Archive) -> None:
    assert raw(archive, "1013", "collection_category#1002")["GSISK"] == "1013"
    assert raw(archive, "1026", "place#ne")["GSISK"] == "newport"
    assert raw(archive, "1051", "post")["GSISK"] == "1011"
    assert raw(archive, "1061", "record_post#1051")["GSISK"] == "1061"
    assert raw(archive, "1051", "record_household#hh-101")["GSISK"] == "1051"
    assert raw(archive, "settings#uploads", "settings")["GSISK"] == "uploads"
    for pk in ("placeSettings", "sequence", "placeWord#newport"):
        assert "GSISK" not in raw(archive, pk, pk.split("#")[0])
    count = {"TableName": archive.db.table_name, "IndexName": "GSI", "Select": "COUNT"}
    scan = archive.db.call("Scan", count)
    # 3 categories, 3 collections, 4 links, 10 places, 4 posts, 7 records, 4 households, 3 settings, 2 users
    assert scan["Count"] == 40


def test_rename_place_moves_its_key_and_words(archive: Archive) -> None:
    archive.rename_place("1028", "Tyddewi")
    assert archive.search_places("st") == [] and [p.id for p in archive.search_places("tyd")] == ["1028"]
    assert archive.place_word("tyddewi").place_ids == {"1028"}
    assert archive.place_word("davids").place_ids == set()
    archive.rename_place("1028", "Tyddewi (St Davids)")  # same partition: replaced in place
    assert archive.place("1028").search_name == "tyddewi st davids"
    assert archive.place_word("davids").place_ids == {"1028"}
    with pytest.raises(NotFound):
        archive.rename_place("9999", "Nowhere")


def test_error_paths(archive: Archive) -> None:
    with pytest.raises(AlreadyExists) as taken:
        archive.add_category("Census", id="1001")
    assert taken.value.code == "ConditionalCheckFailedException"
    with pytest.raises(AlreadyExists) as in_tx:
        archive.add_place("Newport", id="1025")
    assert in_tx.value.code == "TransactionCanceledException"
    assert archive.place_word("newport").place_ids == {"1025", "1026"}  # all or nothing
    with pytest.raises(KeyTemplateError, match="delimiter"):
        archive.add_category("C# programmers")
    with pytest.raises(ValueError):
        archive.next_ids(0)


def _allocate(connect_one, rounds: int, out: list[str], errors: list[BaseException]) -> None:
    try:
        service = Archive(connect_one())
        for n in range(rounds):
            out.extend(service.next_ids(1 + n % 3))
    except BaseException as error:  # surfaced by the test
        errors.append(error)


@pytest.mark.parametrize("where", ["engine", "reference"])
def test_sequence_is_safe_under_concurrent_writers(where: str, request, tmp_path: Path, table_name) -> None:
    if where == "engine":
        path = str(tmp_path / "seq.sqlite3")
        connect(places, path, name=table_name).create_table()

        def connect_one():
            return connect(places, path, name=table_name)
    else:
        server = request.getfixturevalue("reference_server")
        connect(places, server.client(), name=table_name).create_table()

        def connect_one():
            return connect(places, server.client(), name=table_name)

    allocated: list[str] = []
    errors: list[BaseException] = []
    work = (connect_one, 12, allocated, errors)
    threads = [threading.Thread(target=_allocate, args=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    numbers = sorted(int(i) for i in allocated)
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 6 * 24
    assert connect_one().get(Sequence).value == len(numbers)
    if where == "reference":
        connect_one().delete_table()


def test_model_level_keys(archive: Archive) -> None:
    meta = User.model_entity()
    assert meta.keys["GSISK"].parse("https%3A%2F%2Faccounts.google.com#1234%235") == {
        "issuer": "https://accounts.google.com",
        "subject": "1234#5",
    }
    assert Place(id="1", full_name="Élan Valley").search_name == "elan valley"
    assert Category.model_entity().keys["GSISK"].template.text == "{name}"
    assert PlaceWord.model_entity().keys["PK"].template.text == "placeWord#{word}"
