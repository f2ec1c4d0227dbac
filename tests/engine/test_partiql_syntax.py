"""PartiQL syntax errors worded as AWS words them, on every backend.

AWS names what its PartiQL parser found where it stopped: the class of the token where a term should start
(``Unexpected term``, ``Unexpected keyword``, ``Unexpected operator``), a token left over after a complete
statement, an operator with nothing after it, and so on; a statement its lexer cannot read gets nothing after
the colon. DynamoDB Local echoes the statement instead, so each case carries Local's text
(docs/compatibility.md). The texts were measured on AWS (the Parity Suite records them).
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables import create, table_fixtures

from backends import Backend, expect_error
from draws import examples
from singletable.engine import DynamoDBError
from singletable.engine._partiql import parse_statement

MALFORMED = "Statement wasn't well formed, can't be processed: "
LEFTOVER = "Unexpected token after expression"

# Every detail the parser can put after the colon; anything else after it is a bug.
DETAILS = frozenset(
    (
        "",
        "Unexpected term",
        "Unexpected keyword",
        "Unexpected operator",
        LEFTOVER,
        "Unexpected token after semicolon. (Only one query is allowed.)",
        "Missing right-hand side expression of infix operator",
        "Expected type name",
        "Expected identifier for simple path",
        "Expected data manipulation",
        "Expected FROM after SELECT list",
        "Expected FROM after DELETE",
        "Expected AND keyword",
        "Expected expression after AND",
        "Expected expression after ESCAPE",
        "Expected BY",
        "Expected '='",
        "Expected RIGHT_PAREN",
        "Expected RIGHT_BRACKET",
        "Expected RIGHT_CURLY",
        "Expected RIGHT_DOUBLE_ANGLE_BRACKET",
        "Expected COLON",
        "Expected identifier for AS-alias",
        "Expected identifier for AT-alias",
        "Expected identifier for BY-alias",
        "Invalid path dot component",
        "Invalid path dot component for simple path",
        "Invalid path component for simple path",
        "Identifier must follow @-operator",
        "Expected ( MODIFIED | ALL ) ( NEW | OLD ) in each returning element.",
        "Unsupported syntax in RETURNING columns.",
        "Other expressions may not be present in the select list when '*' is used without dot notation.",
        "invalid ON CONFLICT syntax",
        "count(*) is not allowed",
    )
)


def _make_table(ddb: Backend, name: str) -> None:
    create(ddb, name)
    ddb.put_item(TableName=name, Item={"PK": {"S": "a"}, "SK": {"S": "1"}, "n": {"N": "1"}})


# ``shared``: for the tests that read the table or send statements it refuses
table, shared = table_fixtures(_make_table)


def refused(ddb: Backend, text: str, detail: str) -> None:
    with ddb.error("ValidationException", MALFORMED + detail, local=MALFORMED + text):
        ddb.execute_statement(Statement=text)


# -- where a term should start: the class of the token found there ------------------------------------------


@pytest.mark.parametrize(
    ("tail", "detail"),
    [
        ("WHERE", "Unexpected term"),  # the end of the statement
        ("WHERE;", "Unexpected term"),  # punctuation
        ("WHERE   ", "Unexpected term"),
        ("WHERE NOT", "Unexpected term"),  # NOT is a prefix; the term after it is missing
        ("WHERE (", "Unexpected term"),
        ("WHERE ORDER BY PK", "Unexpected keyword"),
        ("WHERE IS NULL", "Unexpected operator"),
        ("WHERE PK = LIKE", "Unexpected operator"),
        ("WHERE PK = AND", "Unexpected operator"),
        ("WHERE PK = 'a' AND", "Missing right-hand side expression of infix operator"),
        ("WHERE PK = 'a' OR", "Missing right-hand side expression of infix operator"),
        ("WHERE PK =", "Missing right-hand side expression of infix operator"),
        ("WHERE PK = 'a' AND;", "Unexpected term"),  # something follows the operator, if only a semicolon
    ],
)
def test_where_a_term_should_start(ddb: Backend, shared: str, tail: str, detail: str) -> None:
    refused(ddb, f'SELECT * FROM "{shared}" {tail}', detail)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("SELECT * FROM", "Unexpected term"),
        ("DELETE FROM", "Expected identifier for simple path"),
        ("DELETE FROM;", "Expected identifier for simple path"),
        ("DELETE FROM WHERE PK = 'a'", "Expected identifier for simple path"),
        ("UPDATE 'x' SET a = 1", "Expected identifier for simple path"),
        ("DELETE x", "Expected FROM after DELETE"),
        ("SELECT a b c", "Expected FROM after SELECT list"),
    ],
)
def test_statement_without_its_table(ddb: Backend, text: str, detail: str) -> None:
    refused(ddb, text, detail)


# -- a complete statement with something after it ------------------------------------------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "WHERE PK = 'a' foo",
        "WHERE PK = 'a' AND SK = 1 e5",  # a number split from its exponent is a number and a name
        "WHERE PK = 'a')",
        "ORDER BY PK WHERE PK = 'a'",
    ],
)
def test_leftover_token(ddb: Backend, shared: str, tail: str) -> None:
    refused(ddb, f'SELECT * FROM "{shared}" {tail}', LEFTOVER)


def test_leftover_after_writes(ddb: Backend, shared: str) -> None:
    refused(ddb, f"INSERT INTO \"{shared}\" VALUE {{'PK': 'b', 'SK': '1'}} foo", LEFTOVER)
    refused(ddb, f"DELETE FROM \"{shared}\" WHERE PK = 'a' AND SK = '1' ORDER BY PK", LEFTOVER)
    refused(ddb, f"UPDATE \"{shared}\" SET n = 2 WHERE PK = 'a' AND SK = '1' foo", LEFTOVER)
    # INSERT's target takes no alias: the word is read as INSERT's other form, leaving VALUE over
    refused(ddb, f"INSERT INTO \"{shared}\" t VALUE {{'PK': 'b', 'SK': '1'}}", LEFTOVER)
    assert ddb.get_item(TableName=shared, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})["Item"]["n"] == {"N": "1"}
    assert "Item" not in ddb.get_item(TableName=shared, Key={"PK": {"S": "b"}, "SK": {"S": "1"}})


def test_second_statement_after_semicolon(ddb: Backend, shared: str) -> None:
    refused(
        ddb,
        f"SELECT * FROM \"{shared}\" WHERE PK = 'a'; SELECT 1",
        "Unexpected token after semicolon. (Only one query is allowed.)",
    )
    assert ddb.execute_statement(Statement=f"SELECT * FROM \"{shared}\" WHERE PK = 'a';")["Items"]


# -- operators, types, closing tokens and paths --------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "detail"),
    [
        ("x IS FOO", "Expected type name"),
        ("x IS NUMBER", "Expected type name"),
        ("(x = 1", "Expected RIGHT_PAREN"),
        ("x IN [1, 2", "Expected RIGHT_BRACKET"),
        ("x = {'a': 1", "Expected RIGHT_CURLY"),
        ("x = {'a' 1}", "Expected COLON"),
        ("x IN <<1", "Expected RIGHT_DOUBLE_ANGLE_BRACKET"),
        ("x BETWEEN 1 OR 2", "Expected AND keyword"),
        ("m.inner = 1", "Invalid path dot component"),  # INNER is a keyword, not a name
        ("m.'x' = 1", "Invalid path dot component"),
    ],
)
def test_expression_syntax(ddb: Backend, shared: str, condition: str, detail: str) -> None:
    refused(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' AND {condition}", detail)


@pytest.mark.parametrize(
    ("assignment", "detail"),
    [
        ("n 2", "Expected '='"),
        ("m.* = 2", "Invalid path dot component for simple path"),
        ("m[?] = 2", "Invalid path component for simple path"),
    ],
)
def test_update_paths(ddb: Backend, shared: str, assignment: str, detail: str) -> None:
    refused(ddb, f"UPDATE \"{shared}\" SET {assignment} WHERE PK = 'a' AND SK = '1'", detail)


def test_type_names_parse(ddb: Backend) -> None:
    """IS takes PartiQL's type names (two-word ones too); a statement that is only a type test parses and is
    then refused for what it is."""
    if ddb.is_reference:
        pytest.skip("DynamoDB Local's parser refuses INT4 and names the node Typed (docs/compatibility.md)")
    for type_name in ("INT4", "INT8", "DOUBLE PRECISION", "CHARACTER VARYING"):
        with ddb.error("ValidationException", "Unsupported operation: IsType"):
            ddb.execute_statement(Statement=f"x IS {type_name}")


# -- what the lexer cannot read: nothing after the colon -----------------------------------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "# note",  # not a comment in PartiQL
        "/* note",
        "AND x = 'open",
        'AND "open = 1',
        "AND x = 1e2147483648",  # the exponent does not fit 32 bits
        "AND x = 1e99999999999",
        "AND x = 1.5e-2147483647",  # ... nor does the scale it leaves
        "AND x = 1e",
        "AND x ^ 2",
        "AND x | 2",
        "AND x ! 2",
        "AND x = '\u00e9' AND y\u00e9 = 1",  # a character outside the language, outside a string
    ],
)
def test_lexer_errors_have_no_detail(ddb: Backend, shared: str, tail: str) -> None:
    refused(ddb, f"SELECT * FROM \"{shared}\" WHERE PK = 'a' {tail}", "")


def test_comments_and_numbers_that_lex(ddb: Backend, shared: str) -> None:
    statement = f"-- a note\nSELECT * FROM \"{shared}\" /* here */ WHERE PK = 'a' AND n = .1e1 -- the end"
    assert len(ddb.execute_statement(Statement=statement)["Items"]) == 1


# -- semantic refusals come after the whole statement parses -------------------------------------------------


def test_alias_is_refused_only_once_the_statement_parses(ddb: Backend, shared: str) -> None:
    with ddb.error("ValidationException", "Aliasing is not supported"):
        ddb.execute_statement(Statement=f"SELECT * FROM \"{shared}\" t WHERE PK = 'a'")
    with ddb.error("ValidationException", "Aliasing is not supported"):
        ddb.execute_statement(Statement=f"UPDATE \"{shared}\" t SET n = 3 WHERE PK = 'a' AND SK = '1'")
    refused(ddb, f'SELECT * FROM "{shared}" t WHERE', "Unexpected term")


def test_batch_and_transaction_word_syntax_errors_alike(ddb: Backend, shared: str) -> None:
    text = f'SELECT * FROM "{shared}" WHERE'
    response = ddb.batch_execute_statement(Statements=[{"Statement": text}])
    detail = text if ddb.is_reference else "Unexpected term"
    assert response["Responses"] == [{"Error": {"Code": "ValidationError", "Message": MALFORMED + detail}}]
    prefix = "Validation failed in TransactStatements[0]: "
    with ddb.error("ValidationException", prefix + MALFORMED + "Unexpected term", local=MALFORMED + text):
        ddb.execute_transaction(TransactStatements=[{"Statement": text}])


def test_misspelt_keyword_reads_as_from_first_update(ddb: Backend, shared: str) -> None:
    """``SLECT * FROM t ...`` is a name times a FROM-first UPDATE that has no SET: so says AWS."""
    refused(ddb, f"SLECT * FROM \"{shared}\" WHERE PK = 'a'", "Expected data manipulation")


# -- no statement makes the parser fail any other way --------------------------------------------------------

_WORDS = [
    "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUE", "UPDATE", "SET", "REMOVE", "DELETE", "EXISTS",
    "RETURNING", "ALL", "NEW", "OLD", "MODIFIED", "ORDER", "BY", "ASC", "DESC", "AND", "OR", "NOT", "IS",
    "IN", "BETWEEN", "LIKE", "NULL", "MISSING", "TRUE", "FALSE", "AS", "AT", "LIMIT", "GROUP", "count",
    "size", "attribute_exists", "set_add", "x", '"t"', '"t"."i"', "'s'", "1", "-2.5e3", ".5", "?", "*",
    "=", "<>", "<", ">=", "+", "||", "(", ")", "[", "]", "{", "}", "<<", ">>", ":", ",", ".", ";", "@",
    "`1`", "#", "'", '"', "/*", "--",
]  # fmt: skip


def _soups() -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(st.sampled_from(_WORDS), max_size=25).map(" ".join),
        st.text(alphabet=string.printable, max_size=60),
    )


def _check_refusal(error: DynamoDBError) -> None:
    assert error.code in ("ValidationException", "ResourceNotFoundException"), error
    if error.message.startswith(MALFORMED):
        assert error.message[len(MALFORMED) :] in DETAILS, error.message


@settings(max_examples=examples(300), deadline=None)
@given(_soups())
def test_token_soup_parses_or_is_refused_in_aws_words(text: str) -> None:
    try:
        parse_statement(text)
    except DynamoDBError as error:
        _check_refusal(error)
    try:
        parse_statement(text, batch=True)
    except DynamoDBError as error:
        _check_refusal(error)


@settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_soups())
def test_token_soup_over_the_wire(ddb: Backend, text: str) -> None:
    """On every surface a soup never meets a 500 or a traceback: it runs, or is refused in AWS's words."""
    if ddb.is_reference:
        pytest.skip("DynamoDB Local echoes malformed statements (docs/compatibility.md)")
    try:
        ddb.execute_statement(Statement=text or " ")
    except DynamoDBError as error:
        _check_refusal(error)


