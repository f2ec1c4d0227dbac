"""``singletable demo wavyblog``: the same output on the embedded engine and on DynamoDB Local."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from demo_support import cli_stops_unless_reset, demo_lines

from singletable.examples import DemoError


def demo(target: str, *, reset: bool = False) -> str:
    return "\n".join(demo_lines("wavyblog", target, reset=reset))


def without_transaction_capacity(output: str) -> str:
    """The output with the capacity of TransactWriteItems steps (and of the loading, all transactions but
    three puts) blanked: the one documented departure (docs/compatibility.md, "TransactWriteItems
    capacity"). The engine follows AWS's rule (2 units per write unit on the table, each index as outside a
    transaction); DynamoDB Local bills ad hoc (created items 4 units on the table and each index)."""
    blocks = output.split("\n\n")
    blocks[0] = re.sub(r"\(\d+ capacity units\)", "(<transactions> capacity units)", blocks[0])
    for i, block in enumerate(blocks):
        if "request: TransactWriteItems" in block and "-> TransactionCanceledException" not in block:
            blocks[i] = re.sub(r"capacity: [\d.]+$", "capacity: <transaction>", block)
    return "\n\n".join(blocks)


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch, table_name: str) -> str:
    """A table name of its own (DYNAMODB_TABLE), as DynamoDB Local is shared by the whole session."""
    name = f"WavyBlog_{table_name}"
    monkeypatch.setenv("DYNAMODB_TABLE", name)
    return name


def test_demo_output_is_identical_on_the_engine_and_dynamodb_local(
    reference_server, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    on_engine = demo(":memory:")
    try:
        on_reference = demo(reference_server.endpoint)
        assert without_transaction_capacity(on_reference) == without_transaction_capacity(on_engine)
        with pytest.raises(
            DemoError, match=f"table {table} already exists at this endpoint; run again with --reset"
        ):
            demo(reference_server.endpoint)
        assert demo(reference_server.endpoint, reset=True) == on_reference
    finally:
        client = reference_server.client()
        if table in client.list_tables()["TableNames"]:
            client.delete_table(TableName=table)


def test_demo_covers_every_access_pattern_and_never_prints_a_hash(table: str) -> None:
    output = demo(":memory:")
    names = re.findall(r"^== (\d)\. ", output, re.MULTILINE)
    assert sorted(set(names)) == [str(n) for n in range(1, 10)]
    assert "$2b$" not in output and "$2a$" not in output
    assert '"password_hash": "<bcrypt>"' in output
    assert "Scan" not in output
    assert 'request: Query  index=GSI1  key: GSI1PK = "POSTS_BY_USER#john_doe"' in output
    assert 'index=GSI2  key: GSI2PK = "POSTS_BY_CAT#technology"' in output
    assert 'index=GSI3  key: EntityType = "CATEGORY"' in output
    assert "error EmailTaken: email 'john@example.com' belongs to another account" in output
    assert "error SlugTaken: slug 'my-first-post' is taken" in output
    assert re.search(r"^   capacity: [\d.]+$", output, re.MULTILINE)


def test_cli_stops_on_an_existing_table_unless_reset(tmp_path: Path, table: str) -> None:
    cli_stops_unless_reset("wavyblog", str(tmp_path / "demo.sqlite3"), table)
