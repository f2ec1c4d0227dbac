"""The last stage of a write: sending its request parts, and saying what a failure meant.

One part goes as a plain PutItem/UpdateItem/DeleteItem; several (or any inside ``db.transaction()``) as one
TransactWriteItems. Failures are translated by what the failed part *meant* (its
:class:`~singletable.model._write_requests.PartLabel`): a guard item's failed claim is a
:class:`UniqueViolation` naming the field and value, the entity's own create is :class:`AlreadyExists`, a
version check a :class:`VersionConflict` -- whichever transport reported it. A cancelled transaction names
the action that failed (its label and its key as plain values, never AttributeValues), and a transaction of
more actions than DynamoDB takes is refused before it is sent. Sending is a step
(:mod:`singletable.model._steps`): the request is yielded, and the DB's driver -- synchronous or async --
sends it and raises its error here, where it is translated.
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
    RequestRefused,
    TransactionFailed,
    UniqueViolation,
    VersionConflict,
)
from singletable.model._steps import Request, Steps
from singletable.model._write_requests import RequestPart

# A part's TransactWriteItems element name -> the operation that sends it alone.
SINGLE = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
# DynamoDB's limit on the actions of one TransactWriteItems.
MAX_ACTIONS = 100


def _checks_stored(part: RequestPart) -> bool:
    """Whether a failed condition should return the stored item (to tell NotFound from a conflict)."""
    return part.label.role in ("update", "upsert") or part.label.versioned


def _plain(av: dict[str, Any]) -> str:
    """A key attribute's value as a person reads it: ``'USER#a'``, ``5``, ``b'..'``."""
    ((kind, value),) = av.items()
    return value if kind == "N" else repr(value)


def key_text(part: RequestPart) -> str:
    """The part's primary key as ``PK='USER#a' SK='PROFILE'`` ("" when it cannot be told)."""
    key = part.params.get("Key")
    if key is None:
        item = part.params.get("Item") or {}
        table = part.meta.table if part.meta is not None else None
        names = [table.pk_name, table.sk_name] if table is not None else []
        key = {name: item[name] for name in names if name and name in item}
    try:
        return " ".join(f"{name}={_plain(av)}" for name, av in key.items())
    except (AttributeError, ValueError):  # a hand-written part whose key is not AttributeValues
        return ""


def action_text(part: RequestPart) -> str:
    """``USER update PK='USER#a' SK='PROFILE'``: the label and the key of one action."""
    key = key_text(part)
    return f"{part.label} {key}" if key else str(part.label)


def _meaning(part: RequestPart, error: RequestError, item: Any, where: str = "") -> ModelError:
    """The error a failed condition of ``part`` means; ``where`` places it in a transaction."""
    label = part.label
    if label.role == "claim":
        return UniqueViolation(label.entity, label.field, label.value)
    if label.role == "create":
        return AlreadyExists(error.code, f"{label.entity} already exists", item=item)
    if _checks_stored(part) and item is None and part.kind == "Update" and label.role != "upsert":
        return NotFound(f"{label.entity} {key_text(part)} does not exist")
    if label.versioned and not _version_held(part, item):
        return VersionConflict(error.code, f"{label.entity} was changed by someone else (version)", item=item)
    if where:
        return ConditionFailed(error.code, f"{where}: its condition did not hold", item=item)
    return ConditionFailed(error.code, error.message, item=item)


def _version_held(part: RequestPart, item: Any) -> bool:
    """Whether the stored item a versioned part's failure returned still has the version the part expected:
    then the version did not move, and what failed is the caller's own condition."""
    if part.expected_version is None or not item or part.meta is None or part.meta.version is None:
        return False
    stored = item.get(part.meta.attribute_of[part.meta.version])
    return stored == {"N": str(part.expected_version)}


def _cancelled(parts: list[RequestPart], error: RequestError) -> ModelError:
    """What a TransactionCanceledException meant: the first failed condition by its label, or a
    :class:`TransactionFailed` naming each action DynamoDB gave a reason for."""
    reasons = error.extra.get("CancellationReasons") or _reasons_from_message(error.message)
    total = len(parts)
    failed = []
    for number, (part, reason) in enumerate(zip(parts, reasons, strict=False), 1):
        code = reason.get("Code")
        if not code or code == "None":
            continue
        where = f"transaction cancelled, action {number} of {total} ({action_text(part)})"
        if code == "ConditionalCheckFailed":
            return _meaning(part, error, reason.get("Item"), where)
        detail = f" ({reason['Message']})" if reason.get("Message") else ""
        failed.append(f"{where} failed: {code}{detail}")
    message = "; ".join(failed) or f"transaction cancelled: {error.message}"
    return TransactionFailed(error.code, message, reasons, [str(p.label) for p in parts])


def send(
    parts: list[RequestPart],
    *,
    single_params: dict[str, Any] | None = None,
    transaction: bool = False,
) -> Steps[dict[str, Any]]:
    """Send the parts (one request, or one TransactWriteItems); ``single_params`` replaces a lone part's
    parameters (to ask for return values). A failed condition raises what it meant."""
    if len(parts) == 1 and not transaction and parts[0].kind in SINGLE:
        part = parts[0]
        params = single_params or part.params
        if _checks_stored(part) and "ReturnValuesOnConditionCheckFailure" not in params:
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        try:
            return (yield Request(SINGLE[part.kind], params))
        except ConditionFailed as error:
            raise _meaning(part, error, error.item) from None
    if len(parts) > MAX_ACTIONS:
        raise RequestRefused(
            f"a transaction holds at most {MAX_ACTIONS} actions (DynamoDB's limit) and this one has "
            f"{len(parts)} (guard and derived items count too); nothing was sent -- split it, or use "
            "db.batch_write where all-or-nothing is not needed"
        )
    items = []
    for part in parts:
        params = part.params
        if _checks_stored(part):
            params = dict(params, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        items.append({part.kind: params})
    try:
        return (yield Request("TransactWriteItems", {"TransactItems": items}))
    except RequestError as error:
        if error.code != "TransactionCanceledException":
            raise
        raise _cancelled(parts, error) from None


def _reasons_from_message(message: str) -> list[dict[str, Any]]:
    found = re.search(r"\[([^\]]*)\]\s*$", message)
    if not found:
        return []
    return [{"Code": part.strip()} for part in found[1].split(",")]
