"""migrate rehearse: the migrations run on a new copy of a database file, an endpoint (``serve``, DynamoDB
Local) or an S3 export, the result verified item by item; the source is only read (its bytes and mtime
stay; ``serve --record`` shows reads only)."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import pytest
from test_migrate import migration_file, old_table, old_user, run_cli, run_process, seed, shop_file
from test_split_merge import SPLIT, before, contact
from test_split_merge import seed as seed_contacts

from serving import ServerProcess
from singletable.data import export_table
from singletable.migrate import MigrationError, load_migrations, rehearse
from singletable.model import connect

HERE = Path(__file__).parent

SPLIT_MODULE = """
from test_split_merge import SPLIT as migration
"""


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def shop_source(directory: Path, count: int = 6) -> tuple[Path, Path]:
    """A database file of old-shape users (every other one with an email), and the shop migration."""
    return shop_file(directory, [old_user(i, f"U{i}@Example.com" if i % 2 else None) for i in range(count)])


def test_a_file_is_rehearsed_and_left_as_it_was(tmp_path: Path) -> None:
    file, module = shop_source(tmp_path)
    was = fingerprint(file)
    copy = tmp_path / "copy.db"
    done = run_cli("migrate", "rehearse", str(module), str(file), "--copy-to", str(copy))
    assert done.returncode == 0, done.stderr
    assert fingerprint(file) == was
    assert not (tmp_path / "live.db-wal").exists() or (tmp_path / "live.db-wal").stat().st_size == 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0001-users-by-email: applied to the copy: ")
    assert lines[1] == f"copy of {file} (6 items): kept in {copy}"
    assert lines[2:4] == ["entity  before  after", "user         6      6"]
    assert lines[-1] == "verified: 6 items as declared, no problems"
    migrated = connect(load_migrations(str(module))[0].table, str(copy))  # type: ignore[arg-type]
    keys = sorted(
        i["PK"]["S"] for i in migrated.call("Scan", {"TableName": "shop"})["Items"] if "entityType" in i
    )
    assert keys == [f"USER#{i}" for i in range(6)]
    again = run_cli("migrate", "rehearse", str(module), str(file), "--copy-to", str(copy))
    assert again.returncode == 1
    assert (
        again.stderr.strip()
        == f"Error: {copy} exists: a rehearsal makes a new copy; name a file that does not exist"
    )
    into_source = run_cli("migrate", "rehearse", str(module), str(file), "--copy-to", str(file))
    assert into_source.returncode == 1 and "exists" in into_source.stderr
    assert fingerprint(file) == was


def test_problems_are_named_and_fail_the_rehearsal(tmp_path: Path) -> None:
    """A backfill that skips a user leaves it without the index key its stored field now computes, an
    untouched item keeps an index key of a type DynamoDB would leave out of the index, and a guard names a
    user that is not stored: each is listed by key, and the exit code is 1."""
    module = tmp_path / "partial.py"
    module.write_text(
        "from shop_migration import User\n"
        "from singletable.migrate import Migration, backfill\n"
        "migration = Migration('0002-some', 'some emails', [\n"
        "    backfill(User, set=lambda v: {'email_lower': v['email'].lower()},\n"
        "             where=lambda v: v.get('email', '').startswith('A'))])\n"
    )
    [migration] = load_migrations(str(module))
    assert migration.table is not None
    file = tmp_path / "live.db"
    db = connect(migration.table, str(file))
    old_table(db)
    users = [{**old_user(i, email), "PK": {"S": f"USER#{i}"}} for i, email in enumerate(["Ann@x", "Bob@x"])]
    users[1]["emailLower"] = {"S": "bob@x"}  # stored before the index existed: no GSI1PK yet
    stale = {**old_user(7), "PK": {"S": "USER#7"}, "GSI1PK": {"N": "7"}}
    ghost = {
        "PK": {"S": "EMAIL#ghost"},
        "SK": {"S": "EMAIL#ghost"},
        "owner": {"M": {"PK": {"S": "USER#99"}, "SK": {"S": "PROFILE"}}},
    }
    seed(db, [*users, stale, ghost])
    db.close()
    was = fingerprint(file)
    # a real process: the exit status a script sees when the verification fails
    done = run_process(
        "migrate", "rehearse", str(module), str(file), env={"PYTHONPATH": _path(HERE, HERE.parent)}
    )
    assert done.returncode == 1, done.stderr
    assert fingerprint(file) == was
    assert "verification failed: 4 problems" in done.stderr
    shown = done.stderr
    assert "PK=USER#1, SK=PROFILE: keys: GSI1PK is absent, the user templates give 'bob@x' (S)" in shown
    assert "PK=USER#7, SK=PROFILE: index key: GSI1PK for index byEmail is N, the index key is S" in shown
    assert "PK=USER#7, SK=PROFILE: keys: GSI1PK is '7' (N), the user templates give '7' (S)" in shown
    assert "PK=EMAIL#ghost, SK=EMAIL#ghost: guard: its owner PK=USER#99, SK=PROFILE is not stored" in shown
    assert "entity   before  after\n(guard)       1      1\nuser          3      3\n" in done.stdout


def _path(*extra: Path) -> str:
    import os

    return os.pathsep.join([*(str(p) for p in extra), os.environ.get("PYTHONPATH", "")])


def test_the_library_returns_a_record(tmp_path: Path) -> None:
    file, module = shop_source(tmp_path, count=4)
    [migration] = load_migrations(str(module))
    found = rehearse(migration, str(file))
    assert found.ok and found.checked == 4 and not found.kept
    assert not Path(found.copy).exists()  # a temporary copy is removed
    assert [(c.type, c.before, c.after) for c in found.counts] == [("user", 4, 4)]
    assert found.results[0].state == "applied" and found.transfer.items == 4
    with pytest.raises(MigrationError, match="no such database file or export directory"):
        rehearse(migration, str(tmp_path / "missing.db"))


def test_a_split_changes_the_counts_per_entity(tmp_path: Path) -> None:
    file = tmp_path / "contacts.db"
    db = connect(before, str(file))
    db.create_table()
    seed_contacts(
        db, [contact(1, "person", "a@x.org"), contact(2, "company", "b@x.org"), contact(3, "person")]
    )
    db.close()
    found = rehearse(SPLIT, str(file))
    assert found.ok, found.problems
    counts = {c.type: (c.before, c.after) for c in found.counts}
    # the company's guard is released (Company declares none); the person's follows its owner
    assert counts == {"contact": (3, 0), "person": (0, 2), "company": (0, 1), "(guard)": (2, 1)}
    assert found.checked == 3


def test_an_export_directory_is_imported_then_rehearsed(tmp_path: Path) -> None:
    file, module = shop_source(tmp_path, count=5)
    export = tmp_path / "export"
    export_table(str(file), "shop", export, format="dynamodb")
    files = {p: fingerprint(p) for p in export.rglob("*") if p.is_file()}
    listing = sorted(p.name for p in tmp_path.iterdir())
    done = run_cli("migrate", "rehearse", str(module), str(export))
    assert done.returncode == 0, done.stderr
    assert "copy of" in done.stdout and "(5 items): removed" in done.stdout
    assert "user         5      5" in done.stdout
    assert {p: fingerprint(p) for p in export.rglob("*") if p.is_file()} == files
    assert sorted(p.name for p in tmp_path.iterdir()) == listing  # no checkpoint left beside the export


@pytest.mark.parametrize("server", ["http", "reference"])
def test_an_endpoint_is_copied_then_rehearsed(
    tmp_path: Path, request: pytest.FixtureRequest, server: str
) -> None:
    endpoint = request.getfixturevalue("http_server" if server == "http" else "reference_server").endpoint
    module = migration_file(tmp_path)
    [migration] = load_migrations(str(module))
    assert migration.table is not None
    name = f"shop_{uuid.uuid4().hex[:10]}"
    db = connect(migration.table, endpoint, name=name)
    old_table(db)
    seed(db, [old_user(i, f"E{i}@x.com") for i in range(5)])
    try:
        done = run_cli("migrate", "rehearse", str(module), endpoint, "--table", name)
        assert done.returncode == 0, done.stderr
        assert "user         5      5" in done.stdout
        left = db.call("Scan", {"TableName": name})["Items"]
        assert sorted(i["PK"]["S"] for i in left) == [f"U#{i}" for i in range(5)]  # the source is as it was
    finally:
        db.call("DeleteTable", {"TableName": name})


def test_serve_records_only_reads(tmp_path: Path) -> None:
    file, module = shop_source(tmp_path)
    record = tmp_path / "traffic.jsonl"
    server = ServerProcess(file, args=("--record", str(record)))
    try:
        done = run_cli("migrate", "rehearse", str(module), server.endpoint)
        assert done.returncode == 0, done.stderr
    finally:
        server.stop()
    operations = {json.loads(line)["operation"] for line in record.read_text().splitlines()}
    assert "Scan" in operations
    assert operations <= {
        "DescribeTable",
        "DescribeTimeToLive",
        "ListTagsOfResource",
        "Scan",
        "DescribeContinuousBackups",
    }


def test_the_migration_stopping_fails_the_rehearsal(tmp_path: Path) -> None:
    file = tmp_path / "contacts.db"
    db = connect(before, str(file))
    db.create_table()
    seed_contacts(db, [contact(1, "robot")])
    db.close()
    module = tmp_path / "split_module.py"
    module.write_text(SPLIT_MODULE)
    done = run_cli("migrate", "rehearse", str(module), str(file))
    assert done.returncode == 1
    assert "split contact PK=CONTACT#1, SK=CONTACT: kind is 'robot', which into does not name" in done.stderr


SITES = """
from singletable.migrate import Migration, backfill
from singletable.model import Derived, Entity, Keys, Table

