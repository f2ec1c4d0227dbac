"""Indexes keyed by fields (multi-attribute GSI keys), on every target that has them.

``GSI("byTenantStatus", pk=["tenant", "status"], sk=["priority", "id"])`` keys the index on four typed
attributes, each an entity field stored as itself. These tests write through every write path (create, put,
update -- a part changed, removed, computed on the server --, upsert, batch, transaction, delete) and read
the index back through the model's typed key conditions, so the index always agrees with its items: an item
is in it exactly while every key field holds a value. Errors are checked for their type and message, and
values DynamoDB would refuse (an empty string in a key attribute) are refused before any request.
DynamoDB Local 1.25.1 has no multi-attribute keys (its CreateTable refuses them: "Key Schema too big"), so
the behaviour tests skip it there, saying so.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.model import (
    GSI,
    LSI,
    Collection,
    DeclarationError,
    Entity,
    FieldTypeError,
    Keys,
    KeyTemplateError,
    MissingKeyFields,
    Pattern,
    RequestError,
    Table,
    connect,
)

shop = Table(
    name="field-keys",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        GSI("byTenantStatus", pk=["tenant", "status"], sk=["priority", "id"]),
        GSI("byOwner", pk=["owner"], sk=["due", "code"], projection="KEYS_ONLY"),
    ],
)


class Task(Entity, table=shop, type="TASK", timestamps=False):
    tenant: str
    id: str
    status: str | None = None
    priority: int = 0
    owner: str | None = None
    due: date | None = None
    code: bytes | None = None
    title: str = ""

    keys = Keys(PK="TENANT#{tenant}", SK="TASK#{id}", GSI1PK="TASKS", GSI1SK="{tenant}#{id}")
    by_status = Pattern(index="byTenantStatus")
    urgent_first = Pattern(index="byTenantStatus", newest_first=True)
    by_owner = Pattern(index="byOwner")


NO_MULTI_ATTRIBUTE_KEYS = (
    "DynamoDB Local 1.25.1 has no multi-attribute GSI keys: its CreateTable refuses them "
    "(ValidationException: "
    "Key Schema too big)"
)

pytestmark = pytest.mark.async_twin


@pytest.fixture
def db(open_db: Any, request: pytest.FixtureRequest) -> Any:
    try:
        return open_db(shop)
    except RequestError as error:
        reference = request.node.callspec.params.get("target") == "reference"
        if reference and "Key Schema too big" in str(error):
            pytest.skip(NO_MULTI_ATTRIBUTE_KEYS)
        raise


def ids(db: Any, query: Any) -> list[str]:
    return [t.id for t in db.query(query)]


def task(id: str, **fields: Any) -> Task:
    return Task(tenant=fields.pop("tenant", "t1"), id=id, **fields)


# -- the declaration ---------------------------------------------------------------------------------------


def test_create_table_declares_every_key_attribute_with_its_type() -> None:
    params = shop.create_table_params()
    index = next(i for i in params["GlobalSecondaryIndexes"] if i["IndexName"] == "byTenantStatus")
    assert index["KeySchema"] == [
        {"AttributeName": "tenant", "KeyType": "HASH"},
        {"AttributeName": "status", "KeyType": "HASH"},
        {"AttributeName": "priority", "KeyType": "RANGE"},
        {"AttributeName": "id", "KeyType": "RANGE"},
    ]
    owner = next(i for i in params["GlobalSecondaryIndexes"] if i["IndexName"] == "byOwner")
    assert [k["AttributeName"] for k in owner["KeySchema"]] == ["owner", "due", "code"]
    types = {d["AttributeName"]: d["AttributeType"] for d in params["AttributeDefinitions"]}
    assert types == {
        "PK": "S",
        "SK": "S",
        "GSI1PK": "S",
        "GSI1SK": "S",
        "tenant": "S",
        "status": "S",
        "priority": "N",
        "id": "S",
        "owner": "S",
        "due": "S",
        "code": "B",
    }
    described = shop.describe()["indexes"][1]
    assert described["by_fields"] is True
    assert [(a["attribute"], a["type"], a["field"]) for a in described["sk_attributes"]] == [
        ("priority", "N", "priority"),
        ("id", "S", "id"),
    ]
    assert shop.key_attributes(shop.index("byTenantStatus")) == [
        "PK",
        "SK",
        "tenant",
        "status",
        "priority",
        "id",
    ]


def test_fields_take_the_tables_naming() -> None:
    t = Table(name="naming", naming="pascal", indexes=[GSI("byDay", pk=["org_id"], sk=[("created_on", "S")])])

    class Event(Entity, table=t, type="EVENT", timestamps=False):
        org_id: str
        event_id: str
        created_on: date

        keys = Keys(PK="ORG#{org_id}", SK="EVENT#{event_id}")

    schema = t.create_table_params()["GlobalSecondaryIndexes"][0]["KeySchema"]
    assert [k["AttributeName"] for k in schema] == ["OrgId", "CreatedOn"]
    assert Event.model_entity().field_keys == {"org_id": ("byDay",), "created_on": ("byDay",)}


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        (
            lambda: GSI("x", pk=["a", "b", "c", "d", "e"]),
            "GSI x: pk names 5 fields (a, b, c, d, e); DynamoDB keys an index on at most 4 partition and 4 "
            "sort "
            "attributes",
        ),
        (
            lambda: GSI("x", pk=["a"], sk=["b", "c", "d", "e", "f"]),
            "GSI x: sk names 5 fields (b, c, d, e, f)",
        ),
        (
            lambda: GSI("x", pk=["a", "b"], sk=["b"]),
            "GSI x: field b is in both pk and sk; each key attribute appears once",
        ),
        (lambda: GSI("x", pk=["a", "a"]), "GSI x: field a is twice in pk"),
        (lambda: GSI("x", pk=[]), "GSI x: pk=[] names no field; a partition key needs at least one"),
        (lambda: GSI("x", pk=["a"], sk="GSI1SK"), "GSI x: give sk as a list of fields, like the other key"),
        (lambda: GSI("x", pk="GSI1PK", sk=["a"]), "GSI x: give pk as a list of fields, like the other key"),
        (
            lambda: GSI("x", pk=["a-b"]),
            "GSI x: pk=['a-b'] takes field names or (field, type) pairs; 'a-b' is neither",
        ),
        (
            lambda: GSI("x", pk=[("a", "BOOL")]),
            "GSI x: pk field a has type 'BOOL'; a key attribute is S, N or B",
        ),
        (
            lambda: LSI("x", sk=["a", "b"]),
            "LSI x: a key of several fields is for global secondary indexes only",
        ),
        (
            lambda: Table(name="bad", indexes=[GSI("x", pk=["PK"])]),
            "GSI x: field PK is stored as PK, the table's own key, which the entities build from templates",
        ),
    ],
)
def test_index_declarations_that_cannot_work(declare: Any, message: str) -> None:
    with pytest.raises(DeclarationError) as raised:
        declare()
    assert message in str(raised.value)


def _table() -> Table:
    return Table(name="decl", indexes=[GSI("byState", pk=["org", "state"], sk=["rank"])])


def _bool_key_field() -> None:
    class Flag(Entity, table=_table(), type="FLAG"):
        org: str
        state: bool

        keys = Keys(PK="{org}", SK="FLAG")


def _empty_key_default() -> None:
    class Blank(Entity, table=_table(), type="BLANK"):
        org: str
        state: str = ""

        keys = Keys(PK="{org}", SK="BLANK")


def _key_field_of_two_types() -> None:
    t = _table()

    class One(Entity, table=t, type="ONE"):
        org: str
        rank: int

        keys = Keys(PK="{org}", SK="ONE")

    class Two(Entity, table=t, type="TWO"):
        org: str
        rank: str

        keys = Keys(PK="{org}", SK="TWO")


def _type_not_declared() -> None:
    t = Table(name="decl", indexes=[GSI("byRank", pk=["org"], sk=[("rank", "N")])])

    class Bad(Entity, table=t, type="BAD"):
        org: str
        rank: str

        keys = Keys(PK="{org}", SK="BAD")


def _key_field_aliased() -> None:
    from pydantic import Field

    class Aliased(Entity, table=_table(), type="ALIASED"):
        org: str
        state: str = Field(alias="State")

        keys = Keys(PK="{org}", SK="A")


def _key_field_templated() -> None:
    class Templated(Entity, table=_table(), type="TEMPLATED"):
        org: str
        state: str

        keys = Keys(PK="{org}", SK="T", state="STATE#{state}")


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        pytest.param(
            _bool_key_field,
            "Flag.state is bool, which GSI byState cannot key on: a key attribute holds a string (str, "
            "datetime, date, UUID, a text enum), a number (int, float, Decimal) or bytes",
            id="a type a key cannot hold",
        ),
        pytest.param(
            _empty_key_default,
            "Blank.state defaults to '', which GSI byState keys on: DynamoDB refuses an empty string or "
            "binary in an index key attribute, so every write leaving it out would fail; default it to None "
            "(out of the index) or to a value",
            id="an empty default",
        ),
        pytest.param(
            _key_field_of_two_types,
            "Two.rank is stored as rank of type S, but One.rank keys rank as N; every entity must store an "
            "index key attribute as one type",
            id="two entities, two types",
        ),
        pytest.param(
            _type_not_declared,
            "Bad.rank is str (stored as S), but GSI byRank declares ('rank', 'N')",
            id="not the declared type",
        ),
        pytest.param(
            _key_field_aliased,
            "Aliased.state is stored as State, but GSI byState keys on field state as attribute state (the "
            "table's naming); drop its alias, or name the index after the attribute",
            id="stored under another name",
        ),
        pytest.param(
            _key_field_templated,
            "Templated: Keys(state=...) but GSI byState keys on the field stored as state itself, typed, not "
            "on a template; drop state from Keys",
            id="templated",
        ),
    ],
)
def test_an_entity_whose_key_field_an_index_cannot_key_on_is_refused(declare: Any, message: str) -> None:
    with pytest.raises(DeclarationError) as raised:
        declare()
    assert str(raised.value) == message


def test_a_pattern_needs_every_key_field_and_takes_no_templates() -> None:
    t = _table()
    with pytest.raises(DeclarationError) as raised:

        class Partial(Entity, table=t, type="PARTIAL"):
            org: str
            state: str

            keys = Keys(PK="{org}", SK="P")
            by_state = Pattern(index="byState")

    assert str(raised.value) == (
        "Partial.by_state: GSI byState keys on field rank (attribute rank), and PARTIAL has no such field; "
        "its "
        "fields are org, state"
    )
    with pytest.raises(DeclarationError) as raised:

        class Override(Entity, table=t, type="OVERRIDE"):
            org: str
            state: str
            rank: int

            keys = Keys(PK="{org}", SK="O")
            by_state = Pattern(index="byState", sk="RANK#")

    assert "Override.by_state: GSI byState is keyed by fields, not templates, so pk=, sk= and prefix=" in str(
        raised.value
    )
    with pytest.raises(DeclarationError) as raised:
        Collection(t, "all", pk="{org}", entities=(), index="byState")
    assert "collection all: GSI byState is keyed by fields, not templates" in str(raised.value)


def test_a_field_no_entity_has_cannot_be_defined() -> None:
    t = Table(name="typo", indexes=[GSI("byState", pk=["org", "stat"])])

    class Thing(Entity, table=t, type="THING"):
        org: str
        state: str

        keys = Keys(PK="{org}", SK="THING")

    with pytest.raises(DeclarationError) as raised:
        t.create_table_params()
    assert str(raised.value) == (
        "GSI byState keys on field stat (attribute stat), which no entity on the table has, so its type is "
        "unknown; declare an entity with that field, or give the type: ('stat', 'S')"
    )


# -- key conditions, as requests ----------------------------------------------------------------------------


def _condition(query: Any) -> tuple[str, dict[str, Any]]:
    _, params = query.request("T")
    names = params.get("ExpressionAttributeNames", {})
    text = params["KeyConditionExpression"]
    for placeholder, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(placeholder, name)
    return text, params["ExpressionAttributeValues"]


def test_every_partition_field_by_equality_and_sort_fields_left_to_right() -> None:
    text, values = _condition(Task.by_status("t1", "open"))
    assert text == "tenant = :v0 AND status = :v1"
    assert values == {":v0": {"S": "t1"}, ":v1": {"S": "open"}}
    text, values = _condition(Task.by_status(tenant="t1", status="open", priority=2).where(Task.f.id >= "b"))
    assert text == "tenant = :v0 AND status = :v1 AND priority = :v2 AND id >= :v3"
    assert values[":v2"] == {"N": "2"}
    text, values = _condition(Task.by_status("t1", "open").where(Task.f.priority.between(1, 10)))
    assert text == "tenant = :v0 AND status = :v1 AND priority BETWEEN :v2 AND :v3"
    assert (values[":v2"], values[":v3"]) == ({"N": "1"}, {"N": "10"})
    text, values = _condition(
        Task.by_owner("ann", due=date(2026, 3, 1)).where(Task.f.code.begins_with(b"\x01"))
    )
    assert text == "owner = :v0 AND due = :v1 AND begins_with(code, :v2)"
    assert values[":v1"] == {"S": "2026-03-01"} and values[":v2"] == {"B": b"\x01"}


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: Task.by_status("t1"),
            MissingKeyFields,
            "Task.by_status(): GSI byTenantStatus is partitioned by tenant, status; give status (every "
            "partition "
            "field, by equality)",
        ),
        (
            lambda: Task.by_status("t1", "open", id="a"),
            KeyTemplateError,
            "Task.by_status(): GSI byTenantStatus sorts by priority, then id; id was given without priority "
            "(sort fields are given left to right)",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.id > "a"),
            MissingKeyFields,
            "Task.by_status: a range condition on id needs every sort field before it by equality (sort "
            "fields "
            "left to right): give priority in the call",
        ),
        (
            lambda: Task.by_status("t1", "open", priority=1).where(Task.f.priority > 0),
            KeyTemplateError,
            "Task.by_status: priority is already given by equality in the call; a range condition goes on "
            "the "
            "next sort field, id",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.status > "a"),
            KeyTemplateError,
            "Task.by_status: status is a partition field of GSI byTenantStatus; give it by equality in the "
            "call, "
            "not in .where()",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.title == "a"),
            KeyTemplateError,
            "Task.by_status: title is not a sort field of GSI byTenantStatus (it sorts by priority, then "
            "id); "
            "filter on it with .filter()",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.priority.begins_with("1")),
            KeyTemplateError,
            "Task.by_status: begins_with needs a string or binary sort field; TASK.priority is a number",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.priority != 1),
            KeyTemplateError,
            "Task.by_status: a key condition cannot use <> (DynamoDB takes =, <, <=, >, >=, between and "
            "begins_with on a sort key); use .filter()",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.priority.exists()),
            KeyTemplateError,
            "Task.by_status: a key condition compares one sort field of GSI byTenantStatus with =, <, <=, >, "
            ">=, "
            "between or begins_with",
        ),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.priority < Task.f.priority),
            KeyTemplateError,
            "Task.by_status: a key condition compares priority with a value, not with",
        ),
        (
            lambda: Task.by_status("t1", priority=1),
            MissingKeyFields,
            "give status",
        ),
        (lambda: Task.by_status("t1", 5), FieldTypeError, "TASK.status is str; 5 (int) does not fit"),
        (
            lambda: Task.by_status("t1", "open").where(Task.f.priority > "high"),
            FieldTypeError,
            "TASK.priority is int; 'high' (str) does not fit",
        ),
        (
            lambda: Task.by_status("t1", ""),
            KeyTemplateError,
            "Task.by_status: TASK.status = '' cannot be a key value of GSI byTenantStatus (an index key is a "
            "non-empty string, a number or a non-empty binary)",
        ),
    ],
)
def test_key_conditions_a_query_cannot_have(build: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        build()
    assert message in str(raised.value)


def test_a_pattern_takes_only_its_key_fields() -> None:
    from singletable.model import UnknownArgument

    with pytest.raises(UnknownArgument) as raised:
        Task.by_status("t1", "open", title="x")
    assert str(raised.value) == (
        "Task.by_status() got unknown argument(s) title; it takes tenant, status, priority, id"
    )


# -- behaviour on every target ------------------------------------------------------------------------------


def test_items_are_in_the_index_exactly_while_every_key_field_has_a_value(db: Any) -> None:
    db.create(task("a", status="open", priority=2))
    db.create(task("b", status="open", priority=10))
    db.create(task("c", status="open", priority=9))
    db.create(task("d"))  # no status: not in byTenantStatus
    db.create(task("e", status="done", priority=1))
    db.create(task("f", tenant="t2", status="open"))
    # numbers sort as numbers (10 after 9: no zero-padding), then by id
    assert ids(db, Task.by_status("t1", "open")) == ["a", "c", "b"]
    assert ids(db, Task.urgent_first("t1", "open")) == ["b", "c", "a"]
    assert ids(db, Task.by_status("t1", "done")) == ["e"]
    db.update(Task.key(tenant="t1", id="d"), status="open", priority=9)  # joins
    assert ids(db, Task.by_status("t1", "open")) == ["a", "c", "d", "b"]
    db.update(Task.key(tenant="t1", id="c"), status="done")  # moves partition
    assert ids(db, Task.by_status("t1", "done")) == ["e", "c"]
    db.update(Task.key(tenant="t1", id="a"), status=None)  # a part removed: leaves the index
    db.update(Task.key(tenant="t1", id="b"), Task.f.status.remove())
    assert ids(db, Task.by_status("t1", "open")) == ["d"]
    db.update(Task.key(tenant="t1", id="d"), Task.f.priority.add(-20))  # computed on the server: re-sorted
    db.put(task("g", status="open", priority=0))
    assert ids(db, Task.by_status("t1", "open")) == ["d", "g"]
    assert db.get(Task, tenant="t1", id="d").priority == -11
    db.delete(Task, tenant="t1", id="g")
    assert ids(db, Task.by_status("t1", "open")) == ["d"]


def test_range_conditions_on_the_last_sort_field_given(db: Any) -> None:
    for n, (priority, id) in enumerate([(1, "a"), (2, "b"), (2, "c"), (2, "d"), (3, "e")]):
        db.create(task(id, status="open", priority=priority, title=str(n)))
    query = Task.by_status("t1", "open")
    assert ids(db, query.where(Task.f.priority >= 2)) == ["b", "c", "d", "e"]
    assert ids(db, query.where(Task.f.priority < 2)) == ["a"]
    assert ids(db, query.where(Task.f.priority.between(2, 3))) == ["b", "c", "d", "e"]
    assert ids(db, query.where(Task.f.priority == 2)) == ["b", "c", "d"]
    two = Task.by_status("t1", "open", priority=2)
    assert ids(db, two) == ["b", "c", "d"]
    assert ids(db, two.where(Task.f.id > "b")) == ["c", "d"]
    assert ids(db, two.where(Task.f.id.begins_with("d"))) == ["d"]
    assert ids(db, two.where(Task.f.id.between("b", "c"))) == ["b", "c"]
    assert ids(db, Task.by_status("t1", "open", priority=2, id="c")) == ["c"]
    assert ids(db, two.filter(Task.f.title == "3")) == ["d"]


def test_binary_and_date_sort_fields_and_keys_only_projection(db: Any) -> None:
    db.create(task("a", owner="ann", due=date(2026, 3, 2), code=b"\x02", title="A"))
    db.create(task("b", owner="ann", due=date(2026, 3, 1), code=b"\xff", title="B"))
    db.create(task("c", owner="ann", due=date(2026, 3, 1), code=b"\x01\x00", title="C"))
    db.create(task("d", owner="ann", due=date(2026, 3, 1)))  # no code: not in byOwner
    found = list(db.query(Task.by_owner("ann")))  # KEYS_ONLY: hydrated whole from the table
    assert [(t.id, t.title) for t in found] == [("c", "C"), ("b", "B"), ("a", "A")]
    day = Task.by_owner("ann", due=date(2026, 3, 1))
    assert ids(db, day.where(Task.f.code < b"\x02")) == ["c"]
    assert ids(db, Task.by_owner("ann").where(Task.f.due > date(2026, 3, 1))) == ["a"]


def test_pages_carry_every_key_attribute_in_their_cursor(db: Any) -> None:
    for i in range(7):
        db.create(task(f"x{i}", status="open", priority=i % 3))
    seen, cursor = [], None
    while True:
        page = db.page(Task.by_status("t1", "open"), size=3, cursor=cursor)
        seen += [t.id for t in page.items]
        cursor = page.cursor
        if cursor is None:
            break
    assert seen == ["x0", "x3", "x6", "x1", "x4", "x2", "x5"]


def test_conditions_transactions_upserts_and_batches_keep_the_index(db: Any) -> None:
    from singletable.model import ConditionFailed

    db.create(task("a", status="open", priority=1))
    db.create(task("z"))  # in no index of fields: no status, no owner
    with pytest.raises(ConditionFailed):
        db.update(Task.key(tenant="t1", id="a"), status="done", condition=Task.f.status == "closed")
    db.update(Task.key(tenant="t1", id="a"), status="done", condition=Task.f.status == "open")
    with db.transaction() as tx:
        tx.create(task("b", status="open", priority=5))
        tx.update(Task.key(tenant="t1", id="a"), status="open", priority=7)
        tx.check(Task.key(tenant="t1", id="z"), Task.f.status.not_exists())
    assert ids(db, Task.by_status("t1", "open")) == ["b", "a"]
    with pytest.raises(ConditionFailed), db.transaction() as tx:
        tx.update(Task.key(tenant="t1", id="b"), status=None)
        tx.check(Task.key(tenant="t1", id="a"), Task.f.priority == 0)
    assert ids(db, Task.by_status("t1", "open")) == ["b", "a"]  # all or nothing
    db.update(Task.key(tenant="t1", id="u"), status="open", priority=6, upsert=True)
    db.batch_write(put=[task("v", status="open", priority=8)], delete=[Task.key(tenant="t1", id="b")])
    assert ids(db, Task.by_status("t1", "open")) == ["u", "a", "v"]
    with db.transaction() as tx:
        tx.delete(Task, tenant="t1", id="a")
        tx.put(task("u", status="done", priority=6))
    assert ids(db, Task.by_status("t1", "open")) == ["v"]
    assert ids(db, Task.by_status("t1", "done")) == ["u"]


def test_an_empty_key_value_is_refused_before_any_request(db: Any) -> None:
    db.create(task("a", status="open"))
    message = (
        "TASK.status = '' is empty, and GSI byTenantStatus keys on it; DynamoDB refuses empty strings and "
        "binaries in index key attributes (give it a value, or None to leave the item out of the index)"
    )
    writes = [
        lambda: db.create(task("b", status="")),
        lambda: db.put(task("a", status="")),
        lambda: db.update(Task.key(tenant="t1", id="a"), status=""),
        lambda: db.update(Task.key(tenant="t1", id="a"), Task.f.status.if_not_exists("")),
        lambda: db.batch_write(put=[task("b", status="")]),
    ]
    for write in writes:
        with db.trace() as trace, pytest.raises(KeyTemplateError) as raised:
            write()
        assert str(raised.value) == message
        assert trace.operations == []
    with db.trace() as trace, pytest.raises(KeyTemplateError) as raised, db.transaction() as tx:
        tx.update(Task.key(tenant="t1", id="a"), code=b"")
    assert "TASK.code = b'' is empty, and GSI byOwner keys on it" in str(raised.value)
    assert trace.operations == []
    assert ids(db, Task.by_status("t1", "open")) == ["a"]


def test_decimal_and_float_key_fields_are_numbers() -> None:
    t = Table(name="numbers", indexes=[GSI("byScore", pk=["board"], sk=["score", "ratio"])])

    class Entry(Entity, table=t, type="ENTRY"):
        board: str
        player: str
        score: Decimal
        ratio: float

        keys = Keys(PK="{board}", SK="{player}")
        ranked = Pattern(index="byScore")

    types = {d["AttributeName"]: d["AttributeType"] for d in t.create_table_params()["AttributeDefinitions"]}
    assert (types["score"], types["ratio"]) == ("N", "N")
    text, values = _condition(Entry.ranked("b").where(Entry.f.score > Decimal("1.5")))
    assert text == "board = :v0 AND score > :v1" and values[":v1"] == {"N": "1.5"}


# -- hypothesis: the index's order and key conditions are the fields' own ----------------------------------

_ids = st.text(alphabet=st.sampled_from("aAzZ09_-é€\U0001f600"), min_size=1, max_size=4)
_rows = st.lists(st.tuples(st.integers(-1000, 1000), _ids), max_size=10, unique_by=lambda r: r[1])
_ops = st.sampled_from(["<", "<=", ">", ">=", "==", "between"])


def _holds(op: str, value: Any, low: Any, high: Any) -> bool:
    return {
        "<": value < low,
        "<=": value <= low,
        ">": value > low,
        ">=": value >= low,
        "==": value == low,
        "between": low <= value <= high,
    }[op]


def _cond(path: Any, op: str, low: Any, high: Any) -> Any:
    if op == "between":
        return path.between(low, high)
    return {"<": path < low, "<=": path <= low, ">": path > low, ">=": path >= low, "==": path == low}[op]


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=_rows, op=_ops, bounds=st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000)), ids=_ids)
def test_ranges_on_numbers_and_text_agree_with_python(rows: Any, op: str, bounds: Any, ids: str) -> None:
    """Negative numbers sort below positive ones and text sorts by code point (UTF-8 bytes), as no padded
    or glued string could: every range on the number, and on the id after an equal number, reads exactly
    what Python's comparison of the field values selects, in the index's order (on the engine)."""
    db = connect(shop, ":memory:")
    db.create_table()
    try:
        for priority, id in rows:
            db.create(task(id, status="open", priority=priority))
        expected = sorted((p, i) for p, i in rows)
        assert [(t.priority, t.id) for t in db.query(Task.by_status("t1", "open"))] == expected
        low, high = sorted(bounds)
        ranged = Task.by_status("t1", "open").where(_cond(Task.f.priority, op, low, high))
        assert ids_of(db, ranged) == [i for p, i in expected if _holds(op, p, low, high)]
        if rows:
            number = rows[0][0]
            text_low, text_high = sorted((ids, rows[-1][1]))
            on_id = Task.by_status("t1", "open", priority=number).where(
                _cond(Task.f.id, op, text_low, text_high)
            )
            wanted = [i for p, i in expected if p == number and _holds(op, i, text_low, text_high)]
            assert ids_of(db, on_id) == wanted
    finally:
        db.close()


def ids_of(db: Any, query: Any) -> list[str]:
    return [t.id for t in db.query(query)]
