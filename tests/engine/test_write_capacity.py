"""ConsumedCapacity of every write path, as AWS bills it, with the per-index breakdown (INDEXES) and TOTAL.

The rules (AWS's developer guide, "Global secondary indexes: write capacity", and figures measured on
DynamoDB and published by other engines' maintainers; docs/compatibility.md states them):

- the table arm is the larger of the item's old and new sizes, in 1 KB units;
- an index arm follows the change to what the index stores: a new entry costs its projected size, a removed
  one its old projected size, a moved index key both (a delete and a put, rounded separately), a changed
  projection the larger of the two, and an unchanged entry nothing (no arm at all) -- so an identical
  overwrite, even one that lists a set's members in another order, costs the table write alone;
- inside a transaction only the table arm is doubled; a ConditionCheck is 2 write units per 1 KB of the
  item it read; a Delete is sized on the deleted item; a same-token replay is reported as transactional
  reads (4 KB units) of what the first call was sized on;
- PartiQL writes cost what the item operations they stand for cost.

Every item here is under 1 KB unless a test says otherwise, so each unit shows structure, not rounding.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create

from draws import examples
from singletable.engine import Engine

LOCAL_NO_PARTIQL_CAPACITY = "DynamoDB Local leaves ConsumedCapacity out of PartiQL responses"


def S(value: str) -> dict[str, str]:
    return {"S": value}


def N(value: str) -> dict[str, str]:
    return {"N": value}


KEY = {"PK": S("a"), "SK": S("1")}
# In GSI1 (G1PK/G1SK, ALL), GSI2 (G2PK, KEYS_ONLY) and LSI1 (PK/L1SK, INCLUDE extra).
FULL = {
    **KEY,
    "G1PK": S("g"),
    "G1SK": N("1"),
    "G2PK": S("h"),
    "L1SK": S("l"),
    "extra": S("e"),
    "spare": S("o"),
}


@pytest.fixture
def table(ddb: Any, table_name: str) -> str:
    return create(ddb, table_name, gsi=True, lsi=True)


def indexes(
    table: str, table_units: float, gsi: dict[str, float] | None = None, lsi: dict[str, float] | None = None
) -> dict[str, Any]:
    """A single-item operation's ConsumedCapacity under INDEXES."""
    gsi, lsi = gsi or {}, lsi or {}
    out: dict[str, Any] = {
        "TableName": table,
        "CapacityUnits": table_units + sum(gsi.values()) + sum(lsi.values()),
        "Table": {"CapacityUnits": table_units},
    }
    if gsi:
        out["GlobalSecondaryIndexes"] = {name: {"CapacityUnits": u} for name, u in gsi.items()}
    if lsi:
        out["LocalSecondaryIndexes"] = {name: {"CapacityUnits": u} for name, u in lsi.items()}
    return out


def transactional(
    table: str,
    table_writes: float,
    gsi: dict[str, float] | None = None,
    lsi: dict[str, float] | None = None,
) -> dict[str, Any]:
    """One table's line of a transaction's ConsumedCapacity under INDEXES (writes only)."""
    gsi, lsi = gsi or {}, lsi or {}
    total = table_writes + sum(gsi.values()) + sum(lsi.values())
    out: dict[str, Any] = {
        "TableName": table,
        "CapacityUnits": total,
        "WriteCapacityUnits": total,
        "Table": {"CapacityUnits": table_writes, "WriteCapacityUnits": table_writes},
    }
    if gsi:
        out["GlobalSecondaryIndexes"] = {
            n: {"CapacityUnits": u, "WriteCapacityUnits": u} for n, u in gsi.items()
        }
    if lsi:
        out["LocalSecondaryIndexes"] = {
            n: {"CapacityUnits": u, "WriteCapacityUnits": u} for n, u in lsi.items()
        }
    return out


def put(ddb: Any, table: str, item: dict[str, Any], mode: str = "INDEXES") -> Any:
    return ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity=mode)["ConsumedCapacity"]


# -- PutItem / DeleteItem -----------------------------------------------------------------------------------


