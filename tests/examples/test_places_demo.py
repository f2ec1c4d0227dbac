"""``singletable demo places`` prints the same on the embedded engine and on DynamoDB Local."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from singletable._cli import main


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["demo", "places", *args])
    return result.exit_code, result.output


def normalise_transaction_capacity(output: str) -> str:
    """DynamoDB Local bills TransactWriteItems ad hoc (docs/compatibility.md: replacing or creating an item
    counts 4 units; the engine follows AWS, 2 per write unit per table and index). Only those numbers are
    blanked: the load line (the sample is loaded with transactions) and steps that send a transaction."""
    blocks = output.split("\n\n")
    out = []
    for block in blocks:
        if block.startswith("# "):
            block = re.sub(r"\(\d+(\.\d+)? capacity units\)", "(N capacity units)", block)
        elif "request: TransactWriteItems" in block:
            block = re.sub(r"capacity: \d+(\.\d+)?$", "capacity: N", block)
        out.append(block)
    return "\n\n".join(out)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "demo")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "demo")


def test_demo_runs_every_access_pattern_on_the_engine() -> None:
    code, out = _run()
    assert code == 0, out
    for name in (
        "categories by name",
        "collections by name",
        "categories of collection 1013",
        "collections in category 1002",
        "search places 'llan'",
        "place word 'newport'",
        "all posts",
        "posts in collection 1011",
        "records of post 1051",
        "households of post 1051",
        "settings by name",
        "user by issuer and subject",
        "allocate three IDs",
    ):
        assert f"== {name}\n" in out
    assert 'request: Query  index=GSI  key: SK = "place#ll" AND begins_with(GSISK, "llan")' in out
    assert "error SearchTooShort" in out
    assert "Scan" not in out
    assert _run()[1] == out  # deterministic


def test_demo_prints_the_same_on_dynamodb_local(reference_server, aws_env, monkeypatch) -> None:
    monkeypatch.setenv("PLACES_TABLE", f"places_demo_{id(monkeypatch)}")
    engine_code, engine_out = _run()
    assert engine_code == 0, engine_out
    code, out = _run("--endpoint", reference_server.endpoint)
    assert code == 0, out
    assert normalise_transaction_capacity(out) == normalise_transaction_capacity(engine_out)
    assert out.count("capacity: ") == engine_out.count("capacity: ")

    code, again = _run("--endpoint", reference_server.endpoint)
    assert code != 0
    assert "already exists" in again and "--reset" in again

    code, reset = _run("--endpoint", reference_server.endpoint, "--reset")
    assert code == 0, reset
    assert normalise_transaction_capacity(reset) == normalise_transaction_capacity(engine_out)
