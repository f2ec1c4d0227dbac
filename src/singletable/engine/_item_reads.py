"""The prepare step of every key read: a GetItem request becomes a :class:`PreparedGet`.

GetItem, each BatchGetItem key and each TransactGetItems Get are prepared by :func:`prepare_get`, so all three
answer a bad key or expression with the same error, in DynamoDB's order (legacy AttributesToGet before the
Key). A bad Key is raised as :class:`InvalidKey`, the same error marked as the Key's, because a transaction
reports it as one action's ``ValidationError`` cancellation reason rather than failing the request.
"""

from __future__ import annotations

from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine import _legacy as legacy
from singletable.engine._errors import DynamoDBError, ValueProblem
from singletable.engine._expressions import RequestExpressions
from singletable.engine._interfaces import TableCatalog
from singletable.engine._schema import TableSchema
from singletable.engine._storage import Storage
from singletable.engine._write_path import key_from_request

LEGACY = ("AttributesToGet",)
PROJECTION_PARAMETERS = (
    "ProjectionExpression",
    "AttributesToGet",
    "ExpressionAttributeNames",
    "ExpressionAttributeValues",
)


class InvalidKey(DynamoDBError):
    """A Get's Key does not fit its table (the same code and message as any other request's)."""


class PreparedGet:
    """One validated key read: GetItem, a BatchGetItem key, a TransactGetItems Get."""

    __slots__ = ("pk", "projection", "schema", "sk")

    def __init__(self, schema: TableSchema, pk: bytes, sk: bytes, projection: Any) -> None:
        self.schema = schema
        self.pk = pk
        self.sk = sk
        self.projection = projection

    def read(self, storage: Storage, for_wire: bool = False) -> tuple[Any, int]:
        """(the projected item or None, the stored item's size for capacity). ``for_wire`` (GetItem answered
        for the wire codec): an item returned whole is its stored JSON, an ``orjson.Fragment``."""
        stored = storage.get_item(self.schema.table_id, self.pk, self.sk)
        if stored is None:
            return None, 0
        data, size = stored
        if for_wire and self.projection is None:
            return codec.wire_fragment(data), size
        item = codec.loads_item(data)
        return (self.projection.apply(item) if self.projection is not None else item), size


def prepare_get(engine: TableCatalog, params: dict[str, Any]) -> PreparedGet:
    """GetItem's checks, shared with BatchGetItem and TransactGetItems so all answer alike."""
    # Without any projection parameter (most GetItems) neither the mixing rule nor the expression checks
    # can fail, and there is nothing to compile. (Two members are TableName and Key, which the shape
    # requires.)
    plain = len(params) == 2 or legacy.none_given(params, PROJECTION_PARAMETERS)
    if not plain:
        legacy.reject_mixed(params, LEGACY, ("ProjectionExpression",))
    schema = engine.table(params["TableName"])
    # Checked before the Key, as DynamoDB does.
    legacy_projection = None if plain else legacy.attributes_to_get(params)
    try:
        pk, sk = key_from_request(schema, params["Key"])
    except ValueProblem:  # a malformed value fails the whole request, in a transaction too
        raise
    except DynamoDBError as error:
        raise InvalidKey(error.code, error.message) from None
    return PreparedGet(schema, pk, sk, None if plain else _projection(params, legacy_projection))


def _projection(params: dict[str, Any], legacy_projection: Any) -> Any:
    """The request's ProjectionExpression, or its legacy AttributesToGet, with the expression parameters'
    checks."""
    text = params.get("ProjectionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
    )
    projection = expressions.projection(text) if text is not None else legacy_projection
    expressions.finish()
    return projection