def test_put_charges_each_index_on_the_change_to_its_entry(ddb: Any, table: str) -> None:
    assert put(ddb, table, FULL) == indexes(table, 1, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})
    # An identical overwrite changes no index entry: the table write alone, no index arm.
    assert put(ddb, table, FULL) == indexes(table, 1)
    assert put(ddb, table, FULL, "TOTAL") == {"TableName": table, "CapacityUnits": 1.0}
    # GSI1's key moves: a delete and a put there. GSI2 (KEYS_ONLY) and LSI1 store the same entry.
    moved = {**FULL, "G1PK": S("g2")}
    assert put(ddb, table, moved) == indexes(table, 1, {"GSI1": 2})
    # A projected non-key attribute changes: one write in each index projecting it (ALL, INCLUDE extra).
    assert put(ddb, table, {**moved, "extra": S("e2")}) == indexes(table, 1, {"GSI1": 1}, {"LSI1": 1})
    # An attribute only the ALL projection stores.
    assert put(ddb, table, {**moved, "extra": S("e2"), "spare": S("o2")}) == indexes(table, 1, {"GSI1": 1})
    # Leaving GSI2 (its key attribute removed) is one delete there; GSI1 stores G2PK, so it changes too.
    left = {k: v for k, v in moved.items() if k != "G2PK"} | {"extra": S("e2"), "spare": S("o2")}
    assert put(ddb, table, left) == indexes(table, 1, {"GSI1": 1, "GSI2": 1})
    assert put(ddb, table, left, "TOTAL") == {"TableName": table, "CapacityUnits": 1.0}


def test_removing_an_index_key_charges_one_delete(ddb: Any, table: str) -> None:
    put(ddb, table, FULL)
    without = {k: v for k, v in FULL.items() if k not in ("G2PK", "L1SK")}
    # GSI2 and LSI1 lose the entry (one delete each); GSI1 (ALL) stores the removed attributes, so changes.
    assert put(ddb, table, without) == indexes(table, 1, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})


def test_an_overwrite_with_sets_in_another_order_or_numbers_written_otherwise_is_identical(
    ddb: Any, table: str
) -> None:
    put(ddb, table, {**FULL, "tags": {"SS": ["x", "y", "z"]}, "nums": {"NS": ["1", "2"]}, "n": N("1.5")})
    same = {**FULL, "tags": {"SS": ["z", "x", "y"]}, "nums": {"NS": ["2.0", "1"]}, "n": N("1.50")}
    assert put(ddb, table, same) == indexes(table, 1)
    nested = {"M": {"s": {"SS": ["a", "b"]}, "l": {"L": [{"NS": ["1", "2"]}]}}}
    assert put(ddb, table, {**same, "deep": nested}) == indexes(table, 1, {"GSI1": 1})
    reordered = {"M": {"l": {"L": [{"NS": ["2", "1"]}]}, "s": {"SS": ["b", "a"]}}}
    assert put(ddb, table, {**same, "deep": reordered}) == indexes(table, 1)


def test_a_write_outside_every_index_charges_the_table_alone(ddb: Any, table: str) -> None:
    assert put(ddb, table, {**KEY, "spare": S("o")}) == indexes(table, 1)
    assert put(ddb, table, {**KEY, "spare": S("o2")}) == indexes(table, 1)


def test_index_arms_are_sized_on_the_projected_entry(ddb: Any, table: str) -> None:
    big = {**FULL, "blob": S("x" * 2500)}  # about 2.6 KB: 3 units wherever the whole item is stored
    assert put(ddb, table, big) == indexes(table, 3, {"GSI1": 3, "GSI2": 1}, {"LSI1": 1})
    # A key move of the big item: both halves in GSI1 (ALL), each rounded on its own.
    assert put(ddb, table, {**big, "G1SK": N("2")}) == indexes(table, 3, {"GSI1": 6})
    # Shrinking it: the table and GSI1 are charged the larger (old) image.
    assert put(ddb, table, {**FULL, "G1SK": N("2")}) == indexes(table, 3, {"GSI1": 3})


def test_delete_charges_every_index_holding_the_item(ddb: Any, table: str) -> None:
    put(ddb, table, {**FULL, "blob": S("x" * 2500)})
    deleted = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="INDEXES")
    assert deleted["ConsumedCapacity"] == indexes(table, 3, {"GSI1": 3, "GSI2": 1}, {"LSI1": 1})
    put(ddb, table, {**KEY, "G2PK": S("h")})
    only_gsi2 = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="INDEXES")
    assert only_gsi2["ConsumedCapacity"] == indexes(table, 1, {"GSI2": 1})
    missing = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="INDEXES")
    assert missing["ConsumedCapacity"] == indexes(table, 1)