sites = Table(name="sites")


class SiteTag(Entity, table=sites, type="sitetag", timestamps=False):
    site_id: str
    tag: str
    keys = Keys(PK="SITE#{site_id}", SK="TAG#{tag}")


class Site(Entity, table=sites, type="site", timestamps=False):
    site_id: str
    title: str
    tags: list[str] = []
    keys = Keys(PK="SITE#{site_id}", SK="SITE")
    tag_items = Derived(SiteTag, each="tags", as_="tag")


trim = backfill(Site, set={"title": lambda v: v["title"].strip()})
migration = Migration("0001-titles", "titles trimmed", [trim])
"""


def test_a_missing_derived_item_is_named(tmp_path: Path) -> None:
    module = tmp_path / "sites_migration.py"
    module.write_text(SITES)
    [migration] = load_migrations(str(module))
    assert migration.table is not None
    site = migration.table.entities["site"].cls
    file = tmp_path / "sites.db"
    db = connect(migration.table, str(file))
    db.create_table()
    db.create(site(site_id="1", title=" One ", tags=["a", "b"]))
    db.create(site(site_id="2", title="Two", tags=["c"]))
    stale = {"PK": {"S": "SITE#1"}, "SK": {"S": "TAG#b"}}
    db.call("DeleteItem", {"TableName": "sites", "Key": stale})  # written by hand, and lost
    db.close()
    found = rehearse(migration, str(file))
    assert [(p.key, p.check, p.detail) for p in found.problems] == [
        ("PK=SITE#1, SK=SITE", "derived", "its tag_items item PK=SITE#1, SK=TAG#b is missing")
    ]
    counts = {c.type: (c.before, c.after) for c in found.counts}
    assert counts == {"site": (2, 2), "sitetag": (2, 2)}
    assert found.checked == 4  # the sites and their tag items, each against its declaration


BRINGS_BACK = """
from test_split_merge import BY_KIND, Contact, Person
from singletable.migrate import Migration, each


