"""The data tools carry vector search intact: ``export`` and ``import`` keep every vector digit for digit (a
vector is a list of numbers), ``copy`` and ``import --schema`` rebuild the table's vector indexes (their
search-schema attributes are in AttributeDefinitions, so a table without them could not even be created),
and a search on the copy answers what the same search on the original answers.

Targets: a database file and a real ``singletable serve``; DynamoDB Local has no vector indexes, so a copy
there is refused with its own words, which the test pins.
"""

from __future__ import annotations

import json
import uuid

import pytest

from singletable.data import TableSettings, TransferError, copy_table, export_table, import_table, open_target
from singletable.examples.docsearch.design import Document, help_centre
from singletable.examples.docsearch.embedding import embed
from singletable.examples.docsearch.sample import load, open_service
from singletable.model import connect


@pytest.fixture(params=["file", "http"])
def endpoint(request, tmp_path):
    if request.param == "file":
        return str(tmp_path / "target.db")
    return request.getfixturevalue("http_server").endpoint


def _source(path: str) -> str:
    name = f"docs-{uuid.uuid4().hex[:8]}"
    with connect(help_centre, path, name=name) as db:
        db.create_table()
        load(open_service(db))
    return name


def contents(target: str, name: str) -> dict[tuple[str, str], dict]:
    """Every item of the table by its key, as stored (numbers as their text: digit for digit)."""
    with open_target(target) as opened:
        items = opened.call("Scan", TableName=name)["Items"]
    return {(item["PK"]["S"], item["SK"]["S"]): item for item in items}


def _search(target: str, name: str) -> list[tuple[str, float]]:
    with connect(help_centre, target, name=name) as db:
        found = db.similar(
            Document.by_meaning, embed("refund annual plan"), where=Document.f.tenant_id == "acme"
        )
        return [(r.entity.doc_id, round(r.score, 5)) for r in found]


def test_copy_rebuilds_the_vector_index_and_searches_answer_the_same(endpoint, tmp_path):
    source = str(tmp_path / "source.db")
    name = _source(source)
    copied = copy_table(source, endpoint, name)
    assert copied.items == 11 and not copied.warnings
    with open_target(source) as original, open_target(endpoint) as destination:
        assert TableSettings.capture(destination, name, print) == TableSettings.capture(original, name, print)
        described = destination.call("DescribeTable", TableName=name)["Table"]
    (index,) = described["VectorIndexes"]
    assert (index["IndexName"], index["Dimensions"], index["DistanceFunction"]) == (
        "DocsByMeaning",
        64,
        "COSINE",
    )
    assert contents(endpoint, name) == contents(source, name)
    assert _search(endpoint, name) == _search(source, name) != []


@pytest.mark.parametrize("format_", ["dynamodb", "jsonl"])
def test_export_and_import_keep_every_vector_digit_for_digit(endpoint, tmp_path, format_):
    source = str(tmp_path / "source.db")
    name = _source(source)
    exported = export_table(source, name, tmp_path / "export", format=format_)
    assert exported.items == 11
    with open_target(source) as original:
        schema = TableSettings.capture(original, name, print).to_json(name)
    assert schema["Table"]["VectorIndexes"][0]["SearchSchema"][0] == {
        "AttributeName": "tenantId",
        "SearchSchemaElementType": "HASH",
    }
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    imported = import_table(endpoint, name, exported.destination, format=format_, schema=str(schema_file))
    assert imported.items == 11 and imported.rejected == 0
    assert contents(endpoint, name) == contents(source, name)
    with open_target(endpoint) as destination:
        stored = destination.call(
            "GetItem", TableName=name, Key={"PK": {"S": "TENANT#acme"}, "SK": {"S": "DOC#a1"}}
        )["Item"]
    text = "Annual plans can be refunded within 30 days of purchase. Refunds go back to the card that paid."
    assert [float(x["N"]) for x in stored["embedding"]["L"]] == embed(f"Refunds for annual plans\n{text}")
    assert _search(endpoint, name) == _search(source, name)


def test_copy_to_dynamodb_local_is_refused_in_its_words(reference_server, tmp_path):
    """DynamoDB Local has no vector indexes: the table cannot be created there, and nothing is copied."""
    source = str(tmp_path / "source.db")
    name = _source(source)
    with pytest.raises(TransferError) as caught:
        copy_table(source, reference_server.endpoint, name)
    assert "ValidationException" in str(caught.value)