# Each index as a model: whether an item is in it, its key there, and what it stores (sets unordered).
_INDEX_MODEL: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]] = {
    "GSI1": (("G1PK", "G1SK"), None),  # ALL
    "GSI2": (("G2PK",), ("PK", "SK", "G2PK")),  # KEYS_ONLY
    "LSI1": (("PK", "L1SK"), ("PK", "SK", "L1SK", "extra")),  # INCLUDE extra
}


def _comparable(value: dict[str, Any]) -> Any:
    ((kind, inner),) = value.items()
    return (kind, frozenset(inner)) if kind == "SS" else (kind, inner)


def _model_entry(index: str, item: dict[str, Any] | None) -> tuple[Any, Any] | None:
    """(key, stored entry) of ``item`` in ``index`` by the model, or None when the item is not in it."""
    key_names, stored_names = _INDEX_MODEL[index]
    if item is None or any(name not in item for name in key_names):
        return None
    stored = {k: _comparable(v) for k, v in item.items() if stored_names is None or k in stored_names}
    return tuple(_comparable(item[name]) for name in key_names), stored


def _expected_arms(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, float]:
    """The rule, stated independently of the engine: enter 1, leave 1, key move 2, changed entry 1."""
    arms: dict[str, float] = {}
    for index in _INDEX_MODEL:
        before, after = _model_entry(index, old), _model_entry(index, new)
        if before == after:  # not in the index before nor after, or the same entry
            continue
        if before is None or after is None:
            arms[index] = 1.0
        else:
            arms[index] = 2.0 if before[0] != after[0] else 1.0
    return arms


_optional = {
    "G1PK": st.sampled_from(["g", "h"]).map(S),
    "G1SK": st.sampled_from(["1", "2"]).map(N),
    "G2PK": st.sampled_from(["x", "y"]).map(S),
    "L1SK": st.sampled_from(["l", "m"]).map(S),
    "extra": st.sampled_from(["e", "f"]).map(S),
    "spare": st.sampled_from(["s", "t"]).map(S),
    "tags": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True).map(
        lambda v: {"SS": v}
    ),
}
_attributes = st.fixed_dictionaries({}, optional=_optional)
_items = itertools.count()


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    engine = Engine(str(Path(tmp_path_factory.mktemp("capacity")) / "capacity.sqlite3"))
    create(engine, "props", gsi=True, lsi=True)
    yield engine
    engine.close()


@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=_attributes, second=_attributes, shuffle=st.randoms(use_true_random=False))
def test_index_arms_follow_the_change_to_each_entry(
    engine: Engine, first: Any, second: Any, shuffle: Any
) -> None:
    key = {"PK": S("p"), "SK": S(str(next(_items)))}
    old = {**key, **first}
    created = engine.put_item(TableName="props", Item=old, ReturnConsumedCapacity="INDEXES")
    assert _arms(created["ConsumedCapacity"]) == _expected_arms(None, old)
    new = {**key, **second}
    replaced = engine.put_item(TableName="props", Item=new, ReturnConsumedCapacity="INDEXES")
    assert _arms(replaced["ConsumedCapacity"]) == _expected_arms(old, new)
    again = {name: dict(value) for name, value in new.items()}
    if "tags" in again:
        again["tags"] = {"SS": shuffle.sample(again["tags"]["SS"], len(again["tags"]["SS"]))}
    same = engine.put_item(TableName="props", Item=again, ReturnConsumedCapacity="INDEXES")
    assert same["ConsumedCapacity"] == indexes("props", 1)


def _arms(consumed: dict[str, Any]) -> dict[str, float]:
    arms = {**consumed.get("GlobalSecondaryIndexes", {}), **consumed.get("LocalSecondaryIndexes", {})}
    assert all(arm["CapacityUnits"] > 0 for arm in arms.values())  # never a zero arm
    return {name: arm["CapacityUnits"] for name, arm in arms.items()}


# -- UpdateItem ---------------------------------------------------------------------------------------------


def update(
    ddb: Any, table: str, expression: str, values: dict[str, Any] | None = None, mode: str = "INDEXES"
):
    params: dict[str, Any] = {"UpdateExpression": expression, "ReturnConsumedCapacity": mode}
    if values:
        params["ExpressionAttributeValues"] = values
    return ddb.update_item(TableName=table, Key=KEY, **params)["ConsumedCapacity"]


