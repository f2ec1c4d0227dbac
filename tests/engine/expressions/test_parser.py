"""AST shapes, precedence and every error text of the expression parser.

The texts in ``oracle_cases.py`` and the literals below were all produced by DynamoDB Local 1.25.1.
"""

from __future__ import annotations

import pytest
from oracle_cases import ORACLE_CASES

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions.ast import (
    AddAction,
    And,
    Arithmetic,
    Between,
    Comparison,
    DeleteAction,
    FunctionCall,
    In,
    NamePlaceholder,
    Not,
    Or,
    Path,
    ProjectionExpression,
    RemoveAction,
    SetAction,
    UpdateExpression,
    ValuePlaceholder,
)
from singletable.engine._expressions.parser import parse_condition, parse_projection, parse_update


def P(*elements):
    return Path(tuple(NamePlaceholder(e) if str(e).startswith("#") else e for e in elements))


V = ValuePlaceholder
A, B, C = (Comparison("=", P(name), V(":v")) for name in "abc")


def parse(kind: str, text: str):
    if kind == "UpdateExpression":
        return parse_update(text)
    if kind == "ProjectionExpression":
        return parse_projection(text)
    return parse_condition(text, kind)


def message(kind: str, text: str) -> str:
    with pytest.raises(DynamoDBError) as caught:
        parse(kind, text)
    assert caught.value.code == "ValidationException"
    return caught.value.message


# -- shapes and precedence ----------------------------------------------------------------------------


def test_paths_and_placeholders():
    assert parse_condition("a.b[1].#c [2] = :v") == Comparison("=", P("a", "b", 1, "#c", 2), V(":v"))
    assert parse_condition("#a <> b") == Comparison("<>", P("#a"), P("b"))


@pytest.mark.parametrize("op", ["=", "<>", "<", "<=", ">", ">="])
def test_comparators(op):
    assert parse_condition(f"a {op} :v") == Comparison(op, P("a"), V(":v"))


def test_and_binds_tighter_than_or():
    assert parse_condition("a = :v OR b = :v AND c = :v") == Or(A, And(B, C))
    assert parse_condition("a = :v AND b = :v OR c = :v") == Or(And(A, B), C)


def test_not_binds_tighter_than_and():
    assert parse_condition("NOT a = :v AND b = :v") == And(Not(A), B)
    assert parse_condition("NOT NOT a = :v") == Not(Not(A))
    assert parse_condition("NOT (a = :v AND b = :v)") == Not(And(A, B))


def test_left_associative():
    assert parse_condition("a = :v AND b = :v AND c = :v") == And(And(A, B), C)
    assert parse_condition("a = :v OR (b = :v OR c = :v)") == Or(A, Or(B, C))


def test_between_and_in():
    assert parse_condition("a BETWEEN :v AND :w AND b = :v") == And(Between(P("a"), V(":v"), V(":w")), B)
    assert parse_condition("a in (:v, b, size(c))") == In(
        P("a"), (V(":v"), P("b"), FunctionCall("size", (P("c"),)))
    )


def test_functions_and_parenthesised_operands():
    assert parse_condition("attribute_exists(a)") == FunctionCall("attribute_exists", (P("a"),))
    assert parse_condition("size((a)) > (:v)") == Comparison(">", FunctionCall("size", (P("a"),)), V(":v"))
    assert parse_condition("(attribute_exists(a))") == FunctionCall("attribute_exists", (P("a"),))
    assert parse_condition("((a) = :v)") == A


def test_keywords_any_case():
    assert parse_condition("a = :v and b = :v oR c = :v") == Or(And(A, B), C)


def test_update_clauses():
    assert parse_update("set a = :v, b = c + :w remove d, e[1] ADD f :x DELETE g :y") == UpdateExpression(
        (SetAction(P("a"), V(":v")), SetAction(P("b"), Arithmetic("+", P("c"), V(":w")))),
        (RemoveAction(P("d")), RemoveAction(P("e", 1))),
        (AddAction(P("f"), V(":x")),),
        (DeleteAction(P("g"), V(":y")),),
    )
    assert parse_update("DELETE g :y SET a = (b - :v)") == UpdateExpression(
        set_actions=(SetAction(P("a"), Arithmetic("-", P("b"), V(":v"))),),
        delete_actions=(DeleteAction(P("g"), V(":y")),),
    )
    assert parse_update("SET a = list_append(if_not_exists(a, :e), :v)").set_actions[0].value == FunctionCall(
        "list_append", (FunctionCall("if_not_exists", (P("a"), V(":e"))), V(":v"))
    )


