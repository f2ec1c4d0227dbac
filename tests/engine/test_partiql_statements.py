"""PartiQL statements and refusals, on every backend.

The FROM-first UPDATE (``FROM t WHERE ... SET ...``), a boolean function compared with TRUE, and the
refusals AWS words its own way: numbers that break DynamoDB's rules (named by their place in the value),
``set_add``/``set_delete`` misuse, RETURNING and index reads in ExecuteTransaction. Each text was measured on
AWS (the Parity Suite records them); where DynamoDB Local departs, the skip or ``local=`` says so and
docs/compatibility.md records it.
"""

from __future__ import annotations

import pytest
from tables import create, table_fixtures

from backends import Backend

MALFORMED = "Statement wasn't well formed, can't be processed: "
LOCAL_WORDS = "DynamoDB Local words this error differently (docs/compatibility.md)"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
PARAMETER = "The parameter cannot be converted to a numeric value"
MEMBER = "Validation failed in TransactStatements[0]: "


def S(value: str) -> dict[str, str]:
    return {"S": value}


def _make_table(ddb: Backend, name: str) -> None:
    """PK/SK strings with a GSI; one item (a, 1) with a number, a string set and a map."""
    create(ddb, name, gsi=True)
    ddb.put_item(
        TableName=name,
        Item={"PK": S("a"), "SK": S("1"), "n": {"N": "1"}, "ss": {"SS": ["p"]}, "m": {"M": {"k": S("v")}}},
    )


# ``shared``: for the tests that read the table or send statements it refuses
table, shared = table_fixtures(_make_table)


def item(ddb: Backend, table: str, pk: str = "a", sk: str = "1") -> dict | None:
    return ddb.get_item(TableName=table, Key={"PK": S(pk), "SK": S(sk)}, ConsistentRead=True).get("Item")


def aws_only(ddb: Backend, reason: str = LOCAL_WORDS) -> None:
    if ddb.is_reference:
        pytest.skip(reason)


# -- FROM-first UPDATE ---------------------------------------------------------------------------------------


def test_from_first_update(ddb: Backend, table: str) -> None:
    ddb.execute_statement(Statement=f"FROM \"{table}\" WHERE PK = 'a' AND SK = '1' SET c = 1 REMOVE n")
    assert item(ddb, table) == {
        "PK": S("a"),
        "SK": S("1"),
        "c": {"N": "1"},
        "ss": {"SS": ["p"]},
        "m": {"M": {"k": S("v")}},
    }
    response = ddb.execute_statement(
        Statement=f'from "{table}" where PK = ? and SK = ? set d = ? returning modified new *',
        Parameters=[S("a"), S("1"), S("x")],
    )
    assert response["Items"] == [{"d": S("x")}]


def test_from_first_update_conditions(ddb: Backend, table: str) -> None:
    with ddb.error("ConditionalCheckFailedException"):
        ddb.execute_statement(Statement=f"FROM \"{table}\" WHERE PK = 'a' AND SK = '1' AND n = 2 SET c = 5")
    with ddb.error("ConditionalCheckFailedException"):
        ddb.execute_statement(Statement=f"FROM \"{table}\" WHERE PK = 'zz' AND SK = '1' SET c = 5")
    assert item(ddb, table, "zz") is None
    assert "c" not in (item(ddb, table) or {})
    ddb.execute_statement(Statement=f"FROM \"{table}\" WHERE PK = 'a' AND SK = '1' AND n = 1 SET c = 5")
    assert (item(ddb, table) or {})["c"] == {"N": "5"}