def test_update_charges_each_index_on_the_change_to_its_entry(ddb: Any, table: str) -> None:
    put(ddb, table, FULL)
    assert update(ddb, table, "SET G1PK = :v", {":v": S("g")}) == indexes(table, 1)
    assert update(ddb, table, "SET G1PK = :v", {":v": S("g2")}) == indexes(table, 1, {"GSI1": 2})
    assert update(ddb, table, "SET extra = :v", {":v": S("e2")}) == indexes(
        table, 1, {"GSI1": 1}, {"LSI1": 1}
    )
    assert update(ddb, table, "REMOVE L1SK") == indexes(table, 1, {"GSI1": 1}, {"LSI1": 1})
    assert update(ddb, table, "SET L1SK = :v", {":v": S("l")}) == indexes(table, 1, {"GSI1": 1}, {"LSI1": 1})
    assert update(ddb, table, "SET spare = :v", {":v": S("o2")}, "TOTAL") == {
        "TableName": table,
        "CapacityUnits": 2.0,
    }


def test_update_creating_an_item_charges_the_indexes_it_enters(ddb: Any, table: str) -> None:
    created = update(ddb, table, "SET G2PK = :v, spare = :o", {":v": S("h"), ":o": S("o")})
    assert created == indexes(table, 1, {"GSI2": 1})


# -- BatchWriteItem -----------------------------------------------------------------------------------------


def test_batch_write_charges_index_arms_per_table(ddb: Any, table: str, table_name: str) -> None:
    plain = create(ddb, table_name + "p")
    put(ddb, table, FULL)
    second = {**FULL, "SK": S("2")}
    response = ddb.batch_write_item(
        RequestItems={
            table: [
                {"PutRequest": {"Item": FULL}},  # identical overwrite: the table alone
                {"PutRequest": {"Item": second}},  # a new item in every index
                {"DeleteRequest": {"Key": {**KEY, "SK": S("3")}}},  # nothing to delete: 1 unit
            ],
            plain: [{"PutRequest": {"Item": KEY}}],
        },
        ReturnConsumedCapacity="INDEXES",
    )
    by_table = {entry["TableName"]: entry for entry in response["ConsumedCapacity"]}
    # DynamoDB Local charges a batch's delete of a missing item 2 units (docs/compatibility.md).
    missing_delete = 2 if ddb.is_reference else 1
    assert by_table[table] == indexes(table, 2 + missing_delete, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})
    assert by_table[plain] == indexes(plain, 1)


# -- TransactWriteItems -------------------------------------------------------------------------------------


LOCAL_TRANSACTIONS = (
    "DynamoDB Local bills every arm of a transactional write, index arms included, 4 x its write units for"
    " an item created, replaced or deleted, and a ConditionCheck by its own sizing (docs/compatibility.md)"
)


def transact(ddb: Any, actions: list[dict[str, Any]], mode: str = "INDEXES", **params: Any) -> Any:
    return ddb.transact_write_items(TransactItems=actions, ReturnConsumedCapacity=mode, **params)[
        "ConsumedCapacity"
    ]


def test_transaction_doubles_the_table_arm_only(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_TRANSACTIONS)
    created = transact(ddb, [{"Put": {"TableName": table, "Item": FULL}}])
    assert created == [transactional(table, 2, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})]
    same = transact(ddb, [{"Put": {"TableName": table, "Item": FULL}}])
    assert same == [transactional(table, 2)]
    move = {
        "Update": {
            "TableName": table,
            "Key": KEY,
            "UpdateExpression": "SET G1PK = :v",
            "ExpressionAttributeValues": {":v": S("g2")},
        }
    }
    assert transact(ddb, [move]) == [transactional(table, 2, {"GSI1": 2})]
    total = transact(ddb, [{"Put": {"TableName": table, "Item": {**FULL, "SK": S("2")}}}], "TOTAL")
    assert total == [{"TableName": table, "CapacityUnits": 5.0, "WriteCapacityUnits": 5.0}]


def test_transactional_delete_is_sized_on_the_deleted_item(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_TRANSACTIONS)
    put(ddb, table, {**FULL, "blob": S("x" * 2500)})
    deleted = transact(ddb, [{"Delete": {"TableName": table, "Key": KEY}}])
    assert deleted == [transactional(table, 6, {"GSI1": 3, "GSI2": 1}, {"LSI1": 1})]
    missing = transact(ddb, [{"Delete": {"TableName": table, "Key": KEY}}])
    assert missing == [transactional(table, 2)]


