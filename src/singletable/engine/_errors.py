"""DynamoDB's error model.

Every failure the engine reports is a :class:`DynamoDBError` carrying DynamoDB's error type (``code``) and
its exact message text, so callers (and the HTTP server) can hand it on unchanged as ``__type``/``message``.
"""

from __future__ import annotations

from typing import Any

# The names DynamoDB's messages give the attribute types (its Java service's enum), e.g. "ADD action is not
# supported for the type STRING": one table for every message that names a type.
JAVA_TYPE_NAMES = {
    "S": "STRING",
    "N": "NUMBER",
    "B": "BINARY",
    "BOOL": "BOOLEAN",
    "NULL": "NULL",
    "L": "LIST",
    "M": "MAP",
    "SS": "STRING_SET",
    "NS": "NUMBER_SET",
    "BS": "BINARY_SET",
}


class DynamoDBError(Exception):
    """An error as DynamoDB reports it: ``code`` is the error type, ``message`` its text."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        item: dict[str, Any] | None = None,
        status: int = 400,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.item = item
        self.status = status
        self.extra = extra or {}

    def __repr__(self) -> str:
        return f"DynamoDBError({self.code!r}, {self.message!r})"


# How DynamoDB words a malformed value (a number it cannot read, a set with a repeated member) depends on the
# operation: it checks values in one of two layers (AWS's answers, captured in several regions by the Parity
# Suite). OLDER: BatchWriteItem, TransactWriteItems, TransactGetItems, Scan and PartiQL answer bare, an
# ExpressionAttributeValues value's problem wrapped as "ExpressionAttributeValues contains invalid value:
# {message} for key {name}". CURRENT: GetItem, BatchGetItem and Query answer bare in the newer wording, with
# no wrapper. ENVELOPED: PutItem, UpdateItem and DeleteItem answer the newer wording inside the validation
# framework's "1 validation error detected: " envelope.
OLDER_WORDING = "older"
CURRENT_WORDING = "current"
ENVELOPED_WORDING = "enveloped"
ENVELOPE = "1 validation error detected: "
EAV_PREFIX = "ExpressionAttributeValues contains invalid value: "


class ValueProblem(DynamoDBError):
    """A malformed AttributeValue, in both of DynamoDB's wordings: ``message`` is the older layer's (so an
    operation that words nothing differently answers it unchanged), ``current`` the newer layer's, bare.

    The operation decides which one the caller sees (``Engine.execute`` calls :meth:`worded`): the value
    checks themselves run once, wherever the value sits."""

    def __init__(self, older: str, current: str, *, older_everywhere: bool = False) -> None:
        super().__init__("ValidationException", older)
        self.current = current
        # A value nested past about 62 levels is read by the older layer whatever the operation (AWS).
        self.older_everywhere = older_everywhere

    def for_expression_value(self, name: str | None) -> ValueProblem:
        """The same problem found in the ExpressionAttributeValues entry ``name`` (only the older layer
        names the entry)."""
        return ValueProblem(
            f"{EAV_PREFIX}{self.message} for key {name}", self.current, older_everywhere=self.older_everywhere
        )

    def worded(self, wording: str) -> DynamoDBError:
        if self.older_everywhere:
            return validation(self.message)
        if wording == CURRENT_WORDING:
            return validation(self.current)
        if wording == ENVELOPED_WORDING:
            return validation(ENVELOPE + self.current)
        return validation(self.message)


def validation(message: str) -> DynamoDBError:
    return DynamoDBError("ValidationException", message)


def not_found(message: str = "Requested resource not found") -> DynamoDBError:
    return DynamoDBError("ResourceNotFoundException", message)


def in_use(message: str) -> DynamoDBError:
    return DynamoDBError("ResourceInUseException", message)


def unencodable(error: UnicodeEncodeError) -> DynamoDBError:
    """A string of the request that is not Unicode text (a lone surrogate such as ``"\\ud800"``): no UTF-8
    encodes it, so it can never reach DynamoDB, whose wire is UTF-8 JSON; over HTTP the same request fails to
    parse, which DynamoDB answers with ``SerializationException``."""
    character = error.object[error.start : error.end]
    return DynamoDBError(
        "SerializationException",
        f"A string in the request is not valid Unicode: {character!r} (a lone surrogate) has no UTF-8 form",
    )
