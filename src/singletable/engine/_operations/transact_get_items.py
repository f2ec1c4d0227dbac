"""TransactGetItems: up to 100 Gets read from one snapshot, at the transactional read rate.

Each Get is prepared by GetItem's own code (:func:`item_reads.prepare_get`); a Get whose Key does not fit
its table cancels the transaction with a ``ValidationError`` reason for that Get (``None`` for the others),
as AWS reports it, while any other bad request fails as a whole. The reads run inside one SQLite
read transaction, so every item comes from the same committed state: a TransactWriteItems in another thread or
process is either wholly visible or not at all. Readers never wait for writers (WAL), so this never conflicts.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._item_reads import InvalidKey, PreparedGet, prepare_get
from singletable.engine._transactions import NO_REASON, cancelled, check_distinct, render_usages, usage_for


def _prepare(engine: OperationEngine, actions: list[dict[str, Any]]) -> list[PreparedGet]:
    gets: list[PreparedGet] = []
    reasons: list[dict[str, Any]] = []
    for action in actions:
        try:
            gets.append(prepare_get(engine, action["Get"]))
            reasons.append(NO_REASON)
        except InvalidKey as error:
            if error.code != "ValidationException":
                raise
            reasons.append({"Code": "ValidationError", "Message": error.message})
    if len(gets) != len(actions):
        raise cancelled(reasons)
    return gets


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    gets = _prepare(engine, params["TransactItems"])
    check_distinct([(get.schema.table_id, get.pk, get.sk) for get in gets])
    usages: dict[str, Any] = {}
    responses: list[dict[str, Any]] = []
    with engine.storage.read():
        for get in gets:
            item, size = get.read(engine.storage)
            usage_for(usages, get.schema.name).read(size)
            # A projection that matches nothing of a present item answers no Item, as a missing item does.
            responses.append({"Item": item} if item else {})
    response: dict[str, Any] = {"Responses": responses}
    consumed = render_usages(usages, params.get("ReturnConsumedCapacity"))
    if consumed is not None:
        response["ConsumedCapacity"] = consumed
    return response