def test_condition_check_is_two_write_units_per_kilobyte_of_the_item_read(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_TRANSACTIONS)
    put(ddb, table, {**FULL, "blob": S("x" * 2500)})
    check = {
        "ConditionCheck": {"TableName": table, "Key": KEY, "ConditionExpression": "attribute_exists(PK)"}
    }
    assert transact(ddb, [check]) == [transactional(table, 6)]
    absent = {
        "ConditionCheck": {
            "TableName": table,
            "Key": {**KEY, "SK": S("none")},
            "ConditionExpression": "attribute_not_exists(PK)",
        }
    }
    assert transact(ddb, [absent], "TOTAL") == [
        {"TableName": table, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    ]


def test_a_mixed_transaction_sums_per_table(ddb: Any, table: str, table_name: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_TRANSACTIONS)
    plain = create(ddb, table_name + "p")
    put(ddb, plain, {**KEY, "v": N("1")})
    response = transact(
        ddb,
        [
            {"Put": {"TableName": table, "Item": FULL}},
            {"Put": {"TableName": plain, "Item": {**KEY, "SK": S("2")}}},
            {
                "ConditionCheck": {
                    "TableName": plain,
                    "Key": KEY,
                    "ConditionExpression": "v = :one",
                    "ExpressionAttributeValues": {":one": N("1")},
                }
            },
        ],
    )
    by_table = {entry["TableName"]: entry for entry in response}
    assert by_table[table] == transactional(table, 2, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})
    assert by_table[plain] == transactional(plain, 4)


def test_a_same_token_replay_reports_reads_of_what_the_first_call_was_sized_on(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(
            "DynamoDB Local reports a replay as 2 read units whatever the items (docs/compatibility.md)"
        )
    put(ddb, table, {**FULL, "SK": S("9"), "blob": S("x" * 9000)})  # about 9 KB
    actions = [
        {"Put": {"TableName": table, "Item": {**FULL, "blob": S("x" * 1500)}}},  # about 1.6 KB
        {"Delete": {"TableName": table, "Key": {**KEY, "SK": S("9")}}},
    ]
    first = transact(ddb, actions, ClientRequestToken="replay-1")
    assert first == [transactional(table, 4 + 18, {"GSI1": 2 + 9, "GSI2": 2}, {"LSI1": 2})]
    again = transact(ddb, actions, ClientRequestToken="replay-1")
    # 2 x ceil(1.6 KB / 4 KB) + 2 x ceil(9 KB / 4 KB): reads of the stored result, no index arm.
    assert again == [
        {
            "TableName": table,
            "CapacityUnits": 8.0,
            "ReadCapacityUnits": 8.0,
            "Table": {"CapacityUnits": 8.0, "ReadCapacityUnits": 8.0},
        }
    ]
    total = transact(ddb, actions, "TOTAL", ClientRequestToken="replay-1")
    assert total == [{"TableName": table, "CapacityUnits": 8.0, "ReadCapacityUnits": 8.0}]


# -- PartiQL ------------------------------------------------------------------------------------------------


def statement(ddb: Any, text: str, mode: str = "INDEXES") -> Any:
    return ddb.execute_statement(Statement=text, ReturnConsumedCapacity=mode).get("ConsumedCapacity")


def test_execute_statement_writes_cost_what_the_item_operations_cost(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_NO_PARTIQL_CAPACITY)
    inserted = statement(
        ddb,
        f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '1', 'G1PK': 'g', 'G1SK': 1, 'G2PK': 'h', "
        f"'L1SK': 'l', 'extra': 'e'}}",
    )
    assert inserted == indexes(table, 1, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})
    same = statement(ddb, f"UPDATE \"{table}\" SET G1PK = 'g' WHERE PK = 'a' AND SK = '1'")
    assert same == indexes(table, 1)
    moved = statement(ddb, f"UPDATE \"{table}\" SET G1PK = 'g2' WHERE PK = 'a' AND SK = '1'")
    assert moved == indexes(table, 1, {"GSI1": 2})
    removed = statement(ddb, f"UPDATE \"{table}\" REMOVE G2PK WHERE PK = 'a' AND SK = '1'")
    assert removed == indexes(table, 1, {"GSI1": 1, "GSI2": 1})
    deleted = statement(ddb, f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = '1'", "TOTAL")
    assert deleted == {"TableName": table, "CapacityUnits": 3.0}


def test_batch_execute_statement_sums_index_arms_per_table(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_NO_PARTIQL_CAPACITY)
    put(ddb, table, FULL)
    response = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"UPDATE \"{table}\" SET G1SK = 2 WHERE PK = 'a' AND SK = '1'"},
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '2', 'G2PK': 'h'}}"},
        ],
        ReturnConsumedCapacity="INDEXES",
    )
    assert [entry.get("Error") for entry in response["Responses"]] == [None, None]
    assert response["ConsumedCapacity"] == [indexes(table, 2, {"GSI1": 2, "GSI2": 1})]