def old_shape(item):
    return [Contact(id=item["id"]["S"], kind="person", name=item["name"]["S"])]


steps = [BY_KIND, each(old_shape, Person)]
migration = Migration("0001-split-and-undo", "a bug: each writes contacts back", steps)
"""


def test_an_item_left_of_a_retired_type_is_named(tmp_path: Path) -> None:
    file = tmp_path / "contacts.db"
    db = connect(before, str(file))
    db.create_table()
    seed_contacts(db, [contact(5, "person"), contact(6, "company")])
    db.close()
    module = tmp_path / "brings_back.py"
    module.write_text(BRINGS_BACK)
    done = run_cli("migrate", "rehearse", str(module), str(file))
    assert done.returncode == 1
    assert (
        "  PK=CONTACT#5, SK=CONTACT: retired type: still a contact, which split contact into person, company "
        "converts" in done.stderr
    )
    assert "verification failed: 1 problem\n" in done.stderr


def test_what_cannot_be_rehearsed_is_one_line(tmp_path: Path) -> None:
    file, module = shop_source(tmp_path, count=2)
    was = fingerprint(file)
    cases = [
        (["--table", "nope"], f"Error: table nope does not exist in {file}"),
        (
            ["--copy-to", str(tmp_path / "missing" / "copy.db")],
            f"Error: cannot open database {tmp_path}/missing",
        ),
    ]
    for extra, start in cases:
        done = run_cli("migrate", "rehearse", str(module), str(file), *extra)
        assert done.returncode == 1, done.stdout
        assert done.stderr.startswith(start) and len(done.stderr.splitlines()) == 1, done.stderr
    assert fingerprint(file) == was
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".db") == ["live.db"]


@pytest.mark.slow
def test_an_unreachable_source_is_one_line(tmp_path: Path) -> None:
    """Slow: botocore retries a refused connection with backoff (about 26 s) before the copy gives up."""
    _, module = shop_source(tmp_path, count=2)
    unreachable = run_cli("migrate", "rehearse", str(module), "http://127.0.0.1:9")
    assert unreachable.returncode == 1
    assert unreachable.stderr.startswith(
        "Error: EndpointConnectionError: Could not connect to the endpoint URL"
    )
    assert len(unreachable.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".db") == ["live.db"]
