"""split and merge while the application writes, on the engine, ``serve`` and DynamoDB Local: an application
thread on the new design creates entities, edits existing ones again and again (an item not converted yet
under the key it keeps, as the new code finds it, so that the migration's conditional writes lose to it and
are computed again; often setting a field that was unset) and deletes some of its own, while the migration
runs, is interrupted and resumed. Then: every item has the keys its declaration computes, every guard names
an owner holding it, no item of the retired type is left, the counts per type are those the writes
describe, and every acknowledged write is there. test_raced_writes.py makes the race exactly."""

from __future__ import annotations

import random
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from test_migrate import snapshot
from test_split_merge import MERGE, SPLIT, Company, Contact, Person, after, before, contact, seed

from background import Background
from singletable.migrate import Migration, Progress, status, up
from singletable.model import (
    DB,
    Entity,
    EntityMeta,
    NotFound,
    RequestError,
    StoredItemError,
    Table,
    connect,
    guard_key,
)

# Seconds each, an application thread writing throughout: they run with the slow tests (.ci/run runs them).
pytestmark = pytest.mark.slow

# Answers that acknowledge nothing (DynamoDB Local may fail a write racing a transaction on the same item).
SERVER_ERRORS = frozenset({"InternalFailure", "InternalServerError", "ServiceUnavailable"})
COUNT = 24


class Interrupted(Exception):
    pass


@dataclass(slots=True)
class Known:
    """What the application believes one entity is: its type after the migration and its email."""

    kind: str
    email: str | None


@dataclass
class App:
    """The application on the new design, writing in a thread (module docstring). ``world`` is every
    entity by id as the writes leave it; ``acks`` each acknowledged write's key and the attributes it stored
    (None: deleted)."""

    db: DB
    make: Callable[[int], Entity]
    new_of: Callable[[str], type[Entity]]  # the new-design class an entity of that type is now
    world: dict[str, Known]
    acks: dict[tuple[str, ...], dict[str, Any] | None] = field(default_factory=dict)
    written: Counter[str] = field(default_factory=Counter)
    _thread: Background | None = None

    def start(self) -> App:
        self._thread = Background(self._run, "split-merge-app").start()
        return self

    def stop(self) -> None:
        assert self._thread is not None
        self._thread.stop()

    def _run(self, stopping: threading.Event) -> None:
        rng = random.Random(7)
        existing = sorted(self.world)  # edited again and again, so edits race the migration's own writes
        mine: list[str] = []
        n = 0
        while not stopping.is_set() and n < 3000:
            n += 1
            try:
                if n % 6 == 0 and mine:
                    self._delete(mine.pop(rng.randrange(len(mine))))
                elif n % 2:
                    mine.append(self._create(n))
                else:
                    self._edit(rng.choice(existing), n)  # one not converted yet is found later
            except RequestError as error:
                if error.code not in SERVER_ERRORS:
                    raise
                self.written["server errors"] += 1
            stopping.wait(0.003)

    def _key(self, cls: type[Entity], entity_id: str) -> tuple[str, ...]:
        meta = cls.model_entity()
        key = meta.primary_key({"id": entity_id})
        return tuple(av["S"] for av in key.values())

    def _create(self, n: int) -> str:
        entity = self.make(n)
        self.db.create(entity)
        meta = entity.model_entity()
        values = meta.values(entity)
        self.world[values["id"]] = Known(meta.type, values.get("email"))
        self.acks[self._key(type(entity), values["id"])] = {"name": {"S": values["name"]}}
        self.written["created"] += 1
        return str(values["id"])

    def _edit(self, entity_id: str, n: int) -> bool:
        cls = self.new_of(self.world[entity_id].kind)
        # a new name, and a VAT number where the type has one: often a field unset until now
        sets = {"name": f"edited {n}", **({"vat": f"V{n}"} if "vat" in cls.model_entity().fields else {})}
        try:
            self.db.update(cls.key(id=entity_id), **sets)  # type: ignore[attr-defined]
        except NotFound:
            return False
        except StoredItemError:
            # not merged yet: the new design cannot read what the update returns (a company has no kind);
            # nothing acknowledged, so it is edited again later
            return False
        self.acks[self._key(cls, entity_id)] = {name: {"S": value} for name, value in sets.items()}
        self.written["edited"] += 1
        return True

    def _delete(self, entity_id: str) -> None:
        cls = self.new_of(self.world[entity_id].kind)
        self.db.delete(cls, id=entity_id)
        del self.world[entity_id]
        self.acks[self._key(cls, entity_id)] = None
        self.written["deleted"] += 1


def interrupt_at(page: int) -> Callable[[Progress], None]:
    def stop(progress: Progress) -> None:
        if progress.pages == page:
            raise Interrupted

    return stop


