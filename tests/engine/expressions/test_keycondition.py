# ruff: noqa: E501  (tables of verbatim DynamoDB error texts)
"""Key condition reduction and its errors, observed on DynamoDB Local 1.25.1 (Query)."""

from __future__ import annotations

import pytest
from _ast_helpers import AND, BETWEEN, IN, NOT, OR, C, F, N, S

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import KeyCondition, RequestExpressions

HASH = ("pk", "S")
RANGE_N = ("sk", "N")
RANGE_S = ("sk", "S")
V = {":p": S("x"), ":s": N("1"), ":t": N("2")}


def key(node, values=V, range_key=RANGE_N, names=None) -> KeyCondition:
    ranges = () if range_key is None else (range_key,)
    return RequestExpressions(names, values, uses_expressions=True).key_condition(node, (HASH,), ranges)


def error(node, values=V, range_key=RANGE_N) -> str:
    with pytest.raises(DynamoDBError) as caught:
        key(node, values, range_key)
    assert caught.value.code == "ValidationException"
    return caught.value.message


def test_shapes():
    assert key(C("pk", "=", ":p")) == KeyCondition(S("x"))
    assert key(C(":p", "=", "pk")) == KeyCondition(S("x"))
    assert key(AND(C("sk", "<=", ":s"), C("pk", "=", ":p"))) == KeyCondition(S("x"), "<=", (N("1"),))
    assert key(AND(C("pk", "=", ":p"), C(":s", "<", "sk"))) == KeyCondition(S("x"), ">", (N("1"),))
    assert key(AND(C("pk", "=", ":p"), BETWEEN("sk", ":s", ":t"))) == KeyCondition(
        S("x"), "BETWEEN", (N("1"), N("2"))
    )
    assert key(
        AND(C("#p", "=", ":p"), F("begins_with", "sk", ":q")),
        {":p": S("x"), ":q": S("a")},
        RANGE_S,
        names={"#p": "pk"},
    ) == KeyCondition(S("x"), "BEGINS_WITH", (S("a"),))


MISMATCH = "One or more parameter values were invalid: Condition parameter type does not match schema type"
KCE = "Invalid KeyConditionExpression: "


@pytest.mark.parametrize(
    ("node", "values", "message"),
    [
        (C("sk", "=", ":s"), V, "Query condition missed key schema element: pk"),
        (AND(C("pk", "=", ":p"), C("x", "=", ":s")), V, "Query condition missed key schema element: sk"),
        (C("pk", "<", ":p"), V, "Query key condition not supported"),
        (BETWEEN("pk", ":p", ":p"), V, "Query key condition not supported"),
        (
            OR(C("pk", "=", ":p"), C("sk", "=", ":s")),
            V,
            "Invalid operator used in KeyConditionExpression: OR",
        ),
        (NOT(C("pk", "=", ":p")), V, "Invalid operator used in KeyConditionExpression: NOT"),
        (AND(C("pk", "=", ":p"), IN("sk", ":s")), V, "Invalid operator used in KeyConditionExpression: IN"),
        (
            AND(C("pk", "=", ":p"), C("sk", "<>", ":s")),
            V,
            "Invalid operator used in KeyConditionExpression: <>",
        ),
        (
            AND(C("pk", "=", ":p"), F("attribute_exists", "sk")),
            V,
            "Invalid operator used in KeyConditionExpression: attribute_exists",
        ),
        (
            AND(C("pk", "=", ":p"), C("pk", "=", ":p")),
            V,
            # AWS's texts (the Parity Suite's captures); DynamoDB Local 1.25.1 words these three otherwise.
            KCE + "KeyConditionExpressions must only contain one condition per key",
        ),
        (
            AND(AND(C("pk", "=", ":p"), C("sk", ">", ":s")), C("x", "=", ":s")),
            V,
            "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)",
        ),
        (
            AND(C("pk", "=", ":p"), F("begins_with", "sk", ":s")),
            V,
            KCE
            + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            AND(C("x", "=", ":p"), F("begins_with", "sk", ":s")),
            V,
            KCE
            + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            AND(C("pk", "=", ":p"), BETWEEN("sk", ":t", ":s")),
            V,
            KCE + "The BETWEEN operator requires upper bound to "
            "be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: "
            "AttributeValue: {N:1}",
        ),
        (
            AND(C("pk", "=", ":p"), C("sk", "<", ":q")),
            {":p": S("x"), ":q": {"SS": ["1"]}},
            KCE
            + "Incorrect operand type for operator or function; operator or function: <, operand type: SS",
        ),
        (
            AND(C("pk", "=", ":p"), C(F("size", "sk"), "=", ":s")),
            V,
            "KeyConditionExpressions cannot contain nested operations",
        ),
        (
            AND(C("pk", "=", ":p"), F("size", "sk")),
            V,
            KCE + "The function is not allowed to be used this way in an expression; function: size",
        ),
        (
            AND(C("pk", "=", ":p"), F("if_not_exists", "sk", ":s")),
            V,
            KCE + "The function is not allowed in a condition expression; function: if_not_exists",
        ),
        (F("foo", "pk"), V, KCE + "Invalid function name; function: foo"),
        (
            C("pk", "=", "sk"),
            V,
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
        ),
        (
            AND(C("pk", "=", ":p"), C(":s", "=", ":s")),
            V,
            "Invalid condition in KeyConditionExpression: No key attribute specified",
        ),
        (
            C("pk.x", "=", ":p"),
            V,
            "KeyConditionExpressions cannot have conditions on nested attributes",
        ),
        (
            AND(C("pk", "=", ":p"), BETWEEN("sk", "sk", ":s")),
            V,
            KCE + "The first operand must be distinct from the "
            "remaining operands for this operator or function; operator: BETWEEN, first operand: [sk]",
        ),
        (
            AND(C("pk", "=", ":p"), BETWEEN(":s", "sk", ":s")),
            V,
            "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand",
        ),
        (C("pk", "=", ":s"), V, MISMATCH),
        (AND(C("pk", "=", ":p"), C("sk", "=", ":p")), V, MISMATCH),
        (AND(C("pk", "=", ":p"), C("sk", "<", ":q")), {":p": S("x"), ":q": {"B": b"1"}}, MISMATCH),
        (
            AND(C("pk", "=", ":p"), C("sk", "=", ":zz")),
            V,
            KCE + "An expression attribute value used in expression is not defined; attribute value: :zz",
        ),
    ],
)
def test_errors(node, values, message):
    assert error(node, values) == message


def test_begins_with_on_string_keys():
    values = {":p": S("x"), ":q": S("1"), ":b": {"B": b"1"}}
    assert error(AND(C("pk", "=", ":p"), F("begins_with", ":q", "sk")), values, RANGE_S) == (
        "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its "
        "first operand"
    )
    assert error(AND(C("pk", "=", ":p"), F("begins_with", "sk", ":b")), values, RANGE_S) == MISMATCH
