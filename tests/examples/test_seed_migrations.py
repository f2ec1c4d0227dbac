"""Each seed design's migration (``examples/<seed>/migrations/``) on the engine, ``serve`` and DynamoDB Local:
run while the application writes, interrupted and resumed, ending in the state the new design describes
(``seed_migrations.verify``). The default suite interrupts each run once, in process; the slow tests run
``singletable migrate up`` as a subprocess and kill it with SIGKILL at random moments until it finishes."""

from __future__ import annotations

import importlib
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from seed_migrations import (
    EXAMPLES,
    Ack,
    Writers,
    age,
    counts,
    create_old_table,
    edit_field,
    migration_of,
    moves,
    scan,
    verify,
)

from model_targets import make_target
from singletable.migrate import Migration, Progress, status, up
from singletable.model import DB, Entity, NotFound, connect

SEEDS = ["fus_main", "blog_api", "hustlehub", "wavyblog"]
KILLS = 4  # SIGKILLs per run of a slow test
EXTRA = 12  # more items of the migrated entity than the sample holds, so a run has pages to interrupt
# ... and for a run killed at random moments: past the limiter's one-second burst (ten re-keys at
# --max-wcu 40), so the run still has seconds of work when the first kill comes
EXTRA_KILLED = 40


class Interrupted(Exception):
    pass


def interrupt_at(page: int) -> Callable[[Progress], None]:
    """An ``on_page`` that interrupts the run at its ``page``-th checkpoint."""
    pages = [0]

    def interrupt(progress: Progress) -> None:
        pages[0] += 1
        if pages[0] == page:
            raise Interrupted

    return interrupt


@dataclass
class Spec:
    """What the application does to one seed's migrated entity: ``old`` and ``new`` its shapes."""

    old: type[Entity]
    new: type[Entity]
    make: Callable[[int], Entity]
    edit: Callable[[DB, dict[str, Any], int], Ack | None]


def spec_of(seed: str, migration: Migration) -> Spec:
    return SPECS[seed](migration)


def _fus(migration: Migration) -> Spec:
    [(old, new)] = moves(migration)
    sites = [s[0] for s in importlib.import_module("singletable.examples.fus_main.sample").SITES]

    def make(n: int) -> Entity:
        site = sites[n % len(sites)]
        return new(user_id=f"writer{n % 4}", site_id=site, comment_id=f"w{n:05d}", body=f"c {n}")

    return Spec(old, new, make, edit_field(new, old, "body", lambda n: f"edited {n}"))


def _blog(migration: Migration) -> Spec:
    [(old, new)] = moves(migration)
    posts = [(p[0], p[1]) for p in importlib.import_module("singletable.examples.blog_api.sample").POSTS]

    def make(n: int) -> Entity:
        post, author = posts[n % len(posts)]
        return new(post_id=post, user_id=f"writer{n}", post_author_id=author)

    def unlike(db: DB, values: dict[str, Any], n: int) -> Ack:
        """The new code's unlike: delete under both keys until neither holds the like."""
        keys = [new.model_entity().primary_key(values), old.model_entity().primary_key(values)]
        for _ in range(10):
            for key in keys:
                db.call("DeleteItem", {"TableName": db.table_name, "Key": key})
            read = [
                db.call("GetItem", {"TableName": db.table_name, "Key": k, "ConsistentRead": True})
                for k in keys
            ]
            if not any("Item" in r for r in read):
                return Ack(keys[0], deleted=True, kind=new.model_entity().type)
        raise AssertionError(f"like {values} kept coming back")

    return Spec(old, new, make, unlike)


def _hub(migration: Migration) -> Spec:
    from singletable.examples.hustlehub.design import User

    def make(n: int) -> Entity:
        admin = n % 3 == 1
        return User(
            user_id=f"writer{n}",
            email=f"writer{n}@example.com",
            role="admin" if admin else "member",
            admin_created_at=datetime(2026, 1, 1, tzinfo=UTC) if admin else None,
            admin_created_by="root" if admin else None,
        )

    return Spec(User, User, make, edit_field(User, User, "role", lambda n: "editor" if n % 4 else "member"))


def _wavy(migration: Migration) -> Spec:
    from singletable.examples.wavyblog import sample
    from singletable.examples.wavyblog.design import Post

    authors = [u[0] for u in sample.USERS]
    categories = [c[0] for c in sample.CATEGORIES]

    def make(n: int) -> Entity:
        return Post(
            post_id=f"post_w{n:05d}",
            slug=f"writer-post-{n}",
            title=f"Post {n}",
            author_id=authors[n % len(authors)],
            category=categories[n % len(categories)],
            is_published=bool(n % 2),
        )

    return Spec(Post, Post, make, edit_field(Post, Post, "title", lambda n: f"Retitled {n}"))


