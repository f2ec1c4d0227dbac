"""``singletable demo fus-main``: the same output on the embedded engine and on DynamoDB Local, and the
table-exists guard that ``--reset`` lifts.

One kind of number is normalised, explicitly and only there: the consumed capacity of a step that sent a
TransactWriteItems (and the load line's total, as the sample is written with transactions). DynamoDB Local
bills transactions by its own ad-hoc rule (docs/compatibility.md, "TransactWriteItems capacity": a Put as
4 on the table and each index) where the engine follows AWS's (2 x the table's write units, each index as
outside a transaction, a ConditionCheck as 2 x the write units of the item it read). Every other line,
capacity included, is compared as printed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from demo_support import cli_stops_unless_reset, demo_lines

from singletable.examples import DemoError
from singletable.examples.fus_main.walkthrough import steps

ACCESS_PATTERNS = [
    "get a site",
    "list all sites, oldest first (page 1)",
    "sites by tag: javascript",
    "my rating for a site (bob, mdn)",
    "my ratings (bob)",
    "all 5-star ratings",
    "bob's comments on MDN",
    "comments for a site (MDN)",
    "list all groups (admin)",
    "get a group (admin)",
    "admin ada creates a group granting groups:manage",
    "admin ada adds cyd to group-admins",
    "cyd removes bob from editors",
    "dee's groups (her own)",
    "members of editors (cyd, now a group admin)",
]


def normalise_transaction_capacity(text: str) -> str:
    out: list[str] = []
    transactional = False
    for line in text.split("\n"):
        if line.startswith("table fus-main: "):
            line = re.sub(r"\(\S+ capacity units\)", "(<transactional> capacity units)", line)
        elif line.startswith("== "):
            transactional = False
        elif line == "   request: TransactWriteItems":
            transactional = True
        elif transactional and line.startswith("   capacity: "):
            line = "   capacity: <transactional>"
        out.append(line)
    return "\n".join(out)


def run(target: Any, *, reset: bool = False) -> str:
    return "\n".join(demo_lines("fus-main", target, reset=reset))


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "demo")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "demo")
    monkeypatch.delenv("DYNAMO_TABLE_NAME", raising=False)


def test_demo_prints_every_access_pattern(tmp_path: Path) -> None:
    text = run(str(tmp_path / "demo.db"))
    for name in ACCESS_PATTERNS:
        assert f"== {name}" in text
    assert text.count("== ") == len(list(steps(None)))  # type: ignore[arg-type]
    for expected in (
        'request: Query  index=byEntity  key: entityType = "SITE" AND begins_with(entitySk, "SITE#")',
        'request: Query  index=byTag  key: tag = "javascript"',
        "request: Query  index=byStars  key: starRating = 5",
        'request: Query  index=bySite  key: siteId = "SITE#mdn"',
        'request: Query  index=byGroup  key: groupName = "editors"',
        'request: Query  key: PK = "USER#dee" AND begins_with(SK, "MEMBERSHIP#")',
        'request:     Delete  key(PK="SITE#mdn", SK="TAG#docs")',
        "error NotAuthorized: user cyd may not sites:update",
        "error NotSignedIn: sign in to sites:create",
        "error InvalidInput: stars must be a whole number from 1 to 5, not 6",
        "capacity: ",
    ):
        assert expected in text
    assert "error RequestError" not in text and "Traceback" not in text


def test_demo_is_deterministic_and_guards_an_existing_table(tmp_path: Path) -> None:
    path = str(tmp_path / "demo.db")
    first = run(path)
    message = r"table fus-main already exists at this endpoint; run again with --reset"
    with pytest.raises(DemoError, match=message):
        run(path)
    assert run(path, reset=True) == first
    assert run(str(tmp_path / "other.db")) == first


def test_demo_on_dynamodb_local_prints_exactly_the_same(
    tmp_path: Path, reference_server: Any, aws_env: None
) -> None:
    local = run(str(tmp_path / "demo.db"))
    try:
        remote = run(reference_server.endpoint)
        assert normalise_transaction_capacity(remote) == normalise_transaction_capacity(local)
        assert remote.count("capacity: ") == local.count("capacity: ")
        with pytest.raises(DemoError, match=r"already exists at this endpoint; run again with --reset"):
            run(reference_server.endpoint)
        assert run(reference_server.endpoint, reset=True) == remote
    finally:
        from singletable.examples.fus_main.design import fus
        from singletable.model import connect

        connect(fus, reference_server.endpoint).delete_table()


def test_demo_command_line(tmp_path: Path) -> None:
    output = cli_stops_unless_reset("fus-main", str(tmp_path / "cli.db"), "fus-main")
    assert output.startswith("# fus-main:")
