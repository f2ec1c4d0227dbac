"""The last stage of a write: sending its request parts, and saying what a failure meant.

One part goes as a plain PutItem/UpdateItem/DeleteItem; several (or any inside ``db.transaction()``) as one
TransactWriteItems. Failures are translated by what the failed part *meant* (its
:class:`~singletable.model._write_requests.PartLabel`): a guard item's failed claim is a
:class:`UniqueViolation` naming the field and value, the entity's own create is :class:`AlreadyExists`, a
version check a :class:`VersionConflict` -- whichever transport reported it.
"""

from __future__ import annotations

import re
from typing import Any

from singletable.model._errors import (
    AlreadyExists,
    ConditionFailed,
    ModelError,
    NotFound,
    RequestError,
    TransactionFailed,
    UniqueViolation,
    VersionConflict,
)
from singletable.model._write_requests import Call, RequestPart

# A part's TransactWriteItems element name -> the operation that sends it alone.
SINGLE = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}


def _checks_stored(part: RequestPart) -> bool:
    """Whether a failed condition should return the stored item (to tell NotFound from a conflict)."""
    return part.label.role == "update" or part.label.versioned


def _meaning(part: RequestPart, error: RequestError, item: Any) -> ModelError:
    label = part.label
    if label.role == "claim":
        return UniqueViolation(label.entity, label.field, label.value)
    if label.role == "create":
        return AlreadyExists(error.code, f"{label.entity} already exists", item=item)
    if _checks_stored(part) and item is None and part.kind == "Update":
        return NotFound(f"{label.entity} {part.params.get('Key')} does not exist")
    if label.versioned:
        return VersionConflict(error.code, f"{label.entity} was changed by someone else (version)", item=item)
    return ConditionFailed(error.code, error.message, item=item)


def send(
    call: Call,
    parts: list[RequestPart],
    *,
    single_params: dict[str, Any] | None = None,
    transaction: bool = False,
) -> dict[str, Any]:
    """Send the parts (one request, or one TransactWriteItems); ``single_params`` replaces a lone part's
    parameters (to ask for return values). A failed condition raises what it meant."""
    if len(parts) == 1 and not transaction and parts[0].kind in SINGLE:
        part = parts[0]
        params = single_params or part.params
        if _checks_stored(part) and "ReturnValuesOnConditionCheckFailure" not in params:
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        try:
            return call(SINGLE[part.kind], params)
        except ConditionFailed as error:
            raise _meaning(part, error, error.item) from None
    items = []
    for part in parts:
        params = part.params
        if part.kind == "Update" and _checks_stored(part):
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        items.append({part.kind: params})
    try:
        return call("TransactWriteItems", {"TransactItems": items})
    except RequestError as error:
        if error.code != "TransactionCanceledException":
            raise
        reasons = error.extra.get("CancellationReasons") or _reasons_from_message(error.message)
        for part, reason in zip(parts, reasons, strict=False):
            if reason.get("Code") == "ConditionalCheckFailed":
                raise _meaning(part, error, reason.get("Item")) from None
        raise TransactionFailed(error.code, error.message, reasons, [str(p.label) for p in parts]) from None


def _reasons_from_message(message: str) -> list[dict[str, Any]]:
    found = re.search(r"\[([^\]]*)\]\s*$", message)
    if not found:
        return []
    return [{"Code": part.strip()} for part in found[1].split(",")]
