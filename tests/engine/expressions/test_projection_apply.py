"""Projection semantics observed on DynamoDB Local 1.25.1 (GetItem with ProjectionExpression)."""

from __future__ import annotations

import pytest
from _ast_helpers import PROJ, N, S

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions

Q = {"M": {"q": N("1"), "r": N("2")}}
ITEM = {
    "pk": S("x"),
    "a": N("5"),
    "s": S("abc"),
    "l": {"L": [N("1"), S("x"), N("3"), Q]},
    "m": {"M": {"b": N("1"), "c": {"M": {"d": N("1"), "e": N("2")}}}},
}


def project(*paths, names=None):
    return RequestExpressions(names, None, uses_expressions=True).projection(PROJ(*paths)).apply(ITEM)


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (("l[1]", "l[3]"), {"l": {"L": [S("x"), Q]}}),
        (("l[3]", "l[1]"), {"l": {"L": [S("x"), Q]}}),
        (("l[3].q", "l[0]"), {"l": {"L": [N("1"), {"M": {"q": N("1")}}]}}),
        (("m.c.d", "m.b"), {"m": {"M": {"b": N("1"), "c": {"M": {"d": N("1")}}}}}),
        (("l[9]",), {}),
        (("m.nope", "s"), {"s": S("abc")}),
        (("a.b",), {}),
        (("s[0]",), {}),
        (("l[3].q", "l[3].r"), {"l": {"L": [Q]}}),
        (("l[3].r", "l[1]"), {"l": {"L": [S("x"), {"M": {"r": N("2")}}]}}),
        (("pk", "a"), {"pk": S("x"), "a": N("5")}),
    ],
)
def test_projection(paths, expected):
    assert project(*paths) == expected


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (
            ("a", "a"),
            "Two document paths overlap with each other; must remove or rewrite one of these paths; "
            "path one: [a], path two: [a]",
        ),
        (
            ("m.c.d", "m.c"),
            "Two document paths overlap with each other; must remove or rewrite one of these paths; "
            "path one: [m, c, d], path two: [m, c]",
        ),
        (
            ("l[0]", "l.x"),
            "Two document paths conflict with each other; must remove or rewrite one of these paths; "
            "path one: [l, [0]], path two: [l, x]",
        ),
        (
            ("#n",),
            "An expression attribute name used in the document path is not defined; attribute name: #n",
        ),
    ],
)
def test_errors(paths, message):
    with pytest.raises(DynamoDBError) as caught:
        project(*paths)
    assert caught.value.message == "Invalid ProjectionExpression: " + message


def test_names_and_top_level():
    expressions = RequestExpressions({"#m": "m"}, None, uses_expressions=True)
    projection = expressions.projection(PROJ("#m.b", "a"))
    assert projection.top_level_names == frozenset({"m", "a"})
    assert projection.apply(ITEM) == {"m": {"M": {"b": N("1")}}, "a": N("5")}
    expressions.finish()
