"""GetItem: read one item by its full key."""

from __future__ import annotations

from typing import Any

from singletable.engine import codec
from singletable.engine.capacity import Capacity, read_units
from singletable.engine.expressions import RequestExpressions
from singletable.engine.operations import common
from singletable.engine.operations.shapes import check_shape

LEGACY = ("AttributesToGet",)


def run(engine: Any, params: dict[str, Any]) -> dict[str, Any]:
    check_shape("GetItem", params)
    common.reject_mixed(params, LEGACY, ("ProjectionExpression",))
    common.unsupported_legacy(params, LEGACY)
    schema = engine.table(params["TableName"])
    pk, sk = common.key_from_request(schema, params["Key"])
    text = params.get("ProjectionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=text is not None,
    )
    projection = expressions.projection(text) if text is not None else None
    expressions.finish()

    row = engine.storage.get_item(schema.table_id, pk, sk)
    response: dict[str, Any] = {}
    size = 0
    if row is not None:
        item = codec.loads_item(row[0])
        size = row[1]
        response["Item"] = projection.apply(item) if projection is not None else item
    mode = params.get("ReturnConsumedCapacity")
    if mode is not None and mode != "NONE":
        capacity = Capacity(schema.name)
        capacity.table = read_units(size, bool(params.get("ConsistentRead")))
        response["ConsumedCapacity"] = capacity.render(mode)
    return response