def test_from_first_update_refusals(ddb: Backend, shared: str) -> None:
    aws_only(ddb)
    key_equality = "Where clause does not contain a mandatory equality on all key attributes"
    with ddb.error("ValidationException", key_equality):
        ddb.execute_statement(Statement=f'FROM "{shared}" SET c = 1')
    with ddb.error("ValidationException", key_equality):
        ddb.execute_statement(Statement=f'FROM "{shared}" WHERE n = 1 SET c = 1')
    with ddb.error("ValidationException", MALFORMED + "Unexpected token after expression"):
        ddb.execute_statement(Statement=f"FROM \"{shared}\" SET c = 1 WHERE PK = 'a' AND SK = '1'")
    with ddb.error("ResourceNotFoundException", "Requested resource not found"):
        ddb.execute_statement(Statement=f"FROM \"{shared}-none\" WHERE PK = 'a' AND SK = '1' SET c = 1")
    with ddb.error("ValidationException", "This operation is not supported on an index"):
        ddb.execute_statement(Statement=f"FROM \"{shared}\".\"GSI1\" WHERE PK = 'a' AND SK = '1' SET c = 1")


def test_from_first_update_in_batches_and_transactions(ddb: Backend, table: str) -> None:
    statement = f"FROM \"{table}\" WHERE PK = 'a' AND SK = '1' SET c = 1"
    ddb.execute_transaction(TransactStatements=[{"Statement": statement}])
    assert (item(ddb, table) or {})["c"] == {"N": "1"}
    response = ddb.batch_execute_statement(Statements=[{"Statement": statement.replace("c = 1", "c = 2")}])
    assert "Error" not in response["Responses"][0]
    assert (item(ddb, table) or {})["c"] == {"N": "2"}


# -- transactions --------------------------------------------------------------------------------------------


def test_transaction_refuses_returning(ddb: Backend, shared: str) -> None:
    statement = f"UPDATE \"{shared}\" SET c = 1 WHERE PK = 'a' AND SK = '1' RETURNING ALL NEW *"
    with ddb.error(
        "ValidationException", MEMBER + "RETURNING clause is not supported in ExecuteTransaction."
    ):
        ddb.execute_transaction(TransactStatements=[{"Statement": statement}])
    assert "c" not in (item(ddb, shared) or {})


def test_transaction_refuses_index_reads(ddb: Backend, shared: str) -> None:
    with ddb.error("ValidationException", MEMBER + "Reads on indices are not supported within transactions."):
        ddb.execute_transaction(
            TransactStatements=[{"Statement": f'SELECT * FROM "{shared}"."GSI1" WHERE G1PK = \'g\''}]
        )


def test_exists_needs_a_further_condition(ddb: Backend, shared: str) -> None:
    message = MEMBER + "EXISTS() must contain a single item read with additional condition"
    with ddb.error("ValidationException", message):
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"EXISTS(SELECT * FROM \"{shared}\" WHERE PK = 'a' AND SK = '1')"},
                {"Statement": f"UPDATE \"{shared}\" SET c = 1 WHERE PK = 'a' AND SK = '2'"},
            ]
        )


def test_batch_select_on_a_non_key_condition(ddb: Backend, shared: str) -> None:
    aws_only(ddb)
    statement = f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND SK = '1' AND attribute_exists(ss)"
    response = ddb.batch_execute_statement(Statements=[{"Statement": statement}])
    assert response["Responses"] == [
        {
            "Error": {
                "Code": "ValidationError",
                "Message": "Select statements within BatchExecuteStatement must specify the primary key "
                "in the where clause.",
            }
        }
    ]


# -- conditions ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "found"),
    [
        ("attribute_exists(ss) = true", True),
        ("true = attribute_exists(ss)", True),
        ("attribute_exists(ss) = false", False),
        ("attribute_exists(nope) <> true", True),
        ("begins_with(SK, '1') = TRUE", True),
    ],
)
def test_boolean_function_compared_with_a_boolean(
    ddb: Backend, shared: str, condition: str, found: bool
) -> None:
    if "begins_with" in condition:
        aws_only(ddb, "DynamoDB Local refuses begins_with compared with a boolean (docs/compatibility.md)")
    items = ddb.execute_statement(Statement=f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND {condition}")[
        "Items"
    ]
    assert len(items) == (1 if found else 0)


