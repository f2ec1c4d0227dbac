"""The stateful proof: random writes never leave the table inconsistent, on the engine and DynamoDB Local.

A hypothesis :class:`RuleBasedStateMachine` runs creates, puts, full and partial updates (flipping sparse
conditions, changing one field of multi-field templates, unique values and derived items' sources), upserts,
deletes and transactions of several writes on the design of ``stateful_design.py``. Each rule predicts its
outcome from a plain-Python reference model -- success, or exactly which error (``AlreadyExists``,
``UniqueViolation``, ``VersionConflict``, ``NotFound``, ``ConditionFailed``, ``MissingKeyFields``) -- and an
expected failure must leave the table as it was. After EVERY step the invariant reads the whole table raw
(Scan, not through the model) and checks that

- every entity item is exactly what a put of the entity it decodes to would write: each key attribute the
  templates compute from the stored fields (sparse keys present iff their condition holds), every field
  stored, nothing else;
- every guard item belongs to a live owner holding that value (with the fields it carries), and every
  owner's unique value has its guard;
- the derived items are exactly those the owners' declarations compute;
- nothing else is in the table;
- the entities, ``batch_get``, ``find`` and a sparse-index query agree with the reference model, and so does
  the index keyed by fields (a multi-attribute GSI): exactly the members with a team, per org and team, in
  status-then-rank order, and a range on its last sort field (not on DynamoDB Local 1.25.1, which cannot
  create the index: its table is created without it).

Examples and steps: ``SINGLETABLE_STATEFUL_EXAMPLES`` raises the number of examples for a long soak
(``SINGLETABLE_STATEFUL_EXAMPLES=400 pytest tests/model/test_stateful_writes.py -k engine``).

``AsyncDB`` runs the same writes (its steps are DB's) on the engine only, with a quarter of the engine's
examples: the full budget again on both targets would double the test's ~60 s for code both drivers share.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from stateful_design import (
    DOC_DEFAULTS,
    DOC_IDS,
    EMAILS,
    HANDLES,
    MEMBER_DEFAULTS,
    NAMES,
    ORGS,
    OWNERS,
    SITES,
    SLUGS,
    STATUSES,
    TAGS,
    TEAMS,
    TITLES,
    Doc,
    Member,
    Reference,
    design,
    stepping_clock,
)
from stateful_table import check_table, without_field_keyed_index

from model_targets import Blocking, EventLoopThread, make_target
from singletable.model import (
    DB,
    AlreadyExists,
    ConditionFailed,
    MissingFields,
    MissingKeyFields,
    NotFound,
    UniqueViolation,
    VersionConflict,
    connect,
    connect_async,
)

# (examples, steps per example) per target: enough to find the bugs this test found, within ~30 s on the
# engine and ~60 s on DynamoDB Local on a shared 2-core machine.
BUDGET = {"engine": (60, 30), "reference": (12, 25), "engine-async": (15, 30)}
_tables = itertools.count()

member_keys = st.tuples(st.sampled_from(ORGS), st.sampled_from(HANDLES))
doc_keys = st.tuples(st.sampled_from(ORGS), st.sampled_from(DOC_IDS))
tag_sets = st.sets(st.sampled_from(TAGS), max_size=2)
member_changes = st.fixed_dictionaries(
    {},
    optional={
        "email": st.sampled_from(EMAILS),
        "site": st.sampled_from(SITES),
        "name": st.sampled_from(NAMES),
        "status": st.sampled_from(STATUSES),
        "team": st.sampled_from(TEAMS),
        "rank": st.integers(0, 3),
        "tags": tag_sets,
    },
)
member_extras = member_changes.map(lambda d: {k: v for k, v in d.items() if k != "email"})
doc_changes = st.fixed_dictionaries(
    {},
    optional={
        "title": st.sampled_from(TITLES),
        "slug": st.sampled_from(SLUGS),
        "owner": st.sampled_from(OWNERS),
        "published": st.booleans(),
    },
)
conditions = st.none() | st.integers(0, 3)  # update only if rank >= n


def member_fields(key: tuple[str, str], email: str, extra: dict[str, Any], version: int) -> dict[str, Any]:
    return {"org": key[0], "handle": key[1], "email": email, **MEMBER_DEFAULTS, **extra, "version": version}


def doc_fields(key: tuple[str, str], title: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"org": key[0], "doc_id": key[1], "title": title, **DOC_DEFAULTS, **extra}


# -- the machine -----------------------------------------------------------------------------------------


class WritesMachine(RuleBasedStateMachine):
    """Random model writes against a reference model; the table checked raw after every step."""

    open_db: Callable[[], tuple[DB, Callable[[], None]]]
    field_index = True  # whether the target has the index keyed by fields (DynamoDB Local 1.25.1 does not)
    checks = 0  # invariant checks run (one per step, and one per example before its first step)

    def __init__(self) -> None:
        super().__init__()
        self.db, self._drop = self.open_db()
        self.ref = Reference()

    def teardown(self) -> None:
        self._drop()

    # -- outcomes --------------------------------------------------------------------------------------

    @contextmanager
    def outcome(self, *expected: type[Exception]) -> Iterator[None]:
        """Run a write that must succeed (no ``expected``) or fail with exactly one of ``expected``."""
        if not expected:
            yield
            return
        with pytest.raises(Exception) as caught:  # its exact type is checked below
            yield
        assert type(caught.value) in expected, f"expected {expected}, got {caught.value!r}"

    def member_entity(self, key: tuple[str, str], version: str) -> Member:
        """The member as the caller holds it: its current version, a stale one, or none (a fresh object)."""
        stored = self.ref.members.get(key)
        fields = dict(stored) if stored else member_fields(key, EMAILS[0], {}, 1)
        if version == "stale":
            fields["version"] = fields["version"] - 1 or None
        elif version == "fresh":
            fields["version"] = None
        return Member(**fields)

    # -- members ---------------------------------------------------------------------------------------

    def _member_create(self, key: tuple[str, str], email: str, extra: dict[str, Any]) -> list[type]:
        if key in self.ref.members:
            return [AlreadyExists]
        return [UniqueViolation] if self.ref.email_taken(email, extra.get("site", "main"), key) else []

    @rule(key=member_keys, email=st.sampled_from(EMAILS), extra=member_extras)
    def create_member(self, key: tuple[str, str], email: str, extra: dict[str, Any]) -> None:
        errors = self._member_create(key, email, extra)
        with self.outcome(*errors):
            made = self.db.create(Member(org=key[0], handle=key[1], email=email, **extra))
        if not errors:
            assert made.version == 1
            self.ref.members[key] = member_fields(key, email, extra, 1)

    def _member_to_put(self, key: tuple[str, str], email: str, extra: dict[str, Any], version: str) -> Member:
        """A new member object holding the version the caller has (current, stale or none)."""
        held = self.member_entity(key, version)
        return Member(**{**member_fields(key, email, extra, 0), "version": held.version})

    def _member_put(self, key: tuple[str, str], entity: Member) -> list[type]:
        stored = self.ref.members.get(key)
        if (stored["version"] if stored else None) != entity.version:
            return [VersionConflict]
        return [UniqueViolation] if self.ref.email_taken(entity.email, entity.site, key) else []

    @rule(
        key=member_keys,
        email=st.sampled_from(EMAILS),
        extra=member_extras,
        version=st.sampled_from(["current", "stale", "fresh"]),
    )
    def put_member(self, key: tuple[str, str], email: str, extra: dict[str, Any], version: str) -> None:
        entity = self._member_to_put(key, email, extra, version)
        errors = self._member_put(key, entity)
        with self.outcome(*errors):
            put = self.db.put(entity)
        if not errors:
            self.ref.members[key] = member_fields(key, email, extra, (entity.version or 0) + 1)
            assert put.version == self.ref.members[key]["version"]

    def _member_update(
        self, key: tuple[str, str], changes: dict[str, Any], version: str | None, at_least: int | None
    ) -> list[type]:
        stored = self.ref.members.get(key)
        if stored is None:
            return [NotFound]
        if version == "stale" and stored["version"] > 1:
            return [VersionConflict]
        if at_least is not None and stored["rank"] < at_least:
            return [ConditionFailed]
        after = {**stored, **changes}  # a new email, or a new site for the old one, moves the guard
        if {"email", "site"} & set(changes) and self.ref.email_taken(after["email"], after["site"], key):
            return [UniqueViolation]
        return []

    def _member_updated(self, key: tuple[str, str], changes: dict[str, Any]) -> None:
        stored = self.ref.members[key]
        stored.update(changes, version=stored["version"] + 1)

    @rule(
        key=member_keys,
        changes=member_changes,
        via=st.sampled_from(["key", "current", "stale"]),
        at_least=conditions,
    )
    def update_member(
        self, key: tuple[str, str], changes: dict[str, Any], via: str, at_least: int | None
    ) -> None:
        target = Member.key(org=key[0], handle=key[1]) if via == "key" else self.member_entity(key, via)
        errors = self._member_update(key, changes, via if via != "key" else None, at_least)
        condition = None if at_least is None else Member.f.rank >= at_least
        with self.outcome(*errors):
            updated = self.db.update(target, condition=condition, **changes)
        if not errors:
            self._member_updated(key, changes)
            assert updated.model_dump() == Member(**self.ref.members[key]).model_dump()

    @rule(key=member_keys, changes=member_changes)
    def upsert_member(self, key: tuple[str, str], changes: dict[str, Any]) -> None:
        """An update that creates the member when absent: refused without the required email."""
        errors = self._member_upsert(key, changes)
        with self.outcome(*errors):
            made = self.db.update(Member.key(org=key[0], handle=key[1]), upsert=True, **changes)
        if not errors:
            self._member_upserted(key, changes)
            assert made.model_dump() == Member(**self.ref.members[key]).model_dump()

    def _member_upsert(self, key: tuple[str, str], changes: dict[str, Any]) -> list[type]:
        if "email" not in changes:  # refused whether or not the item exists: the call alone decides
            return [MissingFields]
        stored = self.ref.members.get(key) or {"site": "main"}
        site = changes.get("site", stored["site"])
        return [UniqueViolation] if self.ref.email_taken(changes["email"], site, key) else []

    def _member_upserted(self, key: tuple[str, str], changes: dict[str, Any]) -> None:
        if key in self.ref.members:
            self._member_updated(key, changes)
        else:
            extra = {k: v for k, v in changes.items() if k != "email"}
            self.ref.members[key] = member_fields(key, changes["email"], extra, 1)

    @rule(key=member_keys, step=st.integers(1, 2))
    def add_to_a_keyed_counter(self, key: tuple[str, str], step: int) -> None:
        """``rank`` feeds two key templates: arithmetic on it is refused before anything is sent."""
        with self.outcome(MissingKeyFields):
            self.db.update(Member.key(org=key[0], handle=key[1]), Member.f.rank.add(step))

    @rule(key=member_keys, via=st.sampled_from(["key", "current", "stale"]))
    def delete_member(self, key: tuple[str, str], via: str) -> None:
        stored = self.ref.members.get(key)
        stale = via == "stale" and stored is not None and stored["version"] > 1
        target = Member.key(org=key[0], handle=key[1]) if via == "key" else self.member_entity(key, via)
        with self.outcome(*([VersionConflict] if stale else [])):
            self.db.delete(target)
        if not stale:
            self.ref.members.pop(key, None)

    # -- documents -------------------------------------------------------------------------------------

    @rule(key=doc_keys, title=st.sampled_from(TITLES), extra=doc_changes)
    def create_doc(self, key: tuple[str, str], title: str, extra: dict[str, Any]) -> None:
        fields = doc_fields(key, title, {k: v for k, v in extra.items() if k != "title"})
        errors = self._doc_create(key, fields)
        with self.outcome(*errors):
            made = self.db.create(Doc(**fields))
        if not errors:
            self.ref.docs[key] = {**fields, "created_at": made.created_at}

    def _doc_create(self, key: tuple[str, str], fields: dict[str, Any]) -> list[type]:
        if key in self.ref.docs:
            return [AlreadyExists]
        return [UniqueViolation] if self.ref.slug_taken(fields["slug"], key) else []

    @rule(key=doc_keys, title=st.sampled_from(TITLES), extra=doc_changes, as_read=st.booleans())
    def put_doc(self, key: tuple[str, str], title: str, extra: dict[str, Any], as_read: bool) -> None:
        """A put of a fresh object (no createdAt) or of one as read: either way the stored createdAt stays,
        and the GSI1SK built from it with it."""
        fields = doc_fields(key, title, {k: v for k, v in extra.items() if k != "title"})
        stored = self.ref.docs.get(key)
        created = stored["created_at"] if stored and as_read else None
        errors = [UniqueViolation] if self.ref.slug_taken(fields["slug"], key) else []
        with self.outcome(*errors):
            put = self.db.put(Doc(**fields, created_at=created))
        if not errors:
            kept = stored["created_at"] if stored else put.created_at
            assert put.created_at == kept
            self.ref.docs[key] = {**fields, "created_at": kept}

    def _doc_update(self, key: tuple[str, str], changes: dict[str, Any]) -> list[type]:
        if key not in self.ref.docs:
            return [NotFound]
        return [UniqueViolation] if "slug" in changes and self.ref.slug_taken(changes["slug"], key) else []

    @rule(key=doc_keys, changes=doc_changes)
    def update_doc(self, key: tuple[str, str], changes: dict[str, Any]) -> None:
        errors = self._doc_update(key, changes)
        with self.outcome(*errors):
            self.db.update(Doc.key(org=key[0], doc_id=key[1]), **changes)
        if not errors:
            self.ref.docs[key].update(changes)

    @rule(key=doc_keys, changes=doc_changes)
    def upsert_doc(self, key: tuple[str, str], changes: dict[str, Any]) -> None:
        """An update that creates the document when absent (whole: defaults, keys, guard, derived item)."""
        stored = self.ref.docs.get(key)
        if "title" not in changes:  # refused whether or not the item exists: the call alone decides
            errors: list[type] = [MissingFields]
        else:
            errors = [UniqueViolation] if self.ref.slug_taken(changes.get("slug"), key) else []
        with self.outcome(*errors):
            made = self.db.update(Doc.key(org=key[0], doc_id=key[1]), upsert=True, **changes)
        if errors:
            return
        if stored is None:
            extra = {k: v for k, v in changes.items() if k != "title"}
            self.ref.docs[key] = {**doc_fields(key, changes["title"], extra), "created_at": made.created_at}
        else:
            stored.update(changes)
        assert made.model_dump(exclude={"updated_at"}) == Doc(**self.ref.docs[key]).model_dump(
            exclude={"updated_at"}
        )

    @rule(key=doc_keys)
    def delete_doc(self, key: tuple[str, str]) -> None:
        self.db.delete(Doc, org=key[0], doc_id=key[1])
        self.ref.docs.pop(key, None)

    # -- transactions ----------------------------------------------------------------------------------

    @rule(
        member=st.one_of(
            st.tuples(st.just("create"), member_keys, st.sampled_from(EMAILS), member_extras),
            st.tuples(
                st.just("update"), member_keys, member_changes, st.sampled_from(["key", "current", "stale"])
            ),
            st.tuples(st.just("upsert"), member_keys, member_changes),
            st.tuples(
                st.just("put"),
                member_keys,
                st.sampled_from(EMAILS),
                member_extras,
                st.sampled_from(["current", "stale", "fresh"]),
            ),
            st.tuples(st.just("delete"), member_keys),
        ),
        doc=st.one_of(
            st.tuples(st.just("create"), doc_keys, st.sampled_from(TITLES), doc_changes),
            st.tuples(st.just("put"), doc_keys, st.sampled_from(TITLES), doc_changes, st.booleans()),
            st.tuples(st.just("update"), doc_keys, doc_changes),
            st.tuples(st.just("delete"), doc_keys),
        ),
        check=st.none() | st.tuples(member_keys, st.integers(0, 3)),
    )
    def transaction(self, member: tuple[Any, ...], doc: tuple[Any, ...], check: Any) -> None:
        """A member write, a document write and maybe a check of another member, all or nothing."""
        if check is not None:
            assume(check[0] != member[1])
        errors, apply = self._member_in_tx(member)
        doc_errors, doc_apply = self._doc_in_tx(doc)
        errors += doc_errors
        if check is not None:
            held = self.ref.members.get(check[0])
            if held is None or held["rank"] < check[1]:
                errors.append(ConditionFailed)
        with self.outcome(*errors), self.db.transaction() as tx:
            self._send_member(tx, member)
            self._send_doc(tx, doc)
            if check is not None:
                (org, handle), at_least = check
                tx.check(Member.key(org=org, handle=handle), Member.f.rank >= at_least)
        if not errors:
            apply()
            doc_apply()

    def _member_in_tx(self, op: tuple[Any, ...]) -> tuple[list[type], Callable[[], None]]:
        kind, key = op[0], op[1]
        if kind == "create":
            errors = self._member_create(key, op[2], op[3])
            return errors, lambda: self.ref.members.__setitem__(key, member_fields(key, op[2], op[3], 1))
        if kind == "update":
            errors = self._member_update(key, op[2], op[3] if op[3] != "key" else None, None)
            return errors, lambda: self._member_updated(key, op[2])
        if kind == "upsert":
            return self._member_upsert(key, op[2]), lambda: self._member_upserted(key, op[2])
        if kind == "put":
            entity = self._member_to_put(key, op[2], op[3], op[4])
            fields = member_fields(key, op[2], op[3], (entity.version or 0) + 1)
            return self._member_put(key, entity), lambda: self.ref.members.__setitem__(key, fields)
        return [], lambda: self.ref.members.pop(key, None)

    def _doc_in_tx(self, op: tuple[Any, ...]) -> tuple[list[type], Callable[[], None]]:
        kind, key = op[0], op[1]
        if kind == "create":
            fields = doc_fields(key, op[2], {k: v for k, v in op[3].items() if k != "title"})

            def made() -> None:  # createdAt as tx.create stamped it
                self.ref.docs[key] = {**fields, "created_at": self._tx_doc.created_at}

            return self._doc_create(key, fields), made
        if kind == "put":
            fields = doc_fields(key, op[2], {k: v for k, v in op[3].items() if k != "title"})
            stored = self.ref.docs.get(key)

            def put() -> None:  # createdAt: the stored one, else as tx.put stamped it
                kept = stored["created_at"] if stored else self._tx_doc.created_at
                assert self._tx_doc.created_at == kept
                self.ref.docs[key] = {**fields, "created_at": kept}

            return ([UniqueViolation] if self.ref.slug_taken(fields["slug"], key) else []), put
        if kind == "update":
            return self._doc_update(key, op[2]), lambda: self.ref.docs[key].update(op[2])
        return [], lambda: self.ref.docs.pop(key, None)

    def _send_member(self, tx: Any, op: tuple[Any, ...]) -> None:
        kind, key = op[0], op[1]
        if kind == "create":
            tx.create(Member(org=key[0], handle=key[1], email=op[2], **op[3]))
        elif kind == "update":
            target = (
                Member.key(org=key[0], handle=key[1]) if op[3] == "key" else self.member_entity(key, op[3])
            )
            tx.update(target, **op[2])
        elif kind == "upsert":
            tx.update(Member.key(org=key[0], handle=key[1]), upsert=True, **op[2])
        elif kind == "put":
            tx.put(self._member_to_put(key, op[2], op[3], op[4]))
        else:
            tx.delete(Member, org=key[0], handle=key[1])

    def _send_doc(self, tx: Any, op: tuple[Any, ...]) -> None:
        kind, (org, doc_id) = op[0], op[1]
        if kind == "create":
            extra = {k: v for k, v in op[3].items() if k != "title"}
            self._tx_doc = tx.create(Doc(org=org, doc_id=doc_id, title=op[2], **extra))
        elif kind == "put":
            extra = {k: v for k, v in op[3].items() if k != "title"}
            stored = self.ref.docs.get((org, doc_id))
            created = stored["created_at"] if stored and op[4] else None
            self._tx_doc = tx.put(Doc(org=org, doc_id=doc_id, title=op[2], created_at=created, **extra))
        elif kind == "update":
            tx.update(Doc.key(org=org, doc_id=doc_id), **op[2])
        else:
            tx.delete(Doc, org=org, doc_id=doc_id)

    # -- after every step ------------------------------------------------------------------------------

    @invariant()
    def the_table_is_what_the_writes_promise(self) -> None:
        WritesMachine.checks += 1
        found = check_table(self.db)
        members = {(m.org, m.handle): m.model_dump() for m in found["MEMBER"].values()}
        assert members == {k: Member(**v).model_dump() for k, v in self.ref.members.items()}
        docs = {(d.org, d.doc_id): d.model_dump(exclude={"updated_at"}) for d in found["DOC"].values()}
        assert docs == {k: Doc(**v).model_dump(exclude={"updated_at"}) for k, v in self.ref.docs.items()}
        self._model_reads_agree()

    def _model_reads_agree(self) -> None:
        keys = [Member.key(org=o, handle=h) for o in ORGS for h in HANDLES]
        read = self.db.batch_get(keys, consistent=True)
        expected = {k: Member(**v) for k, v in self.ref.members.items()}
        assert {(m.org, m.handle): m for m in read if m is not None} == expected
        for email, site in itertools.product(EMAILS, SITES):
            owner = self.ref.email_owner(email, site)
            found = self.db.find(Member, email=email, site=site)
            assert (found.org, found.handle) == owner if found else owner is None
        for org in ORGS:
            active = sorted(m.handle for m in self.db.query(Member.active(org=org)))
            assert active == sorted(
                h for (o, h), m in self.ref.members.items() if o == org and m["status"] == "active"
            )
        if self.field_index:
            self._field_keyed_index_agrees()

    def _field_keyed_index_agrees(self) -> None:
        """byTeam holds exactly the members with a team, per (org, team), in (status, rank) order; a range on
        the last sort field given reads exactly the members it bounds."""
        for org, team in itertools.product(ORGS, [t for t in TEAMS if t]):
            mine = [
                (m["status"], m["rank"], h)
                for (o, h), m in self.ref.members.items()
                if (o, m["team"]) == (org, team)
            ]
            read = [(m.status, m.rank, m.handle) for m in self.db.query(Member.by_team(org, team))]
            assert [r[:2] for r in read] == sorted(r[:2] for r in mine)  # the index's order
            assert sorted(read) == sorted(mine)
            ranked = Member.by_team(org, team, status="active").where(Member.f.rank >= 2)
            assert sorted(m.handle for m in self.db.query(ranked)) == sorted(
                h for s, r, h in mine if s == "active" and r >= 2
            )


def _opener(target_name: str, request: pytest.FixtureRequest) -> Callable[[], Any]:
    """A fresh, empty table for each example: an in-memory engine (DB or AsyncDB), or a new table on DynamoDB
    Local."""
    if target_name == "engine":

        def open_engine() -> tuple[DB, Callable[[], None]]:
            db = connect(design, ":memory:", name="stateful", clock=stepping_clock())
            db.create_table()
            return db, db.close

        return open_engine
    if target_name == "engine-async":  # AsyncDB behind the blocking harness the async twins use
        loop = EventLoopThread.shared()

        def open_async_engine() -> tuple[Any, Callable[[], None]]:
            db = Blocking(
                loop.run(connect_async(design, ":memory:", name="stateful", clock=stepping_clock())), loop
            )
            db.create_table()
            return db, db.close

        return open_async_engine
    target = make_target(target_name, request)

    def open_table() -> tuple[DB, Callable[[], None]]:
        db = connect(design, target, name=f"stateful{os.getpid()}_{next(_tables)}", clock=stepping_clock())
        db.call("CreateTable", without_field_keyed_index(design.create_table_params(db.table_name)))
        return db, db.delete_table

    return open_table


@pytest.mark.slow
@pytest.mark.parametrize("target_name", ["engine", "reference", "engine-async"])
def test_random_writes_keep_the_table_consistent(target_name: str, request: pytest.FixtureRequest) -> None:
    examples, steps = BUDGET[target_name]
    examples = int(os.environ.get("SINGLETABLE_STATEFUL_EXAMPLES", examples))
    machine = type(
        "Machine",
        (WritesMachine,),
        {
            "open_db": staticmethod(_opener(target_name, request)),
            "field_index": target_name != "reference",
        },
    )
    WritesMachine.checks = 0
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    print(f"stateful {target_name}: {examples} examples, {WritesMachine.checks} checked states")  # -s shows
