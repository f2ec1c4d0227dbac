"""PartiQL (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction) against every backend.

Where DynamoDB Local words something differently from AWS, ``ddb.error(..., local=...)`` carries Local's
text; docs/compatibility.md records each case.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import create, table_fixtures

from draws import examples
from singletable.engine import DynamoDBError
from singletable.engine._partiql import parse_statement

MALFORMED = "Statement wasn't well formed, can't be processed: "


def S(value: str) -> dict[str, str]:
    return {"S": value}


def N(value: str) -> dict[str, str]:
    return {"N": value}


def _make_table(ddb: Any, name: str) -> None:
    """PK (S) / SK (N) with a GSI; partition 'a' holds SK 0..4, partition 'b' holds SK 1."""
    create(ddb, name, sk_type="N", gsi=True)
    for i in range(5):
        ddb.put_item(
            TableName=name,
            Item={
                "PK": S("a"),
                "SK": N(str(i)),
                "x": N(str(i * 10)),
                "G1PK": S("g"),
                "G1SK": N(str(i)),
                "m": {"M": {"k": {"L": [S("v")]}}},
            },
        )
    ddb.put_item(TableName=name, Item={"PK": S("b"), "SK": N("1")})


# ``shared``: for the tests that only read the table or send statements it refuses
table, shared = table_fixtures(_make_table)


def sks(response: dict[str, Any]) -> list[str]:
    return [item["SK"]["N"] for item in response["Items"]]


def run(ddb: Any, statement: str, **params: Any) -> dict[str, Any]:
    return ddb.execute_statement(Statement=statement, **params)


# -- SELECT -------------------------------------------------------------------------------------------------


def test_select_query_and_scan(ddb: Any, shared: str) -> None:
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a'")) == ["0", "1", "2", "3", "4"]
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND SK > 2")) == ["3", "4"]
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND SK BETWEEN 1 AND 2")) == ["1", "2"]
    assert sks(run(ddb, f"select * from \"{shared}\" where PK = 'a' and SK = 1;")) == ["1"]
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' ORDER BY SK DESC")) == [
        "4",
        "3",
        "2",
        "1",
        "0",
    ]
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND (SK = 1 OR SK = 3)")) == ["1", "3"]
    assert sks(run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND SK IN [1, 2]")) == ["1", "2"]
    both = run(ddb, f"SELECT PK, SK FROM \"{shared}\" WHERE PK IN ['a', 'b'] AND SK = 1")["Items"]
    assert sorted(item["PK"]["S"] for item in both) == ["a", "b"]
    scanned = run(ddb, f'SELECT * FROM "{shared}" WHERE x > 20')
    assert sorted(sks(scanned)) == ["3", "4"]
    assert sks(run(ddb, f'SELECT * FROM "{shared}" WHERE x IS MISSING')) == ["1"]
    assert sorted(sks(run(ddb, f'SELECT * FROM "{shared}" WHERE x IS NOT MISSING AND x <> 10'))) == [
        "0",
        "2",
        "3",
        "4",
    ]
    assert sks(run(ddb, f'SELECT * FROM "{shared}"')) != []


def test_select_projection_and_index(ddb: Any, shared: str) -> None:
    response = run(ddb, f'SELECT x, m.k[0], "SK" FROM "{shared}" WHERE PK = \'a\' AND SK = 2')
    assert response["Items"] == [{"x": N("20"), "k[0]": S("v"), "SK": N("2")}]
    on_index = run(ddb, f'SELECT * FROM "{shared}"."GSI1" WHERE G1PK = \'g\' AND G1SK >= 3')
    assert sks(on_index) == ["3", "4"]
    functions = run(
        ddb,
        f"SELECT SK FROM \"{shared}\" WHERE PK = 'a' AND size(m) = 1 AND attribute_type(x, 'N')"
        " AND contains(m.k, 'v') AND NOT x IN [0, 10]",
    )
    assert sks(functions) == ["2", "3", "4"]


def test_select_parameters(ddb: Any, shared: str) -> None:
    response = run(ddb, f'SELECT * FROM "{shared}" WHERE PK = ? AND SK > ?', Parameters=[S("a"), N("3")])
    assert sks(response) == ["4"]
    with ddb.error("ValidationException", "Number of parameters in request and statement don't match."):
        run(ddb, f'SELECT * FROM "{shared}" WHERE PK = ?')


def test_select_pagination(ddb: Any, shared: str) -> None:
    seen: list[str] = []
    params: dict[str, Any] = {"Limit": 2}
    pages = 0
    while True:
        response = run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a'", **params)
        seen += sks(response)
        pages += 1
        if "NextToken" not in response:
            break
        params["NextToken"] = response["NextToken"]
    assert seen == ["0", "1", "2", "3", "4"]
    assert pages >= 3
    with ddb.error("ValidationException", "Invalid NextToken"):
        run(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a'", NextToken="garbage")


def test_select_consumed_capacity(ddb: Any, shared: str) -> None:
    response = run(
        ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a'", ReturnConsumedCapacity="TOTAL", ConsistentRead=True
    )
    if not ddb.is_reference:  # DynamoDB Local leaves ConsumedCapacity out of ExecuteStatement
        assert response["ConsumedCapacity"] == {"TableName": shared, "CapacityUnits": 1.0}


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            'SELECT * FROM "{t}" ORDER BY SK DESC',
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        ),
        (
            'SELECT * FROM "{t}" WHERE x = 1 ORDER BY SK',
            "Must have at least one non-optional hash key condition in WHERE clause "
            "when using ORDER BY clause.",
        ),
        (
            "SELECT * FROM \"{t}\" WHERE PK = 'a' ORDER BY x",
            "Variable reference x in ORDER BY clause must be part of the primary key",
        ),
        ('SELECT * FROM "{t}"."nope"', "The table does not have the specified index"),
        ('SELECT count(*) FROM "{t}"', "Unexpected path component at 1:8:5"),
        ("SELECT * FROM \"{t}\" WHERE PK = 'a' LIMIT 1", None),
        ("SELECT x, x FROM \"{t}\" WHERE PK = 'b'", "Duplicate identifiers in select clause: x"),
        ("SELECT * FROM \"{t}\" AS q WHERE PK = 'b'", "Aliasing is not supported"),
        ('SELECT DISTINCT x FROM "{t}"', "Unsupported token in expression: DISTINCT"),
        ('SELECT VALUE x FROM "{t}"', "Select projection doesn't support value or pivot keywords"),
        ("SELECT x FROM \"{t}\" WHERE PK = 'b' GROUP BY x", "Unsupported clause: GROUP BY"),
        (
            'SELECT * FROM "{t}" WHERE PK = 1',
            "Key attribute's data type should match its data type in table's schema: Key PK",
        ),
        ('SELECT * FROM "{t}" WHERE x = MISSING', "MISSING must be compared using IS operator"),
        ('SELECT * FROM "{t}" WHERE x = 1 AND true', "The arguments to AND/OR must be Expressions"),
        (
            'SELECT * FROM "{t}" WHERE x IN []',
            "IN operator must have a left hand argument of type Variable Reference and right hand argument "
            "of type "
            "Seq with at least one member",
        ),
        ('SELECT * FROM "{t}" WHERE x + 1 = 2', "Unsupported operator in Condition Expression. Operator: +"),
        ('SELECT * FROM "{t}" WHERE exists(x)', "Unrecognized function: exists at 1:{w}:6"),
        ("SELEC", "Unsupported operation: VariableReference"),
        ("1", "Unsupported operation: Literal"),
        (
            "EXISTS(SELECT * FROM \"{t}\" WHERE PK = 'a' AND SK = 1)",
            "EXISTS can only be used in ExecuteTransaction write requests.",
        ),
    ],
)
def test_statement_errors(ddb: Any, shared: str, statement: str, message: str | None) -> None:
    text = statement.format(t=shared)
    if message is None:
        message = f"Unsupported clause: LIMIT at 1:{text.index('LIMIT') + 7}:1"
    if "WHERE" in text:
        message = message.replace("{w}", str(text.index("WHERE") + 7))
    # DynamoDB Local appends the index's name and leaves out a function's position (docs/compatibility.md)
    local = {
        "The table does not have the specified index": "The table does not have the specified index: nope",
    }.get(message, message.split(" at ")[0] if message.startswith("Unrecognized") else None)
    with ddb.error("ValidationException", message, local=local):
        run(ddb, text)


@pytest.mark.parametrize(
    ("statement", "detail"),
    [
        ('SELECT * FROM "{t}" WHERE', "Unexpected term"),
        ('SELEC * FROM "{t}"', "Expected data manipulation"),
        ('SELECT * FROM "{t}" WHERE x = \'open', ""),
        ('SELECT * FROM "{t}"; SELECT 1', "Unexpected token after semicolon. (Only one query is allowed.)"),
        ('SELECT * FROM "{t}" WHERE x IS NUMBER', "Expected type name"),
        ("   ", "Unexpected term"),
    ],
)
def test_malformed(ddb: Any, shared: str, statement: str, detail: str) -> None:
    """AWS names what the parser found; DynamoDB Local echoes the statement (docs/compatibility.md)."""
    text = statement.format(t=shared)
    with ddb.error("ValidationException", MALFORMED + detail, local=MALFORMED + text):
        run(ddb, text)


def test_missing_table(ddb: Any) -> None:
    with ddb.error("ResourceNotFoundException", "Cannot do operations on a non-existent table"):
        run(ddb, 'SELECT * FROM "no_such_table"')
    with ddb.error("ResourceNotFoundException", "Cannot do operations on a non-existent table"):
        run(ddb, "INSERT INTO \"no_such_table\" VALUE {'PK': 'a'}")


# -- INSERT / UPDATE / DELETE -------------------------------------------------------------------------------


def test_insert(ddb: Any, table: str) -> None:
    run(
        ddb,
        f"INSERT INTO \"{table}\" VALUE {{'PK': 'n', 'SK': 1, 'ss': <<'a', 'b'>>, 'ns': <<1, 2>>, "
        "'l': [1, 'x', true, null], 'm': {'a': {'b': -1.5}}, 'p': ?}",
        Parameters=[{"B": b"\x01"}],
    )
    item = ddb.get_item(TableName=table, Key={"PK": S("n"), "SK": N("1")})["Item"]
    assert item == {
        "PK": S("n"),
        "SK": N("1"),
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "l": {"L": [N("1"), S("x"), {"BOOL": True}, {"NULL": True}]},
        "m": {"M": {"a": {"M": {"b": N("-1.5")}}}},
        "p": {"B": b"\x01"},
    }
    code = "DuplicateItem" if ddb.is_reference else "DuplicateItemException"
    with ddb.error(code, "Duplicate primary key exists in table"):
        run(ddb, f"INSERT INTO \"{table}\" VALUE {{'PK': 'n', 'SK': 1}}")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{'SK': 1}", "Key attribute should be present in the item: Key PK"),
        (
            "{'PK': 1, 'SK': 1}",
            "Key attribute's data type should match its data type in table's schema: Key PK",
        ),
        ("{'PK': 'a', 'SK': 9, 'x': MISSING}", "Unsupported data type: MISSING under key root at 1:{at}:7"),
        ("{'PK': 'a', 'SK': 9, 'x': <<>>}", "Empty bags are not supported at 1:{at}:2"),
        (
            "{'PK': 'a', 'SK': 9, 'x': <<1, 'a'>>}",
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags",
        ),
        ("{'PK': 'a', 'SK': 9, 'x': <<1, 1>>}", "Input collection contains duplicates"),
        ("{'PK': 'a', 'SK': 9, 'PK': 'b'}", "Duplicate keys in tuple. Key: PK under root at 1:{dup}:4"),
    ],
)
def test_insert_errors(ddb: Any, shared: str, value: str, message: str) -> None:
    text = f'INSERT INTO "{shared}" VALUE {value}'
    at = text.index(": ", text.index("'x'")) + 3 if "'x'" in text else 0
    dup = text.rindex("'PK'") + 1 if "'PK'" in text else 0
    with ddb.error("ValidationException", message.format(at=at, dup=dup)):
        run(ddb, text)


def test_update(ddb: Any, table: str) -> None:
    response = run(
        ddb,
        f"UPDATE \"{table}\" SET x = x + 1, y = ? REMOVE m WHERE PK = 'a' AND SK = 1 RETURNING ALL NEW *",
        Parameters=[S("why")],
    )
    assert response["Items"] == [
        {"PK": S("a"), "SK": N("1"), "x": N("11"), "y": S("why"), "G1PK": S("g"), "G1SK": N("1")}
    ]
    response = run(ddb, f"UPDATE \"{table}\" SET x = 5 WHERE PK = 'a' AND SK = 1 RETURNING MODIFIED OLD *")
    assert response["Items"] == [{"x": N("11")}]
    assert run(ddb, f"UPDATE \"{table}\" SET s = <<'p'>> WHERE PK = 'b' AND SK = 1") == {"Items": []}
    run(
        ddb,
        f"UPDATE \"{table}\" SET s = set_add(s, <<'q'>>) SET l = list_append([0], [1]) "
        f"WHERE PK = 'b' AND SK = 1",
    )
    run(ddb, f"UPDATE \"{table}\" SET s = set_delete(s, <<'p'>>) WHERE PK = 'b' AND SK = 1 AND l[1] = 1")
    item = ddb.get_item(TableName=table, Key={"PK": S("b"), "SK": N("1")})["Item"]
    assert item["s"] == {"SS": ["q"]} and item["l"] == {"L": [N("0"), N("1")]}


def test_update_conditions(ddb: Any, table: str) -> None:
    with ddb.error("ConditionalCheckFailedException", "The conditional request failed") as info:
        run(
            ddb,
            f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 1 AND x = 99",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert info.value.item is not None and info.value.item["x"] == N("10")
    with ddb.error("ConditionalCheckFailedException", "The conditional request failed"):
        run(ddb, f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'zz' AND SK = 1")
    with ddb.error(
        "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"
    ):
        run(ddb, f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a'")
    with ddb.error(
        "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"
    ):
        run(ddb, f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' OR SK = 1")
    with ddb.error(
        "ValidationException",
        "Multiple conditions on same key SK. Only single item Update/Insert/Delete are supported",
    ):
        run(ddb, f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 1 AND SK = 2")
    with ddb.error(
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute SK. This attribute is part of "
        "the key",
    ):
        run(ddb, f"UPDATE \"{table}\" SET SK = 3 WHERE PK = 'a' AND SK = 1")
    with ddb.error(
        "ValidationException", "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"
    ):
        run(ddb, f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 1 RETURNING ALL OLD x")


def test_delete(ddb: Any, table: str) -> None:
    assert run(ddb, f"DELETE FROM \"{table}\" WHERE PK = 'zz' AND SK = 1") == {"Items": []}
    with ddb.error("ConditionalCheckFailedException", "The conditional request failed"):
        run(ddb, f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 1 AND x = 5")
    response = run(ddb, f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 1 AND x = 10 RETURNING ALL OLD *")
    assert response["Items"][0]["x"] == N("10")
    assert "Item" not in ddb.get_item(TableName=table, Key={"PK": S("a"), "SK": N("1")})
    with ddb.error(
        "ValidationException",
        "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE "
        "statements.",
    ):
        run(ddb, f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 2 RETURNING ALL NEW *")


# -- BatchExecuteStatement ----------------------------------------------------------------------------------


def test_batch_reads(ddb: Any, table: str) -> None:
    response = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"SELECT * FROM \"{table}\" WHERE PK = 'b' AND SK = 1"},
            {"Statement": f'SELECT x FROM "{table}" WHERE PK = ? AND SK = ?', "Parameters": [S("a"), N("2")]},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE PK = 'zz' AND SK = 1"},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE PK = 'a'"},
            {"Statement": "SELECT * FROM \"no_such_table\" WHERE PK = 'a' AND SK = 1"},
            {"Statement": "SELEC"},
            {"Statement": f'SELECT * FROM "{table}" WHERE'},
        ]
    )
    local = ddb.is_reference  # DynamoDB Local echoes a malformed statement (docs/compatibility.md)
    where = f'SELECT * FROM "{table}" WHERE'
    assert response["Responses"] == [
        {"TableName": table, "Item": {"PK": S("b"), "SK": N("1")}},
        {"TableName": table, "Item": {"x": N("20")}},
        {"TableName": table},
        {"Error": {"Code": "ValidationError", "Message": "Only single item select is supported"}},
        {"Error": {"Code": "ResourceNotFound", "Message": "Cannot do operations on a non-existent table"}},
        {
            "Error": {
                "Code": "ValidationError",
                "Message": "Invalid operation. Only select, insert, update and delete operations are valid",
            }
        },
        {"Error": {"Code": "ValidationError", "Message": MALFORMED + ("Unexpected term", where)[local]}},
    ]


def test_batch_writes(ddb: Any, table: str) -> None:
    response = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': 0}}"},
            {"Statement": f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 1 AND x = 9"},
            {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 2"},
            {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'c', 'SK': 0}}"},
            {"Statement": f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a'"},
            {"Statement": f"UPDATE \"{table}\" SET x = 7 WHERE PK = 'a' AND SK = 3 RETURNING ALL NEW *"},
        ]
    )
    assert response["Responses"][:5] == [
        {
            "Error": {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"},
            "TableName": table,
        },
        {
            "Error": {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
            "TableName": table,
        },
        {"TableName": table},
        {"TableName": table},
        {
            "Error": {
                "Code": "ValidationError",
                "Message": "Where clause does not contain a mandatory equality on all key attributes",
            }
        },
    ]
    assert response["Responses"][5]["Item"]["x"] == N("7")
    assert "Item" not in ddb.get_item(TableName=table, Key={"PK": S("a"), "SK": N("2")})


def test_batch_request_errors(ddb: Any, table: str) -> None:
    read = {"Statement": f"SELECT * FROM \"{table}\" WHERE PK = 'b' AND SK = 1"}
    write = {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'b' AND SK = 1"}
    with ddb.error(
        "ValidationException", "Read and write requests together in the same batch is not supported."
    ):
        ddb.batch_execute_statement(Statements=[read, write])
    with ddb.error("ValidationException", "Provided list of item keys contains duplicates"):
        ddb.batch_execute_statement(Statements=[read, read])
    with ddb.error("ValidationException"):
        ddb.batch_execute_statement(Statements=[read] * 26)


# -- ExecuteTransaction -------------------------------------------------------------------------------------


def test_transaction_writes(ddb: Any, table: str) -> None:
    assert (
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 't', 'SK': 1}}"},
                {"Statement": f"UPDATE \"{table}\" SET x = x + 1 WHERE PK = 'a' AND SK = 1"},
                {"Statement": f"EXISTS(SELECT * FROM \"{table}\" WHERE PK = 'a' AND SK = 2 AND x = 20)"},
                {
                    "Statement": f'DELETE FROM "{table}" WHERE PK = ? AND SK = ?',
                    "Parameters": [S("b"), N("1")],
                },
            ]
        )["Responses"]
        == []
    )
    assert ddb.get_item(TableName=table, Key={"PK": S("a"), "SK": N("1")})["Item"]["x"] == N("11")
    assert "Item" not in ddb.get_item(TableName=table, Key={"PK": S("b"), "SK": N("1")})


def test_transaction_cancelled(ddb: Any, table: str) -> None:
    message = (
        "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[ValidationError, ConditionalCheckFailed, None]"
    )
    with ddb.error("TransactionCanceledException", message) as info:
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': 'a', 'SK': 0}}"},
                {"Statement": f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 1 AND x = 99"},
                {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 2"},
            ]
        )
    reasons = info.value.extra["CancellationReasons"]
    assert reasons[0] == {"Code": "ValidationError", "Message": "Duplicate primary key exists in table"}
    assert reasons[1]["Code"] == "ConditionalCheckFailed" and reasons[2] == {"Code": "None"}
    assert ddb.get_item(TableName=table, Key={"PK": S("a"), "SK": N("2")})["Item"]["x"] == N("20")


def test_transaction_reads_and_errors(ddb: Any, table: str) -> None:
    response = ddb.execute_transaction(
        TransactStatements=[
            {"Statement": f"SELECT x FROM \"{table}\" WHERE PK = 'a' AND SK = 3"},
            {"Statement": f"SELECT * FROM \"{table}\" WHERE PK = 'zz' AND SK = 3"},
        ]
    )
    assert response["Responses"] == [{"Item": {"x": N("30")}}, {}]
    with ddb.error(
        "ValidationException",
        "ExecuteTransaction API does not support both read and write operations in the same request.",
    ):
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"SELECT x FROM \"{table}\" WHERE PK = 'a' AND SK = 3"},
                {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 2"},
            ]
        )
    with ddb.error(
        "ValidationException",
        "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must "
        "specify the primary key in the where clause.",
    ):
        ddb.execute_transaction(TransactStatements=[{"Statement": f'SELECT * FROM "{table}"'}])
    with ddb.error(
        "ValidationException", "Transaction request cannot include multiple operations on one item"
    ):
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"UPDATE \"{table}\" SET x = 1 WHERE PK = 'a' AND SK = 2"},
                {"Statement": f"DELETE FROM \"{table}\" WHERE PK = 'a' AND SK = 2"},
            ]
        )
    with ddb.error("ResourceNotFoundException", "Requested resource not found"):
        ddb.execute_transaction(
            TransactStatements=[{"Statement": "INSERT INTO \"no_such_table\" VALUE {'PK': 'a'}"}]
        )


# -- the parser on random input -----------------------------------------------------------------------------

_WORDS = [
    "SELECT",
    "*",
    "FROM",
    '"t"',
    "WHERE",
    "a",
    "=",
    "'x'",
    "1",
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<<",
    ">>",
    ",",
    ":",
    "?",
    ".",
    "IS",
    "MISSING",
    "NULL",
    "IN",
    "BETWEEN",
    "INSERT",
    "INTO",
    "VALUE",
    "UPDATE",
    "SET",
    "REMOVE",
    "DELETE",
    "EXISTS",
    "ORDER",
    "BY",
    "DESC",
    "RETURNING",
    "ALL",
    "NEW",
    "+",
    "-",
    "begins_with",
    "size",
    "`1`",
    ";",
    '"',
    "'",
]


@settings(max_examples=examples(400), deadline=None)
@given(
    st.one_of(
        st.text(alphabet=string.printable, max_size=80),
        st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join),
    )
)
def test_parser_only_raises_dynamodb_errors(text: str) -> None:
    try:
        parse_statement(text)
    except DynamoDBError:
        pass


def test_parser_deep_nesting() -> None:
    with pytest.raises(DynamoDBError):
        parse_statement("SELECT * FROM t WHERE " + "(" * 5000 + "a = 1" + ")" * 5000)
