"""GetItem: read one item by its full key."""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity, read_units
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common, legacy
from singletable.engine.operations.shapes import check_shape

LEGACY = ("AttributesToGet",)


class PreparedGet:
    """One validated key read: GetItem, a BatchGetItem key, a TransactGetItems Get."""

    __slots__ = ("pk", "projection", "schema", "sk")

    def __init__(self, schema: Any, pk: bytes, sk: bytes, projection: Any) -> None:
        self.schema = schema
        self.pk = pk
        self.sk = sk
        self.projection = projection

    def read(self, storage: Any) -> tuple[dict[str, Any] | None, int]:
        """(the projected item or None, the stored item's size for capacity)."""
        row = storage.get_item(self.schema.table_id, self.pk, self.sk)
        if row is None:
            return None, 0
        item = codec.loads_item(row[0])
        return (self.projection.apply(item) if self.projection is not None else item), row[1]


def prepare(engine: Any, params: dict[str, Any]) -> PreparedGet:
    """GetItem's checks, shared with BatchGetItem and TransactGetItems so all answer alike."""
    common.reject_mixed(params, LEGACY, ("ProjectionExpression",))
    schema = engine.table(params["TableName"])
    legacy_projection = legacy.attributes_to_get(params)  # checked before the Key, as DynamoDB does
    pk, sk = common.key_from_request(schema, params["Key"])
    text = params.get("ProjectionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
    )
    projection = expressions.projection(text) if text is not None else legacy_projection
    expressions.finish()
    return PreparedGet(schema, pk, sk, projection)


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("GetItem", params)
    get = prepare(engine, params)
    item, size = get.read(engine.storage)
    response: dict[str, Any] = {}
    if item is not None:
        response["Item"] = item
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        capacity = Capacity(get.schema.name)
        capacity.table = read_units(size, bool(params.get("ConsistentRead")))
        response["ConsumedCapacity"] = capacity.render(mode)
    return response
