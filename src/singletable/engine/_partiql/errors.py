"""DynamoDB's PartiQL error texts, in one place so the parser, translator and runner agree on them."""

from __future__ import annotations

from typing import Any

from .._errors import DynamoDBError, validation

MALFORMED = "Statement wasn't well formed, can't be processed: "
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
NO_TABLE = "Cannot do operations on a non-existent table"
MISSING_RESOURCE = "Requested resource not found"  # FROM-first UPDATE and ExecuteTransaction's wording
BAD_TABLE_NAME = (
    "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'."
)
KEY_EQUALITY = "Where clause does not contain a mandatory equality on all key attributes"
DUPLICATE_ITEM = "Duplicate primary key exists in table"
MISSING_COMPARE = "MISSING must be compared using IS operator"
AND_OR_ARGS = "The arguments to AND/OR must be Expressions"
IN_ARGS = (
    "IN operator must have a left hand argument of type Variable Reference and right hand argument of type "
    "Seq with at least one member"
)
BAG_TYPES = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
INSERT_STRUCT = (
    "Unsupported format in item expression. Please use struct format {...} to express item values for insert "
    "statement."
)
KEY_TYPE = "Key attribute's data type should match its data type in table's schema: Key "
KEY_ABSENT = "Key attribute should be present in the item: Key "
ORDER_BY_WHERE = "Must have WHERE clause in the statement when using ORDER BY clause."
ORDER_BY_HASH = (
    "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
)
INVALID_TOKEN = "Invalid NextToken"


def at(message: str, pos: Any) -> DynamoDBError:
    """A message with the offending token's ``line:column:length``."""
    return validation(f"{message} at {pos}")


def lexer_error() -> DynamoDBError:
    """A statement the lexer cannot read: DynamoDB gives no detail after the colon."""
    return validation(MALFORMED)


def syntax(detail: str) -> DynamoDBError:
    """A statement the parser cannot read, with the parser's own detail (``Unexpected term``)."""
    return validation(MALFORMED + detail)
