"""``singletable demo docsearch``: documents with embeddings in a multi-tenant table, searched by meaning.

The demo runs on the embedded engine and, the same, through boto3 on ``singletable serve``. DynamoDB Local
has no vector indexes, so there the demo stops at CreateTable with a one-line error naming the refusal
(no traceback); the test says so.
"""

from __future__ import annotations

import math
import re

import pytest
from click.testing import CliRunner

from singletable._cli import main
from singletable.examples.docsearch.embedding import DIMENSIONS, embed, words


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["demo", "docsearch", *args])
    return result.exit_code, result.output


def _step(output: str, name: str) -> str:
    """The printed block of one step (from its ``== name`` line to the next blank line)."""
    start = output.index(f"== {name}\n")
    end = output.find("\n\n", start)
    return output[start : end if end != -1 else None]


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "demo")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "demo")


def test_the_embedding_is_deterministic_unit_length_and_shares_direction_with_shared_words() -> None:
    vector = embed("Refunds for annual plans")
    assert len(vector) == DIMENSIONS and math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)
    assert vector == embed("refund ANNUAL plan")  # folded: case, plural, common words
    assert words("How do I get my Refunds") == ["get", "refund"]
    unrelated = embed("resetting the router")
    assert abs(math.fsum(a * b for a, b in zip(vector, unrelated, strict=True))) < 0.5
    assert embed("") == [1.0] + [0.0] * (DIMENSIONS - 1)


def test_demo_searches_by_meaning_within_one_tenant_on_the_engine() -> None:
    code, out = _run()
    assert code == 0, out
    assert "table docsearch: 11 requests loaded the sample data" in out

    nearest = _step(out, "acme: 'how do I get my money back for a yearly plan refund'")
    assert "request: SearchVectors  index=DocsByMeaning  where: " in nearest
    assert 'tenantId = "acme"' in nearest and 'entityType = "DOC"' in nearest and "top_k=3" in nearest
    results = re.findall(r"^   (\d\.\d{4})  Document (\{.*\})$", nearest, re.M)
    assert len(results) == 3
    scores = [float(score) for score, _ in results]
    assert scores == sorted(scores)  # COSINE: the smallest distance first
    assert '"doc_id": "a1"' in results[0][1]  # the refunds article is the nearest
    assert all('"tenant_id": "acme"' in entity for _, entity in results)
    assert "embedding" not in nearest  # results leave the vector out

    other = _step(out, "globex: the same words")
    assert '"doc_id": "g1"' in other and '"tenant_id": "acme"' not in other

    german = _step(out, "acme, in German: 'rückerstattung jahresplan'")
    assert 'lang = "de"' in german
    assert german.count("  Document ") == 2 and '"lang": "en"' not in german

    like = _step(out, "like acme's a3 (PDF export)")
    assert "request: GetItem" in like and '"doc_id": "a3"' not in like.split("request: SearchVectors")[1]

    edited = _step(out, "acme: 'refund annual plan' again")
    first_two = re.findall(r'"doc_id": "(a\d)"', edited)[:2]
    assert set(first_two) == {"a1", "a2"}  # the edited article moved up beside the refunds one

    refused = _step(out, "a search without a tenant")
    assert "   request:" not in refused
    assert "error RequestRefused: Document.by_meaning: DocsByMeaning is partitioned by tenant_id" in refused
    wrong = _step(out, "a vector of the wrong size")
    assert "   request:" not in wrong
    assert (
        "error FieldValueError: DOC.embedding = [0.5, 0.5] is refused: it holds 2 numbers; this field's "
        "vectors have 64 dimensions"
    ) in wrong
    assert "Scan" not in out
    assert _run()[1] == out  # deterministic


def test_demo_prints_the_same_through_singletable_serve(http_server, aws_env, monkeypatch) -> None:
    monkeypatch.setenv("DOCSEARCH_TABLE", f"docsearch_demo_{id(monkeypatch)}")
    engine_code, engine_out = _run()
    assert engine_code == 0, engine_out
    code, out = _run("--endpoint", http_server.endpoint)
    assert code == 0, out
    assert out == engine_out


def test_demo_on_dynamodb_local_stops_at_create_table_with_one_line(reference_server, aws_env, monkeypatch):
    """DynamoDB Local has no vector indexes (docs/compatibility.md): the demo cannot run there."""
    monkeypatch.setenv("DOCSEARCH_TABLE", f"docsearch_demo_{id(monkeypatch)}")
    code, out = _run("--endpoint", reference_server.endpoint)
    assert code != 0
    assert out.startswith("Error: the endpoint refused to create table docsearch_demo_")
    assert "Traceback" not in out and out.count("\n") == 1
