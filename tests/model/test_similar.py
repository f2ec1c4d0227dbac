"""``db.similar``: typed similarity searches over vector indexes, on the engine, the in-process client and
``singletable serve`` (DynamoDB Local has no vector indexes: there the tests skip saying so), on ``DB`` and
``AsyncDB`` alike.

Each search is checked against brute force over the stored vectors: the same items, nearest first, with
the distance each distance function defines (COSINE 1 - cos, EUCLIDEAN the straight-line distance,
DOT_PRODUCT the dot product, largest first), within float32 rounding.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.model import (
    Entity,
    FieldNotLoaded,
    Keys,
    Pattern,
    Scored,
    Similar,
    Table,
    Vector,
    VectorIndex,
    connect,
)

pytestmark = pytest.mark.async_twin


@pytest.fixture(autouse=True)
def _vector_targets(request: pytest.FixtureRequest) -> None:
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("target") == "reference":
        pytest.skip("DynamoDB Local has no vector indexes or SearchVectors (docs/compatibility.md)")


kb = Table(
    name="vector_kb",
    vector_indexes=[
        VectorIndex(
            "ByMeaning", vector="embedding", dimensions=4, partition="tenant", filters=["lang", "entityType"]
        ),
        VectorIndex("ByDistance", vector="embedding", dimensions=4, distance="EUCLIDEAN", partition="tenant"),
        VectorIndex(
            "ByDot", vector="embedding", dimensions=4, distance="DOT_PRODUCT", projection="KEYS_ONLY"
        ),
    ],
)


class Doc(Entity, table=kb, type="DOC"):
    tenant: str
    doc_id: str
    title: str
    lang: str = "en"
    embedding: list[float] = Vector(4)

    keys = Keys(PK="TENANT#{tenant}", SK="DOC#{doc_id}")
    in_tenant = Pattern()
    by_meaning = Similar("ByMeaning")
    by_distance = Similar("ByDistance")
    by_dot = Similar("ByDot")


class Note(Entity, table=kb, type="NOTE"):
    """Another entity in the same index: a Doc search leaves its items out."""

    tenant: str
    note_id: str
    embedding: list[float] = Vector(4)

    keys = Keys(PK="TENANT#{tenant}", SK="NOTE#{note_id}")
    by_distance = Similar("ByDistance")


DOCS = [
    ("a", "1", "north", "en", [1.0, 0.0, 0.0, 0.0]),
    ("a", "2", "north-east", "en", [0.8, 0.6, 0.0, 0.0]),
    ("a", "3", "east", "de", [0.0, 1.0, 0.0, 0.0]),
    ("a", "4", "south, long", "en", [-2.0, 0.0, 0.0, 0.0]),
    ("b", "5", "north in b", "en", [1.0, 0.0, 0.0, 0.0]),
]


def _load(db) -> None:
    for tenant, doc_id, title, lang, vector in DOCS:
        db.create(Doc(tenant=tenant, doc_id=doc_id, title=title, lang=lang, embedding=vector))
    db.create(Note(tenant="a", note_id="n1", embedding=[1.0, 0.0, 0.0, 0.0]))


def _cosine(a: list[float], b: list[float]) -> float:
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 1 - sum(x * y for x, y in zip(a, b, strict=True)) / norms


def test_nearest_first_with_cosine_distances_and_without_their_vectors(open_db) -> None:
    db = open_db(kb)
    _load(db)
    query = [1.0, 0.1, 0.0, 0.0]
    with db.trace() as trace:
        found = db.similar(Doc.by_meaning, query, top_k=3, where=Doc.f.tenant == "a")
    assert trace.operations == ["SearchVectors"]
    assert all(isinstance(r, Scored) for r in found)
    assert [r.entity.doc_id for r in found] == ["1", "2", "3"]
    for result, (_, doc_id, _, _, vector) in zip(found, DOCS, strict=False):
        assert result.entity.doc_id == doc_id
        assert result.score == pytest.approx(_cosine(query, vector), abs=1e-5)
    assert found[0].entity.title == "north" and found[0].entity.tenant == "a"
    with pytest.raises(FieldNotLoaded):
        _ = found[0].entity.embedding
    whole = db.similar(Doc.by_meaning, query, top_k=1, where=Doc.f.tenant == "a", with_vector=True)
    assert whole[0].entity == db.get(Doc, tenant="a", doc_id="1")


def test_an_inline_filter_and_the_partition_keep_to_their_items(open_db) -> None:
    db = open_db(kb)
    _load(db)
    german = db.similar(Doc.by_meaning, [1, 0, 0, 0], where=(Doc.f.tenant == "a") & (Doc.f.lang == "de"))
    assert [r.entity.doc_id for r in german] == ["3"]
    other = db.similar(Doc.by_meaning, [1, 0, 0, 0], where=Doc.f.tenant == "b")
    assert [r.entity.doc_id for r in other] == ["5"]
    assert db.similar(Doc.by_meaning, [1, 0, 0, 0], where=Doc.f.tenant == "nobody") == []


def test_euclidean_distances_and_another_type_left_out(open_db) -> None:
    """ByDistance has no type filter: the Note nearest the query comes back and the Doc search drops it."""
    db = open_db(kb)
    _load(db)
    found = db.similar(Doc.by_distance, [1.0, 0.0, 0.0, 0.0], top_k=3, where=Doc.f.tenant == "a")
    assert [r.entity.doc_id for r in found] == ["1", "2"]  # the third nearest was the Note
    assert [r.score for r in found] == pytest.approx(
        [0.0, math.dist([1, 0, 0, 0], [0.8, 0.6, 0, 0])], abs=1e-5
    )
    notes = db.similar(Note.by_distance, [1.0, 0.0, 0.0, 0.0], top_k=2, where=Note.f.tenant == "a")
    assert [type(r.entity) for r in notes] == [Note] and notes[0].entity.note_id == "n1"


def test_dot_product_largest_first_and_a_keys_only_index_read_whole(open_db) -> None:
    db = open_db(kb)
    _load(db)
    with db.trace() as trace:
        found = db.similar(Doc.by_dot, [-1.0, 0.0, 0.0, 0.0], top_k=2)
    assert trace.operations == ["SearchVectors", "BatchGetItem"]
    assert [r.entity.doc_id for r in found] == ["4", "3"]
    assert [r.score for r in found] == pytest.approx([2.0, 0.0], abs=1e-5)
    assert found[0].entity == db.get(Doc, tenant="a", doc_id="4")  # hydrated: every field, the vector too


def test_an_update_moves_an_item_and_a_delete_removes_it(open_db) -> None:
    db = open_db(kb)
    _load(db)
    db.update(Doc.key(tenant="a", doc_id="3"), embedding=[1.0, 0.0, 0.0, 0.0], title="north now")
    first = db.similar(Doc.by_meaning, [1, 0, 0, 0], top_k=2, where=Doc.f.tenant == "a")
    assert sorted(r.entity.doc_id for r in first) == ["1", "3"]
    db.delete(Doc, tenant="a", doc_id="1")
    db.delete(Doc, tenant="a", doc_id="3")
    left = db.similar(Doc.by_meaning, [1, 0, 0, 0], top_k=5, where=Doc.f.tenant == "a")
    assert [r.entity.doc_id for r in left] == ["2", "4"]


# -- the property: a search is brute force over the stored vectors -------------------------------------------

_unit = st.floats(min_value=-1, max_value=1, allow_nan=False, width=32)
_vector = st.lists(_unit, min_size=4, max_size=4).filter(lambda v: sum(x * x for x in v) > 1e-3)


@pytest.mark.sync_only(reason="one engine per example: the property is about the search, not the driver")
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.sampled_from(["en", "de"]), _vector), min_size=1, max_size=12
    ),
    _vector,
    st.sampled_from("ab"),
    st.none() | st.sampled_from(["en", "de"]),
    st.integers(min_value=1, max_value=6),
)
def test_hypothesis_similar_is_brute_force(items, query, tenant, lang, top_k) -> None:
    db = connect(kb)
    db.create_table()
    for number, (owner, language, vector) in enumerate(items):
        db.create(Doc(tenant=owner, doc_id=str(number), title="t", lang=language, embedding=vector))
    where = Doc.f.tenant == tenant
    if lang is not None:
        where = where & (Doc.f.lang == lang)
    found = db.similar(Doc.by_meaning, query, top_k=top_k, where=where)
    wanted = sorted(
        (_cosine(query, vector), str(n))
        for n, (owner, language, vector) in enumerate(items)
        if owner == tenant and (lang is None or language == lang)
    )[:top_k]
    assert len(found) == len(wanted)
    assert [r.score for r in found] == pytest.approx([d for d, _ in wanted], abs=1e-4)
    scores = [r.score for r in found]
    assert scores == sorted(scores)
    by_id = {str(n): vector for n, (_, _, vector) in enumerate(items)}
    for result in found:  # each result's score is its own distance (ties may come in either order)
        assert result.score == pytest.approx(_cosine(query, by_id[result.entity.doc_id]), abs=1e-4)
    db.close()


@pytest.mark.sync_only(reason="the engine's own bookkeeping, on one file")
def test_a_table_created_after_a_deleted_one_keeps_its_own_vectors(tmp_path) -> None:
    """SQLite gives a new table a dropped one's id: the engine's in-memory copy of the dropped table's vector
    index (4 dimensions) must not be patched with the new table's 8-dimension vectors, nor searched."""
    from singletable.engine import Engine

    other = Table(name="other", vector_indexes=[VectorIndex("ByMeaning", vector="embedding", dimensions=8)])

    class Wide(Entity, table=other, type="WIDE"):
        wide_id: str
        embedding: list[float] = Vector(8)

        keys = Keys(PK="WIDE#{wide_id}", SK="WIDE")
        near = Similar("ByMeaning")

    engine = Engine(str(tmp_path / "reused.db"))
    first = connect(kb, engine, name="first")
    first.create_table()
    _load(first)
    first.similar(Doc.by_meaning, [1, 0, 0, 0], where=Doc.f.tenant == "a")  # builds the 4-dimension matrix
    first.delete_table()
    second = connect(other, engine, name="second")
    second.create_table()
    second.create(Wide(wide_id="w", embedding=[1.0] + [0.0] * 7))
    (found,) = second.similar(Wide.near, [1.0] + [0.0] * 7)
    assert found.entity.wide_id == "w"
    second.delete_table()
    third = connect(kb, engine, name="third")  # the first table's definition again, under the same id
    third.create_table()
    assert third.similar(Doc.by_meaning, [1, 0, 0, 0], where=Doc.f.tenant == "a") == []  # nothing stale
    engine.close()


plain = Table(name="vector_plain", vector_indexes=[VectorIndex("Plain", vector="embedding", dimensions=4)])


class Thing(Entity, table=plain, type="THING"):
    thing_id: str
    embedding: list[float] = Vector(4)

    keys = Keys(PK="THING#{thing_id}", SK="THING")
    near = Similar("Plain")


@pytest.mark.sync_only(reason="DynamoDB Local's own answer, through boto3")
def test_on_dynamodb_local_a_search_is_its_unknown_operation(reference_client) -> None:
    """DynamoDB Local drops VectorIndexes from CreateTable (this index has no search schema, so the table is
    created) and answers SearchVectors with UnknownOperationException: the model raises it as RequestError."""
    from singletable.model import RequestError

    db = connect(plain, reference_client, name=f"vector_plain_{id(object())}")
    db.create_table()
    try:
        db.create(Thing(thing_id="t", embedding=[1.0, 0.0, 0.0, 0.0]))
        with pytest.raises(RequestError) as caught:
            db.similar(Thing.near, [1.0, 0.0, 0.0, 0.0])
        assert caught.value.code == "UnknownOperationException"
    finally:
        db.delete_table()
