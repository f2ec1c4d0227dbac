"""``singletable demo hustlehub`` prints the same on the embedded engine and on DynamoDB Local.

One number is normalised, explicitly: the sample data is written with TransactWriteItems (guard items for
emails and slugs), and DynamoDB Local bills transactional writes by its own ad-hoc rule
(docs/compatibility.md, "TransactWriteItems capacity"), so the load line's capacity total differs.
Every step's output is compared as printed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import boto3
import pytest
from demo_support import cli_stops_unless_reset, demo_lines

from singletable.examples import DemoError

LOAD_LINE = re.compile(r"^(table \S+: \d+ requests loaded the sample data) \([\d.]+ capacity units\)$")


def run(target: str, *, reset: bool = False) -> list[str]:
    return demo_lines("hustlehub", target, reset=reset)


def without_transaction_capacity(lines: list[str]) -> list[str]:
    return [LOAD_LINE.sub(r"\1 (transactional capacity differs on DynamoDB Local)", line) for line in lines]


@pytest.fixture
def demo_table(monkeypatch: pytest.MonkeyPatch, table_name: str) -> str:
    monkeypatch.setenv("TABLE_NAME", f"{table_name}_hustlehub")
    for name, value in (("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "demo"),
                        ("AWS_SECRET_ACCESS_KEY", "demo")):  # fmt: skip
        monkeypatch.setenv(name, value)
    return os.environ["TABLE_NAME"]


def test_demo_prints_the_same_on_the_engine_and_dynamodb_local(reference_server, demo_table: str) -> None:
    engine = run(":memory:")
    local = run(reference_server.endpoint)
    try:
        assert without_transaction_capacity(local) == without_transaction_capacity(engine)
        assert LOAD_LINE.match(engine[1]) and LOAD_LINE.match(local[1])
        text = "\n".join(engine)
        for expected in (
            "request: Query  index=GSI1-UserEmailIndex",
            'request: Query  index=GSI2-ListingsByDateIndex  key: GSI2PK = "LISTINGS"',
            "request: Query  index=GSI3-AdminManagementIndex",
            "request: Query  index=GSI4-SlugLookupIndex",
            "-> ValidationException: Invalid operator used in KeyConditionExpression: IN",
            "error DeclarationError: an INCLUDE projection holds at most 20 attributes",
            'key: GSI2PK = "LISTINGS#3"',
        ):
            assert expected in text

        with pytest.raises(DemoError, match=r"already exists.*--reset"):
            run(reference_server.endpoint)
        assert run(reference_server.endpoint, reset=True) == local
    finally:
        # The demo's client uses the environment's credentials, and DynamoDB Local keeps tables per key.
        boto3.client("dynamodb", endpoint_url=reference_server.endpoint).delete_table(TableName=demo_table)


def test_demo_cli_on_a_database_file_stops_unless_reset(tmp_path: Path, demo_table: str) -> None:
    cli_stops_unless_reset("hustlehub", str(tmp_path / "hub.sqlite3"), demo_table)