def run_interrupted_while_writing(migration: Migration, db: DB, app: App) -> None:
    """The migration (a few write units a second, so the application writes all through it) stopped after
    its third page, then resumed to the end, the application writing from before the first run to after
    the second."""
    app.start()
    try:
        with pytest.raises(Interrupted):
            up(migration, db, page_size=4, max_wcu=25, on_page=interrupt_at(2))
        assert status([migration], db)[0].state == "running"
        [result] = up(migration, db, page_size=4, max_wcu=25)
    finally:
        app.stop()
    assert result.resumed and result.state == "applied"
    assert app.written["created"] and app.written["edited"] and app.written["deleted"]


def verify(db: DB, design: Table, retired: set[str], app: App) -> None:
    """The table as the design describes it after the migration and the application's writes (module
    docstring)."""
    items = snapshot(db)
    by_key = {tuple(i[n]["S"] for n in ("PK", "SK")): i for i in items}
    entities: dict[str, EntityMeta] = {m.type: m for m in design.entities.values()}
    kinds: Counter[str] = Counter()
    guards = set()
    for item in items:
        kind = item.get("entityType", {}).get("S")
        if kind is None:
            continue
        assert kind not in retired, f"{item['PK']}: still a {kind}"
        meta = entities[kind]
        values = meta.decode(item)
        wanted = meta.to_item(values)
        for attribute in ("PK", "SK", "entityType"):
            assert item[attribute] == wanted[attribute], f"{kind} {item['PK']}: {attribute}"
        kinds[kind] += 1
        for name in meta.unique:
            if values.get(name) is not None:
                guard = guard_key(meta, name, values[name])
                key = (guard["PK"]["S"], guard["SK"]["S"])
                assert by_key[key]["owner"]["M"] == meta.primary_key(values), f"guard {key}"
                guards.add(key)
    stored_guards = {k for k, i in by_key.items() if "entityType" not in i}
    assert stored_guards == guards, f"guards without an owner: {sorted(stored_guards - guards)}"
    guarded = {m.type for m in entities.values() if m.unique}
    expected = Counter(known.kind for known in app.world.values())
    assert kinds == expected
    assert len(guards) == sum(1 for k in app.world.values() if k.kind in guarded and k.email is not None)
    for key, stored in app.acks.items():
        if stored is None:
            assert key not in by_key, f"{key} was deleted (acknowledged) yet is there"
            continue
        assert key in by_key, f"acknowledged {key} is missing"
        for name, av in stored.items():
            assert by_key[key].get(name) == av, f"{key}: {name} is {by_key[key].get(name)}, acknowledged {av}"


def existing_contacts() -> list[dict[str, Any]]:
    return [
        contact(i, "person" if i % 2 else "company", f"c{i}@x.org" if i % 3 else None) for i in range(COUNT)
    ]


def new_contact(n: int) -> Entity:
    kind = "person" if n % 4 == 1 else "company"
    return Contact(id=f"w{n}", kind=kind, name=f"made {n}", email=f"w{n}@x.org")


def new_split(n: int) -> Entity:
    if n % 4 == 1:
        return Person(id=f"w{n}", name=f"made {n}", email=f"w{n}@x.org")
    return Company(id=f"w{n}", name=f"made {n}", vat=f"V{n}", email=f"w{n}@x.org")


@pytest.fixture
def contacts(target: Any) -> Iterator[DB]:
    """A table of contacts as the old design wrote them (``existing_contacts``)."""
    db = connect(before, target, name=f"contacts_{uuid.uuid4().hex[:10]}")
    db.create_table()
    seed(db, existing_contacts())
    yield db
    db.delete_table()


def test_a_split_while_the_application_writes(contacts: DB) -> None:
    items = existing_contacts()
    world = {i["id"]["S"]: Known(i["kind"]["S"], i.get("email", {}).get("S")) for i in items}
    classes = {"person": Person, "company": Company}
    app = App(DB(after, contacts.adapter, name=contacts.table_name), new_split, classes.__getitem__, world)
    run_interrupted_while_writing(SPLIT, contacts, app)
    verify(contacts, after, {"contact"}, app)


def test_a_merge_while_the_application_writes(contacts: DB) -> None:
    """Split first (no writers), then merged back while the application, on the merged design, writes."""
    up(SPLIT, contacts)
    world = {i["id"]["S"]: Known("contact", i.get("email", {}).get("S")) for i in existing_contacts()}
    app = App(contacts, new_contact, lambda kind: Contact, world)
    run_interrupted_while_writing(MERGE, contacts, app)
    verify(contacts, before, {"person", "company"}, app)