def test_delete_of_a_missing_item_with_a_condition_is_a_no_op(ddb: Backend, shared: str) -> None:
    aws_only(
        ddb, "DynamoDB Local fails the condition of a DELETE whose item is absent (docs/compatibility.md)"
    )
    ddb.execute_statement(Statement=f"DELETE FROM \"{shared}\" WHERE PK = 'zz' AND SK = '1' AND n = 1")
    with ddb.error("ConditionalCheckFailedException"):
        ddb.execute_statement(Statement=f"DELETE FROM \"{shared}\" WHERE PK = 'a' AND SK = '1' AND n = 2")
    assert item(ddb, shared) is not None


# -- numbers -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e126", f"{OVERFLOW} under root"),
        ("1e-131", f"{UNDERFLOW} under root"),
        ("{'x': 1e126}", f"{OVERFLOW} under root.x"),
        ("{'x': {'y': [1, 1e126]}}", f"{OVERFLOW} under root.x.y[1]"),
        ("[1, 1e126]", f"{OVERFLOW} under root[1]"),
        (
            "123456789012345678901234567890123456789",
            "Attempting to store more than 38 significant digits in a Number under root",
        ),
    ],
)
def test_number_literals_name_their_place(ddb: Backend, shared: str, value: str, message: str) -> None:
    aws_only(ddb)
    with ddb.error("ValidationException", message):
        ddb.execute_statement(
            Statement=f"INSERT INTO \"{shared}\" VALUE {{'PK': 'b', 'SK': '1', 'v': {value}}}"
        )
    with ddb.error("ValidationException", message):
        ddb.execute_statement(Statement=f"UPDATE \"{shared}\" SET v = {value} WHERE PK = 'a' AND SK = '1'")
    assert item(ddb, shared, "b") is None


@pytest.mark.parametrize(
    ("parameter", "message"),
    [
        ({"N": "1e99999999999"}, f"{PARAMETER}: 1e99999999999"),
        ({"N": "-1e2147483648"}, f"{PARAMETER}: -1e2147483648"),
        ({"N": "abc"}, f"{PARAMETER}: abc"),
        ({"N": ""}, PARAMETER),
        ({"L": [{"N": "1"}, {"N": "1e99999999999"}]}, f"{PARAMETER}: 1e99999999999"),
        ({"M": {"a": {"NS": ["1", "x1"]}}}, f"{PARAMETER}: x1"),
        ({"N": "1e2147483647"}, UNDERFLOW),  # its magnitude wraps around 32 bits
        ({"N": "1e126"}, OVERFLOW),
    ],
)
def test_parameter_numbers(ddb: Backend, shared: str, parameter: dict, message: str) -> None:
    if message != OVERFLOW:
        aws_only(ddb)
    with ddb.error("ValidationException", message):
        ddb.execute_statement(
            Statement=f"UPDATE \"{shared}\" SET v = ? WHERE PK = 'a' AND SK = '1'", Parameters=[parameter]
        )
    with ddb.error("ValidationException", message):
        ddb.execute_transaction(
            TransactStatements=[
                {
                    "Statement": f"UPDATE \"{shared}\" SET v = ? WHERE PK = 'a' AND SK = '1'",
                    "Parameters": [parameter],
                }
            ]
        )


# -- set_add and set_delete ----------------------------------------------------------------------------------


def _update(table: str, assignment: str) -> str:
    return f"UPDATE \"{table}\" SET {assignment} WHERE PK = 'a' AND SK = '1'"


def _at(statement: str, token: str, length: int | None = None, start: int = 0) -> str:
    return f"1:{statement.index(token, start) + 1}:{len(token) if length is None else length}"