def test_execute_transaction_doubles_the_table_arm_only(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_NO_PARTIQL_CAPACITY)
    put(ddb, table, {**FULL, "SK": S("0")})
    response = ddb.execute_transaction(
        TransactStatements=[
            {
                "Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '1', 'G1PK': 'g', 'G1SK': 1, "
                "'G2PK': 'h', 'L1SK': 'l'}"
            },
            # AWS requires a condition beyond the key (Parity Suite)
            {"Statement": f"EXISTS(SELECT * FROM \"{table}\" WHERE PK = 'a' AND SK = '0' AND G1PK = 'g')"},
        ],
        ReturnConsumedCapacity="INDEXES",
    )
    assert response["ConsumedCapacity"] == [transactional(table, 4, {"GSI1": 1, "GSI2": 1}, {"LSI1": 1})]


def test_batch_execute_statement_bills_attempted_writes_on_tables_with_a_success(
    ddb: Any, table: str, table_name: str
) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_NO_PARTIQL_CAPACITY)
    plain = create(ddb, table_name + "p")
    put(ddb, table, {**FULL, "blob": S("x" * 2500)})  # 3 units
    put(ddb, plain, KEY)
    response = ddb.batch_execute_statement(
        Statements=[
            # An INSERT of an existing item: billed on the larger of the stored (3 units) and carried items.
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '1'}}"},
            # An UPDATE of a missing item fails its implied condition: 1 unit.
            {"Statement": f"UPDATE \"{table}\" SET spare = 'x' WHERE PK = 'a' AND SK = '3'"},
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '2'}}"},
            # Every statement on this table fails: it has no line at all.
            {"Statement": f"INSERT INTO \"{plain}\" VALUE {{'PK': 'a', 'SK': '1'}}"},
        ],
        ReturnConsumedCapacity="INDEXES",
    )
    codes = [entry.get("Error", {}).get("Code") for entry in response["Responses"]]
    assert codes == ["DuplicateItem", "ConditionalCheckFailed", None, "DuplicateItem"]
    assert response["ConsumedCapacity"] == [indexes(table, 5)]
    total = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '4'}}"},
            {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = '1' AND spare = 'never'"},
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    assert total["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 4.0}]
    # Nothing succeeded: no capacity at all.
    failed = ddb.batch_execute_statement(
        Statements=[{"Statement": f"INSERT INTO \"{plain}\" VALUE {{'PK': 'a', 'SK': '1'}}"}],
        ReturnConsumedCapacity="TOTAL",
    )
    assert "ConsumedCapacity" not in failed


def test_an_execute_transaction_replay_reports_reads(ddb: Any, table: str) -> None:
    if ddb.is_reference:
        pytest.skip(LOCAL_NO_PARTIQL_CAPACITY)
    statements = [
        {"Statement": f"UPDATE \"{table}\" SET n = 1 WHERE PK = 'a' AND SK = '1'"},
        {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': '2', 'G2PK': 'h'}}"},
    ]
    put(ddb, table, {**KEY, "blob": S("x" * 1500)})  # about 1.5 KB: 2 write units, 1 read unit
    params = {
        "TransactStatements": statements,
        "ClientRequestToken": "exec-1",
        "ReturnConsumedCapacity": "TOTAL",
    }
    first = ddb.execute_transaction(**params)["ConsumedCapacity"]
    assert first == [{"TableName": table, "CapacityUnits": 7.0, "WriteCapacityUnits": 7.0}]
    again = ddb.execute_transaction(**params)["ConsumedCapacity"]
    assert again == [{"TableName": table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}]
    item = ddb.get_item(TableName=table, Key={**KEY, "SK": S("2")})["Item"]
    assert item == {**KEY, "SK": S("2"), "G2PK": S("h")}
