"""Attribute names go into expressions as written only when DynamoDB cannot read them as anything else."""

from __future__ import annotations

import pytest

from singletable.model._expr import Compiler


@pytest.mark.parametrize("name", ["title", "GSI1PK", "createdAt", "a_b9"])
def test_plain_names_are_written_directly(name: str) -> None:
    compiler = Compiler()
    assert compiler.name(name) == name
    assert compiler.into({}) == {}


@pytest.mark.parametrize(
    "name",
    [
        "status",
        "Name",
        "size",
        "SIZE",
        "contains",
        "begins_with",
        "_private",
        "9lives",
        "has-dash",
        "a.b",
        "é",
    ],
)
def test_reserved_function_and_odd_names_use_placeholders(name: str) -> None:
    compiler = Compiler()
    token = compiler.name(name)
    assert token.startswith("#n")
    assert compiler.name(name) == token  # one placeholder per name per request
    assert compiler.into({})["ExpressionAttributeNames"] == {token: name}
