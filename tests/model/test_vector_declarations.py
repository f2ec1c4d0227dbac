"""Vector fields, vector indexes and similarity searches, as declared: what is refused when the table or
the entity is declared, what is refused before any request, and the requests a design sends.

Nothing here needs a target: every refusal happens before a request (a DB on an engine records none), and
the CreateTable and SearchVectors requests are checked as the model builds them. The searches themselves run
on every target in ``test_vector_search.py``.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.model import (
    GSI,
    DeclarationError,
    Entity,
    FieldTypeError,
    FieldValueError,
    Keys,
    RequestRefused,
    Similar,
    Table,
    Vector,
    VectorIndex,
    connect,
)
from singletable.model._search import search_params


def _docs(**index: object) -> Table:
    spec = {"vector": "embedding", "dimensions": 4, "partition": "tenant", "filters": ["lang"], **index}
    return Table(name="vec_docs", vector_indexes=[VectorIndex("DocsByMeaning", **spec)])  # type: ignore[arg-type]


docs = _docs(filters=["lang", "entityType"])


class Doc(Entity, table=docs, type="DOC"):
    tenant: str
    doc_id: str
    title: str
    lang: str = "en"
    embedding: list[float] = Vector(4)

    keys = Keys(PK="TENANT#{tenant}", SK="DOC#{doc_id}")
    by_meaning = Similar("DocsByMeaning")


# -- the table ----------------------------------------------------------------------------------------------


def test_create_table_declares_the_vector_index_and_its_search_schema_attributes() -> None:
    params = docs.create_table_params()
    assert params["VectorIndexes"] == [
        {
            "IndexName": "DocsByMeaning",
            "VectorAttribute": {"AttributeName": "embedding"},
            "Dimensions": 4,
            "DistanceFunction": "COSINE",
            "Projection": {"ProjectionType": "ALL"},
            "SearchSchema": [
                {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                {"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"},
                {"AttributeName": "entityType", "SearchSchemaElementType": "INLINE_FILTER"},
            ],
        }
    ]
    assert {d["AttributeName"]: d["AttributeType"] for d in params["AttributeDefinitions"]} == {
        "PK": "S",
        "SK": "S",
        "tenant": "S",
        "lang": "S",
        "entityType": "S",
    }


def test_a_numeric_filter_an_include_projection_and_no_search_schema() -> None:
    table = Table(
        name="vec_plain",
        vector_indexes=[
            VectorIndex("Plain", vector="v", dimensions=8, distance="DOT_PRODUCT"),
            VectorIndex("ByYear", vector="v", dimensions=8, filters=[("year", "N")], projection=["title"]),
        ],
    )
    plain, by_year = table.create_table_params()["VectorIndexes"]
    assert "SearchSchema" not in plain and plain["DistanceFunction"] == "DOT_PRODUCT"
    assert by_year["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}
    assert {"AttributeName": "year", "AttributeType": "N"} in table.create_table_params()[
        "AttributeDefinitions"
    ]
    described = table.describe()["vector_indexes"]
    assert [d["name"] for d in described] == ["Plain", "ByYear"]
    assert described[1]["filters"] == [{"attribute": "year", "type": "N"}]
    assert described[1]["source"]["line"] > 0


@pytest.mark.parametrize(
    ("index", "message"),
    [
        ({"dimensions": 0}, "dimensions is 0; DynamoDB's vector indexes have 1 to 4096 dimensions"),
        ({"dimensions": 4097}, "dimensions is 4097; DynamoDB's vector indexes have 1 to 4096 dimensions"),
        ({"dimensions": True}, "dimensions must be an int, not True"),
        ({"dimensions": "768"}, "dimensions must be an int, not '768'"),
        (
            {"distance": "MANHATTAN"},
            "distance must be one of COSINE, EUCLIDEAN, DOT_PRODUCT, not 'MANHATTAN'",
        ),
        ({"partition": ("tenant", "BOOL")}, "attribute tenant must be of type S, N or B, not 'BOOL'"),
        ({"filters": "lang"}, "filters= takes a list of attributes, not the string 'lang'"),
        ({"filters": ["tenant"]}, "the search schema names an attribute twice: ['tenant', 'tenant']"),
        ({"filters": ["embedding"]}, "the vector attribute embedding cannot be in the search schema"),
        ({"projection": "SOME"}, "projection must be ALL, KEYS_ONLY or a list of attributes, not 'SOME'"),
    ],
)
def test_a_vector_index_dynamodb_would_refuse_is_refused_when_declared(index: dict, message: str) -> None:
    with pytest.raises(DeclarationError) as caught:
        _docs(**index)
    assert str(caught.value) == f"VectorIndex 'DocsByMeaning': {message}"


def test_the_table_level_rules_of_vector_indexes() -> None:
    def vi(name: str, dimensions: int = 4, vector: str = "v") -> VectorIndex:
        return VectorIndex(name, vector=vector, dimensions=dimensions)

    with pytest.raises(DeclarationError, match="an index name is 3 to 255 characters"):
        vi("ab")
    with pytest.raises(DeclarationError) as caught:
        Table(name="t1", billing="PROVISIONED", vector_indexes=[vi("One")])
    assert "vector indexes need an on-demand table (billing='PAY_PER_REQUEST')" in str(caught.value)
    with pytest.raises(DeclarationError) as caught:
        Table(name="t1", vector_indexes=[vi(f"Index{n}", vector=f"v{n}") for n in range(6)])
    assert str(caught.value) == (
        "a table has at most 5 vector indexes (DynamoDB's limit); this one declares 6"
    )
    with pytest.raises(DeclarationError) as caught:
        Table(name="t1", vector_indexes=[vi("One"), vi("Two", dimensions=8)])
    assert str(caught.value).startswith("vector indexes One and Two both index v with different dimensions")
    with pytest.raises(DeclarationError, match="duplicate index names"):
        Table(name="t1", indexes=[GSI("One", pk="GSI1PK")], vector_indexes=[vi("One")])
    with pytest.raises(DeclarationError, match="attribute GSI1PK is declared both S and N"):
        Table(
            name="t1",
            indexes=[GSI("G1", pk="GSI1PK")],
            vector_indexes=[VectorIndex("Vec", vector="v", dimensions=2, filters=[("GSI1PK", "N")])],
        )
    with pytest.raises(DeclarationError, match="PK is a key attribute, which holds no list"):
        Table(name="t1", vector_indexes=[vi("One", vector="PK")])
    with pytest.raises(DeclarationError, match="vector_indexes takes VectorIndex"):
        Table(name="t1", vector_indexes=[GSI("G1", pk="x")])  # type: ignore[list-item]


# -- the entity ---------------------------------------------------------------------------------------------


def test_a_field_stored_as_the_vector_attribute_must_be_a_vector_of_the_index_size() -> None:
    with pytest.raises(DeclarationError) as caught:

        class Wrong(Entity, table=_docs(), type="WRONG"):
            tenant: str
            embedding: list[float] = Vector(8)
            keys = Keys(PK="{tenant}", SK="X")

    assert str(caught.value) == (
        "Wrong.embedding is Vector(8), but DocsByMeaning indexes embedding with 4 dimensions; DynamoDB would "
        "refuse every write"
    )
    with pytest.raises(DeclarationError) as caught:

        class Plain(Entity, table=_docs(), type="PLAIN"):
            tenant: str
            embedding: list[float]
            keys = Keys(PK="{tenant}", SK="X")

    assert (
        "Plain.embedding is stored as embedding, the vector attribute of DocsByMeaning, so it must be a"
        in (str(caught.value))
    )
    with pytest.raises(DeclarationError, match=r"must be declared list\[float\]"):

        class Texts(Entity, table=Table(name="t2"), type="TEXTS"):
            id: str
            embedding: list[str] = Vector(4)
            keys = Keys(PK="{id}", SK="X")

    with pytest.raises(DeclarationError, match="Vector\\(dimensions\\) is 0"):
        Vector(0)


def test_a_search_schema_field_must_be_stored_as_the_type_the_index_declares() -> None:
    with pytest.raises(DeclarationError) as caught:

        class Counted(Entity, table=_docs(filters=["year"]), type="COUNTED"):
            tenant: str
            year: int
            embedding: list[float] = Vector(4)
            keys = Keys(PK="{tenant}", SK="X")

    assert str(caught.value).startswith(
        "Counted.year (int) is stored as year, a S attribute of DocsByMeaning's search schema (INLINE_FILTER)"
    )


def test_a_search_must_name_a_vector_index_whose_vector_and_partition_the_entity_stores() -> None:
    with pytest.raises(DeclarationError, match="table has no vector index 'Nope'"):

        class A(Entity, table=_docs(), type="A"):
            tenant: str
            embedding: list[float] = Vector(4)
            keys = Keys(PK="{tenant}", SK="X")
            near = Similar("Nope")

    with pytest.raises(DeclarationError) as caught:

        class B(Entity, table=_docs(), type="B"):
            tenant: str
            keys = Keys(PK="{tenant}", SK="X")
            near = Similar("DocsByMeaning")

    assert str(caught.value).startswith("B.near: B has no field stored as embedding, the vector attribute")
    with pytest.raises(DeclarationError) as caught:

        class C(Entity, table=_docs(), type="C"):
            org: str
            embedding: list[float] = Vector(4)
            keys = Keys(PK="{org}", SK="X")
            near = Similar("DocsByMeaning")

    assert "C.near: DocsByMeaning is partitioned by tenant, which no field of C is stored as" in str(
        caught.value
    )


def test_the_design_describes_its_searches() -> None:
    (search,) = Doc.model_entity().describe()["searches"]
    assert search | {"source": None} == {
        "name": "by_meaning",
        "operation": "SearchVectors",
        "index": "DocsByMeaning",
        "vector_field": "embedding",
        "partition_field": "tenant",
        "filter_fields": ["lang"],
        "hydrate": False,
        "doc": "",
        "source": None,
    }


# -- values -------------------------------------------------------------------------------------------------


def _no_requests() -> object:
    """A DB on an engine with no table: every refusal here happens before a request could reach it."""
    return connect(docs)


@pytest.mark.parametrize(
    ("vector", "reason"),
    [
        ([1.0, 0.0, 0.0], "it holds 3 numbers; this field's vectors have 4 dimensions"),
        ([1.0, math.nan, 0.0, 0.0], "element 1 is nan; a vector holds finite numbers only"),
        ([1.0, 0.0, math.inf, 0.0], "element 2 is inf; a vector holds finite numbers only"),
        ([1.0, 0.0, 0.0, -1e39], "element 3 is -1e+39, beyond the 32-bit floats a vector index holds"),
        ([1.0, 0.0, 0.0, "x"], "element 3 is 'x' (str), not a number"),
        ([1.0, True, 0.0, 0.0], "element 1 is True (bool), not a number"),
        ("abcd", "a vector is a list of 4 numbers, not str"),
    ],
)
def test_a_vector_that_does_not_fit_is_refused_before_any_write(vector: object, reason: str) -> None:
    db = _no_requests()
    bad = Doc.model_construct(tenant="t", doc_id="1", title="x", lang="en", embedding=vector)
    writes = [
        lambda: db.create(bad),
        lambda: db.put(bad),
        lambda: db.batch_write(put=[bad]),
    ]
    for write in writes:
        with db.trace() as trace, pytest.raises(FieldValueError) as caught:
            write()
        assert trace.operations == []
        assert (caught.value.entity, caught.value.field) == ("DOC", "embedding")
        assert f"is refused: {reason}" in str(caught.value)
    with db.trace() as trace, pytest.raises(FieldValueError) as caught:
        db.update(Doc.key(tenant="t", doc_id="1"), embedding=vector)
    assert trace.operations == [] and caught.value.field == "embedding"
    assert reason in str(caught.value) or isinstance(vector, str)


def test_a_long_vector_is_shown_shortened_in_the_message() -> None:
    db = _no_requests()
    long = [0.5] * 767 + [math.nan]
    with pytest.raises(FieldValueError) as caught:
        db.create(Doc.model_construct(tenant="t", doc_id="1", title="x", lang="en", embedding=long))
    assert str(caught.value) == (
        "DOC.embedding = [0.5, 0.5, 0.5, ..., nan] (768 items) is refused: it holds 768 numbers; this "
        "field's vectors have 4 dimensions"
    )


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0, max_size=6))
def test_hypothesis_a_vector_is_written_if_and_only_if_it_has_four_finite_numbers(
    values: list[float],
) -> None:
    fits = len(values) == 4 and all(math.isfinite(v) for v in values)
    entity = Doc.model_construct(tenant="t", doc_id="1", title="x", lang="en", embedding=values)
    meta = Doc.model_entity()
    if fits:
        item = meta.to_item(meta.values(entity))
        assert [float(x["N"]) for x in item["embedding"]["L"]] == values
        assert meta.from_item(item).embedding == values
    else:
        with pytest.raises(FieldValueError):
            meta.to_item(meta.values(entity))


# -- searches -----------------------------------------------------------------------------------------------


def test_a_search_is_built_from_typed_arguments_only() -> None:
    params = search_params(
        "t", Doc.by_meaning, [1, 0, 0.5, 0], 3, (Doc.f.tenant == "a") & (Doc.f.lang == "de"), False
    )
    assert params == {
        "TableName": "t",
        "IndexName": "DocsByMeaning",
        "SearchVector": [{"N": "1.0"}, {"N": "0.0"}, {"N": "0.5"}, {"N": "0.0"}],
        "TopK": 3,
        "SearchConditionExpression": "((tenant = :v0) AND (lang = :v1)) AND (entityType = :v2)",
        "ExpressionAttributeValues": {":v0": {"S": "a"}, ":v1": {"S": "de"}, ":v2": {"S": "DOC"}},
    }
    with_vector = search_params("t", Doc.by_meaning, [1, 0, 0, 0], 3, Doc.f.tenant == "a", True)
    assert with_vector["ProjectionExpression"] == "PK, SK, entityType, tenant, docId, title, lang, embedding"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"where": Doc.f.lang == "en"},
            RequestRefused,
            "Doc.by_meaning: DocsByMeaning is partitioned by tenant (tenant); every search gives it by "
            "equality, where=Doc.f.tenant == ... (alone or joined to other conditions with &)",
        ),
        (
            {"where": (Doc.f.tenant == "a") | (Doc.f.lang == "en")},
            RequestRefused,
            "Doc.by_meaning: DocsByMeaning is partitioned by tenant (tenant); every search gives it",
        ),
        (
            {"where": (Doc.f.tenant == "a") & (Doc.f.title == "x")},
            RequestRefused,
            "Doc.by_meaning: DocsByMeaning can filter only on its search schema's attributes -- tenant "
            "(tenant), lang (lang); title (title) is not one of them (declare it in "
            "VectorIndex(filters=[...]))",
        ),
        ({"where": "tenant = :t"}, TypeError, "Doc.by_meaning: where= takes a condition on DOC's fields"),
        (
            {"top_k": 0},
            RequestRefused,
            "Doc.by_meaning: top_k must be an int from 1 to 100 (DynamoDB's TopK), not 0",
        ),
        ({"top_k": 101}, RequestRefused, "Doc.by_meaning: top_k must be an int from 1 to 100"),
        ({"vector": [1, 2, 3]}, FieldValueError, "DOC.embedding = [1, 2, 3] is refused: it holds 3 numbers"),
        (
            {"vector": [1, 2, 3, math.nan]},
            FieldValueError,
            "element 3 is nan; a vector holds finite numbers only",
        ),
        ({"where": Doc.f.tenant == 5}, FieldTypeError, "DOC.tenant is str; 5 (int) does not fit"),
    ],
)
def test_a_search_that_could_not_work_is_refused_before_any_request(
    kwargs: dict, error: type, message: str
) -> None:
    db = _no_requests()
    arguments = {"vector": [1.0, 0.0, 0.0, 0.0], "where": Doc.f.tenant == "a", **kwargs}
    vector = arguments.pop("vector")
    with db.trace() as trace, pytest.raises(error) as caught:
        db.similar(Doc.by_meaning, vector, **arguments)
    assert trace.operations == []
    assert message in str(caught.value)


def test_similar_takes_a_declared_search() -> None:
    db = _no_requests()
    with pytest.raises(TypeError, match=r"db.similar\(\) takes a search declared in an entity"):
        db.similar(Similar("DocsByMeaning"), [1, 0, 0, 0])