def test_set_functions(ddb: Backend, table: str) -> None:
    ddb.execute_statement(Statement=_update(table, "ss = set_add(ss, <<'q'>>)"))
    ddb.execute_statement(Statement=_update(table, "ss = set_delete(ss, <<'p'>>)"))
    assert (item(ddb, table) or {})["ss"] == {"SS": ["q"]}


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        (
            "t = set_add(ss, <<'x'>>)",
            "The first argument to SET_ADD must equal the assignment value at {set_add}",
        ),
        (
            "ss = set_add(<<'a'>>, <<'b'>>)",
            "The first argument to SET_ADD must equal the assignment value at {set_add}",
        ),
        (
            "t = set_delete(ss, <<'x'>>)",
            "The first argument to SET_DELETE must equal the assignment value at {set_delete}",
        ),
        ("ss = set_add(ss, 'x')", "The second argument to SET_ADD must be a value with type SET at {ss}"),
        (
            "ss = set_delete(ss, ['x'])",
            "The second argument to SET_DELETE must be a value with type SET at {ss}",
        ),
        ("ss = set_add(ss)", "SET_ADD must have exactly two arguments at {set_add}"),
        ("ss = set_add(ss, <<'x'>>, <<'y'>>)", "SET_ADD must have exactly two arguments at {set_add}"),
        ("ss = set_add(ss, <<>>)", "Empty bags are not supported"),
        (
            "ss = set_add(ss, <<'x', 'x'>>)",
            "One or more parameter values were invalid: Input collection [x, x] contains duplicates.",
        ),
    ],
)
def test_set_function_refusals(ddb: Backend, shared: str, assignment: str, message: str) -> None:
    if message.startswith(("The first", "Empty", "One or more")):
        aws_only(ddb)
    statement = _update(shared, assignment)
    call = statement.index("set_")
    name = statement[call : statement.index("(", call)]
    message = message.replace("{" + name + "}", _at(statement, name))
    if "{ss}" in message:  # the position of the first argument, not the second's
        message = message.replace("{ss}", _at(statement, "ss", 2, call))
    with ddb.error("ValidationException", message):
        ddb.execute_statement(Statement=statement)
    assert (item(ddb, shared) or {})["ss"] == {"SS": ["p"]}


def test_function_where_a_value_goes(ddb: Backend, shared: str) -> None:
    aws_only(ddb)
    statement = f"INSERT INTO \"{shared}\" VALUE {{'PK': 'b', 'SK': '1', 'ss': set_add(<<'a'>>, <<'b'>>)}}"
    with ddb.error(
        "ValidationException", f"Unsupported data type: set_add under key root at {_at(statement, 'set_add')}"
    ):
        ddb.execute_statement(Statement=statement)
    statement = f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND set_add(ss, <<'x'>>) = ss"
    with ddb.error("ValidationException", f"Unrecognized function: set_add at {_at(statement, 'set_add')}"):
        ddb.execute_statement(Statement=statement)
    statement = f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND attribute_exists()"
    with ddb.error(
        "ValidationException",
        "Incorrect number of operands for operator or function; operator or function: attribute_exists, "
        "number of operands: 0",
    ):
        ddb.execute_statement(Statement=statement)


# -- the FROM clause -----------------------------------------------------------------------------------------


def test_from_clause_refusals(ddb: Backend, shared: str) -> None:
    aws_only(ddb)
    with ddb.error("ValidationException", "A path may contain at most 2 components in the FROM clause"):
        ddb.execute_statement(Statement=f'SELECT * FROM "{shared}"."GSI1"."x"')
    with ddb.error("ValidationException", "Path component cannot be an empty string"):
        ddb.execute_statement(Statement=f'SELECT * FROM "{shared}".""')
    with ddb.error("ValidationException", "Path component cannot be an empty string"):
        ddb.execute_statement(Statement="SELECT * FROM \"\" WHERE PK = 'a'")  # before the table is looked up
    with ddb.error("ValidationException", "The table does not have the specified index"):
        ddb.execute_statement(Statement=f'SELECT * FROM "{shared}"."{shared}"')
    with ddb.error(
        "ValidationException", "Strongly consistent read is not supported on Global Secondary Indexes"
    ):
        ddb.execute_statement(
            Statement=f'SELECT * FROM "{shared}"."GSI1" WHERE G1PK = \'g\'', ConsistentRead=True
        )
    with ddb.error("ValidationException", "This operation is not supported on an index"):
        ddb.execute_statement(Statement=f"DELETE FROM \"{shared}\".\"GSI1\" WHERE PK = 'a' AND SK = '1'")
    statement = f"INSERT INTO \"{shared}\".\"GSI1\" VALUE {{'PK': 'b', 'SK': '1'}}"
    target = _at(statement, f'"{shared}"')
    with ddb.error("ValidationException", f"FROM clause may only contain a single table name at {target}"):
        ddb.execute_statement(Statement=statement)