SPECS: dict[str, Callable[[Migration], Spec]] = {
    "fus_main": _fus,
    "blog_api": _blog,
    "hustlehub": _hub,
    "wavyblog": _wavy,
}


def before_migration(seed: str, target: Any, extra: int = EXTRA) -> tuple[Migration, Spec, DB, DB]:
    """The seed's table as it was before its migration (sample, extra items, aged), the migration's DB on
    it and the application's."""
    migration = migration_of(seed)
    spec = spec_of(seed, migration)
    assert migration.table is not None
    name = f"{seed}_{uuid.uuid4().hex[:10]}"
    db = connect(migration.table, target, name=name)
    create_old_table(db, migration)
    sample = importlib.import_module(f"singletable.examples.{seed}.sample")
    sample.load(sample.open_service(db))
    app = connect(spec.new.model_entity().table, target, name=name)
    for n in range(extra):
        app.create(spec.make(100_000 + n))
    age(db, migration)
    return migration, spec, db, app


def existing(db: DB, spec: Spec) -> list[dict[str, Any]]:
    meta = spec.old.model_entity()
    return [meta.decode(i) for i in scan(db) if i.get(db.table.type_attribute) == {"S": meta.type}]


@pytest.fixture(params=["engine", "http", "reference"])
def target(request: pytest.FixtureRequest) -> Any:
    return make_target(request.param, request)


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_migration_interrupted_while_the_application_writes(seed: str, target: Any) -> None:
    migration, spec, db, app = before_migration(seed, target)
    try:
        before = counts(db)
        assert before[spec.old.model_entity().type] >= EXTRA
        writers = Writers(app, spec.make, spec.edit, existing(db, spec), seed=SEEDS.index(seed)).start()
        try:
            with pytest.raises(Interrupted):
                up(migration, db, page_size=3, on_page=interrupt_at(4))
            assert status([migration], db)[0].state == "running"
            [result] = up(migration, db, page_size=3)
        finally:
            writers.stop()
        assert result.resumed and result.state == "applied"
        assert writers.acks and sum(writers.created.values()) > 0
        verify(db, migration, before + writers.created - writers.deleted, writers.acks)
        assert up(migration, db)[0].state == "already applied"
    finally:
        db.delete_table()


# -- kill -9 at random moments ------------------------------------------------------------------------------


def run_up(seed: str, endpoint: str, table: str, env: dict[str, str]) -> subprocess.Popen[str]:
    # rate-limited, as a live migration is: a run lasts seconds, so a kill lands mid-run on any backend
    command = [sys.executable, "-m", "singletable", "migrate", "up", "--page-size", "2", "--max-wcu", "40"]
    directory = str(EXAMPLES / seed / "migrations")
    return subprocess.Popen(
        [*command, directory, endpoint, "--table", table],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", **env},
    )


def kill_until_done(
    seed: str,
    endpoint: str,
    db: DB,
    migration: Migration,
    rng: random.Random,
    env: dict[str, str] | None = None,
) -> int:
    """Run ``migrate up`` and SIGKILL it a random number of items after its checkpoint last moved (then a
    random moment more, so it dies mid-page as often as between pages), again and again, until a run
    finishes by itself; return how many runs were killed with the migration half done."""
    killed = 0
    for _ in range(KILLS + 1):
        process = run_up(seed, endpoint, db.table_name, env or {})
        start = _scanned(db, migration)
        more = rng.randint(1, 8)
        while process.poll() is None and killed < KILLS:
            scanned = _scanned(db, migration)
            if scanned is not None and scanned >= (start or 0) + more:
                time.sleep(rng.uniform(0, 0.05))
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
        out, err = process.communicate(timeout=300)
        if process.returncode == -signal.SIGKILL:
            killed += status([migration], db)[0].state == "running"
            continue
        assert process.returncode == 0, err
        # "already applied": the last kill landed after the run had recorded the migration applied
        assert out.startswith((f"{migration.id}: applied", f"{migration.id}: already applied")), out
        return killed
    raise AssertionError("migrate up never finished")


def _scanned(db: DB, migration: Migration) -> int | None:
    """Items the running migration has checkpointed (None before its first checkpoint)."""
    [state] = status([migration], db)
    return state.scanned if state.state == "running" else None


