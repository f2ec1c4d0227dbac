"""Text-level checks through the parser, and a comparison with DynamoDB Local when it is available."""

from __future__ import annotations

import pytest
from tables import create_keyed

from singletable.engine._errors import DynamoDBError
from singletable.engine._expressions import RequestExpressions

ITEM = {"pk": {"S": "x"}, "a": {"N": "5"}, "l": {"L": [{"N": "1"}, {"S": "x"}, {"N": "3"}]}}
CASES = [
    ("SET a = a + :v, l[5] = :v REMOVE l[0]", {":v": {"N": "1"}}),
    ("REMOVE a.b SET a = :v", {":v": {"N": "1"}}),
    ("SET a = :v, b = a", {":v": {"N": "2"}}),
    ("ADD a :v DELETE l :w", {":v": {"N": "1"}, ":w": {"SS": ["x"]}}),
    ("SET #n = list_append(l, :v)", {":v": {"L": [{"N": "9"}]}}),
]


def ours(text, values, names=None):
    try:
        expressions = RequestExpressions(names, values, uses_expressions=True)
        result = expressions.update(text).apply(ITEM)
        expressions.finish()
        return result
    except DynamoDBError as error:
        return error.message


def test_clause_order_decides_overlap_report():
    assert ours("REMOVE a.b SET a = :v", {":v": {"N": "1"}}).endswith("path one: [a, b], path two: [a]")
    assert ours("SET a = :v REMOVE a.b", {":v": {"N": "1"}}).endswith("path one: [a], path two: [a, b]")


@pytest.mark.reference
@pytest.mark.parametrize(("text", "values"), CASES)
def test_matches_reference(reference_client, table_name, text, values):
    client = reference_client
    create_keyed(client, table_name)
    try:
        client.put_item(TableName=table_name, Item=ITEM)
        names = {"#n": "n"} if "#n" in text else None
        kwargs = {"ExpressionAttributeNames": names} if names else {}
        try:
            theirs = client.update_item(
                TableName=table_name,
                Key={"pk": {"S": "x"}},
                UpdateExpression=text,
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
                **kwargs,
            )["Attributes"]
        except client.exceptions.ClientError as error:
            theirs = error.response["Error"]["Message"]
        assert ours(text, values, names) == theirs
    finally:
        client.delete_table(TableName=table_name)