def test_projection():
    assert parse_projection("a, b.c[0], #d") == ProjectionExpression((P("a"), P("b", "c", 0), P("#d")))


def test_value_placeholder_as_nested_path_element():
    # DynamoDB's projection binder then reports ":v" as an undefined attribute name.
    assert parse_projection("a.:v") == ProjectionExpression((Path(("a", NamePlaceholder(":v"))),))


def test_cached():
    assert parse_condition("a = :v") is parse_condition("a = :v")


def test_list_index_limit():
    assert parse_condition("a[2147483647] = :v") == Comparison("=", P("a", 2147483647), V(":v"))


def test_reserved_words_case_preserved_and_placeholder_escape():
    assert message("ConditionExpression", "a.b[1].Name = :v") == (
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Name"
    )
    assert parse_condition("#name = :v") == Comparison("=", P("#name"), V(":v"))
    # Listed by AWS, yet accepted by DynamoDB.
    assert parse_condition("size = :v AND convert = :v") == And(
        Comparison("=", P("size"), V(":v")), Comparison("=", P("convert"), V(":v"))
    )


# -- error texts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "text", "expected"), ORACLE_CASES)
def test_oracle_messages(kind, text, expected):
    assert message(kind, text) == expected


def test_size_limit_counts_utf16_units():
    assert parse_condition("a = :v" + " " * 4090)
    assert message("ConditionExpression", "a = :v" + " " * 4091) == (
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; "
        "expression size: 4097"
    )
    assert message("UpdateExpression", "SET a = :v" + " " * 4100) == (
        "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"
    )
    assert message("ProjectionExpression", "a" + " " * 4096) == (
        "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;"
    )
    # Checked before syntax; "é" is one unit, so 3106 characters are within the limit.
    assert message("ConditionExpression", "a = :v" + " " * 2000 + "é" * 1100).startswith(
        'Invalid ConditionExpression: Syntax error; token: "é"'
    )
    assert message("FilterExpression", "a = :v :w" + " " * 4100).endswith("expression size: 4109")


def test_in_operand_limit():
    choices = ", ".join(f":v{i}" for i in range(100))
    assert len(parse_condition(f"a IN ({choices})").choices) == 100
    over = ", ".join(f":v{i}" for i in range(101))
    assert message("ConditionExpression", f"a IN ({over})") == (
        "Invalid ConditionExpression: The IN operator is provided with too many operands; "
        "number of operands: 101"
    )
    # Reserved words (document-order checks) come first, wherever they are.
    assert message("ConditionExpression", f"a IN ({over}) AND name = :w").endswith("reserved keyword: name")
    assert message("ConditionExpression", f"a IN ({over}) AND ((b = :w))").endswith("redundant parentheses;")


def test_operator_limit():
    base = " AND ".join(["a = :v"] * 150)  # 150 comparisons + 149 ANDs
    assert parse_condition("NOT " + base)
    assert parse_condition(base.replace("a = :v", "size(a) = :v", 1))
    too_many = "The expression contains too many operators; operator count: 301"
    for text in ("NOT NOT " + base, base + " AND attribute_exists(a)", " AND ".join(["a = :v"] * 200)):
        assert message("ConditionExpression", text) == "Invalid ConditionExpression: " + too_many
    over = ", ".join(f":v{i}" for i in range(101))
    assert message("ConditionExpression", f"a IN ({over}) AND {base}").endswith("number of operands: 101")
    assert message("ConditionExpression", f"foo(a) = :v AND {base}").endswith("function: foo")


def test_deep_nesting_does_not_crash():
    for text in (
        "(" * 4000,
        "(" * 2000 + "a" + ")" * 2000,
        "NOT " * 1000 + "a = :v",
        "size(" * 800,
        "(a = :v AND " * 300 + "b = :v" + ")" * 300,
    ):
        with pytest.raises(DynamoDBError):
            parse_condition(text)
    nested = "a = :v"
    for _ in range(140):
        nested = f"(b = :v AND {nested})"
    assert parse_condition(nested)