@pytest.fixture(params=["engine", "http", "reference"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Any]:
    """Where the subprocess migrates (a file, or an endpoint URL) and what the test connects to."""
    if request.param == "engine":
        file = str(tmp_path / "seed.sqlite3")
        return file, file
    server = request.getfixturevalue("http_server" if request.param == "http" else "reference_server")
    return str(server.endpoint), make_target(request.param, request)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_seed_migration_killed_at_random_moments(seed: str, endpoint: tuple[str, Any]) -> None:
    where, target = endpoint
    migration, spec, db, app = before_migration(seed, target, EXTRA_KILLED)
    try:
        before = counts(db)
        rng = random.Random(f"{seed}-kill")
        writers = Writers(app, spec.make, spec.edit, existing(db, spec), rng.randrange(1000), 120, 0.02)
        writers.start()
        try:
            killed = kill_until_done(seed, where, db, migration, rng)
        finally:
            writers.stop()
        assert killed >= 1, "no kill landed while the migration was half done"
        verify(db, migration, before + writers.created - writers.deleted, writers.acks)
        assert status([migration], db)[0].state == "applied"
    finally:
        db.delete_table()


def test_every_seed_has_a_tested_migration() -> None:
    with_migrations = sorted(p.parent.parent.name for p in EXAMPLES.glob("*/migrations/0*.py"))
    assert with_migrations == sorted([*SEEDS, "places"]), with_migrations  # one each (places: below)


# -- places: a copy into a new table, while the new code writes to it ------------------------------------


def places_before(target: Any) -> tuple[Migration, DB, DB, Counter[str]]:
    """The old-layout table loaded with the sample, the new table empty, the copy migration reading the
    former, and the counts one uninterrupted copy without writers leaves (on a third table)."""
    from singletable.examples.places.design import places
    from singletable.examples.places.legacy import legacy, legacy_items
    from singletable.examples.places.migrate import copy_migration

    suffix = uuid.uuid4().hex[:10]
    source = connect(legacy, target, name=f"places_v1_{suffix}")
    source.create_table()
    for item in legacy_items():
        source.call("PutItem", {"TableName": source.table_name, "Item": item})
    migration = copy_migration(source.table_name)
    straight = connect(places, target, name=f"places_straight_{suffix}")
    straight.create_table()
    up(migration, straight, page_size=50)
    expected = counts(straight)
    straight.delete_table()
    dest = connect(places, target, name=f"places_{suffix}")
    dest.create_table()
    return migration, source, dest, expected


def places_writers(dest: DB, target: Any, seed: int, most: int = 200, pause: float = 0.005) -> Writers:
    """The new code on the new table during the copy: new posts, and settings edited once copied."""
    from singletable.examples.places import sample
    from singletable.examples.places.design import Post, Setting

    def make(n: int) -> Entity:
        return Post(id=f"9{n:05d}", collection_id="1011", title=f"written during the copy {n}")

    def edit(db: DB, values: dict[str, Any], n: int) -> Ack | None:
        try:
            db.update(Setting.key(name=values["name"]), value=f"edited {n}")
        except NotFound:
            return None
        return Ack(Setting.model_entity().primary_key(values), {"value": {"S": f"edited {n}"}})

    app = connect(dest.table, target, name=dest.table_name)
    settings = [{"name": name} for name, _ in sample.SETTINGS] * 3
    return Writers(app, make, edit, settings, seed, most, pause)


def test_places_copy_interrupted_while_the_new_code_writes(target: Any) -> None:
    migration, source, dest, expected = places_before(target)
    before = scan(source)
    try:
        writers = places_writers(dest, target, seed=5).start()
        try:
            with pytest.raises(Interrupted):
                up(migration, dest, page_size=5, on_page=interrupt_at(3))
            [result] = up(migration, dest, page_size=5)
        finally:
            writers.stop()
        assert result.resumed and writers.created["post"] > 0
        verify(dest, migration, expected + writers.created, writers.acks)
        assert scan(source) == before  # only read
    finally:
        source.delete_table()
        dest.delete_table()


@pytest.mark.slow
def test_places_copy_killed_at_random_moments(endpoint: tuple[str, Any]) -> None:
    where, target = endpoint
    migration, source, dest, expected = places_before(target)
    try:
        rng = random.Random("places-kill")
        writers = places_writers(dest, target, rng.randrange(1000), 120, 0.02).start()
        try:
            legacy = {"PLACES_LEGACY_TABLE": source.table_name}
            killed = kill_until_done("places", where, dest, migration, rng, legacy)
        finally:
            writers.stop()
        assert killed >= 1, "no kill landed while the copy was half done"
        verify(dest, migration, expected + writers.created, writers.acks)
    finally:
        source.delete_table()
        dest.delete_table()