def test_deep_nesting_is_refused_not_crashed() -> None:
    with pytest.raises(DynamoDBError) as info:
        parse_statement("SELECT * FROM t WHERE " + "(" * 5000 + "a = 1" + ")" * 5000)
    assert info.value.message == MALFORMED
    with expect_error("ValidationException", MALFORMED):
        parse_statement("SELECT * FROM t WHERE a = " + "- " * 5000 + "1")
    with expect_error("ValidationException", MALFORMED):
        parse_statement("SELECT * FROM t WHERE " + "NOT " * 5000 + "a = 1")


def test_remove_takes_one_path_per_clause(ddb: Backend, table: str) -> None:
    """``[SET | REMOVE] path [= data] [...]``: clauses repeat; a REMOVE names one path."""
    refused(ddb, f"UPDATE \"{table}\" REMOVE n, m WHERE PK = 'a' AND SK = '1'", LEFTOVER)
    ddb.execute_statement(
        Statement=f"UPDATE \"{table}\" SET m = 1 SET o = 2 REMOVE n WHERE PK = 'a' AND SK = '1'"
    )
    ddb.execute_statement(Statement=f"UPDATE \"{table}\" REMOVE m REMOVE o WHERE PK = 'a' AND SK = '1'")
    assert ddb.get_item(TableName=table, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})["Item"] == {
        "PK": {"S": "a"},
        "SK": {"S": "1"},
    }