# -- reads ---------------------------------------------------------------------------------------------------


def test_next_token_is_bound_to_the_index_it_was_read_from(ddb: Backend, table: str) -> None:
    for sk in ("2", "3"):
        ddb.put_item(TableName=table, Item={"PK": S("a"), "SK": S(sk), "G1PK": S("g"), "G1SK": {"N": sk}})
    first = ddb.execute_statement(Statement=f'SELECT * FROM "{table}"."GSI1" WHERE G1PK = \'g\'', Limit=1)
    assert len(first["Items"]) == 1 and "NextToken" in first
    rest = ddb.execute_statement(
        Statement=f'SELECT * FROM "{table}"."GSI1" WHERE G1PK = \'g\'', NextToken=first["NextToken"]
    )
    assert [item["SK"] for item in rest["Items"]] == [S("3")]
    with ddb.error("ValidationException"):
        ddb.execute_statement(
            Statement=f'SELECT * FROM "{table}"."GSI2" WHERE G2PK = \'g\'', NextToken=first["NextToken"]
        )


def test_unordered_constant_in_an_ordered_comparison_is_refused_before_the_table(ddb: Backend) -> None:
    with ddb.error(
        "ValidationException",
        "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL",
    ):
        ddb.execute_statement(
            Statement='SELECT * FROM "no_such_table" WHERE PK = ? AND v < ?',
            Parameters=[S("x"), {"BOOL": True}],
        )


def test_keyed_read_of_a_local_index_filters_only_on_what_it_projects(ddb: Backend, table_name: str) -> None:
    create(ddb, table_name, lsi=True)
    ddb.put_item(
        TableName=table_name,
        Item={"PK": S("p"), "SK": S("1"), "L1SK": S("k"), "extra": S("e"), "other": S("o")},
    )
    kept = ddb.execute_statement(
        Statement=f"SELECT * FROM \"{table_name}\".\"LSI1\" WHERE PK = 'p' AND extra = 'e'"
    )
    assert len(kept["Items"]) == 1
    aws_only(
        ddb, "DynamoDB Local reads the table for a local index's unprojected filter (docs/compatibility.md)"
    )
    message = (
        "One or more parameter values were invalid: Secondary index LSI1 does not project one or more filter "
        "attributes: [other]"
    )
    for condition in ("other = 'o'", "L1SK BETWEEN 'a' AND 'z' AND other = 'o'"):
        with ddb.error("ValidationException", message):
            ddb.execute_statement(
                Statement=f'SELECT * FROM "{table_name}"."LSI1" WHERE PK = \'p\' AND {condition}'
            )


@pytest.mark.parametrize(
    ("where", "refused"),
    [
        ("PK = 'a' AND n = 1 OR PK = 'a' AND SK = '2'", True),  # the first branch reads the whole partition
        ("PK = 'a' AND SK > '1' OR PK = 'a' AND SK = '2'", True),
        ("PK = 'a' AND begins_with(SK, '1') OR PK = 'a' AND SK = '12'", True),
        ("PK = 'a' AND SK = '1' OR PK = 'a' AND SK = '2'", False),
        ("PK = 'a' AND SK = '1' OR PK = 'b' AND SK = '1'", False),  # another partition
        ("PK = 'a' AND SK <> '1' OR PK = 'a' AND SK = '2'", False),  # <> makes the sort key a filter
        ("PK = 'a' AND NOT SK = '1' OR PK = 'a' AND SK = '2'", False),
        ("PK = 'a' OR PK = 'a' AND NOT SK = '1'", False),
    ],
)
def test_or_branches_overlapping_on_the_sort_key(
    ddb: Backend, shared: str, where: str, refused: bool
) -> None:
    statement = f'SELECT * FROM "{shared}" WHERE {where}'
    if refused:
        aws_only(ddb)
        with ddb.error(
            "ValidationException", "Overlapping conditions with range keys are not supported in where clause"
        ):
            ddb.execute_statement(Statement=statement)
    else:
        ddb.execute_statement(Statement=statement)
