"""The last stage of a write: sending its request parts, and saying what a failure meant.

One part goes as a plain PutItem/UpdateItem/DeleteItem; several (or any inside ``db.transaction()``) as one
TransactWriteItems. Failures are translated by what the failed part *meant* (its
:class:`~singletable.model._write_requests.PartLabel`): a guard item's failed claim is a
:class:`UniqueViolation` naming the field and value, the entity's own create is :class:`AlreadyExists`, a
version check a :class:`VersionConflict` -- whichever transport reported it. A cancelled transaction names
the action that failed (its label and its key as plain values, never AttributeValues) and carries every
action's reason as a :class:`~singletable.model.Cancellation`; a transaction of more actions than DynamoDB
takes, or of two actions on one item, is refused before it is sent. Sending is a step
(:mod:`singletable.model._steps`): the request is yielded, and the DB's driver -- synchronous or async --
sends it and raises its error here, where it is translated.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, NamedTuple

from singletable.model._bounds import bound_refusal
from singletable.model._errors import (
    AlreadyExists,
    Cancellation,
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
from singletable.model._write_target import WriteTarget

# A part's TransactWriteItems element name -> the operation that sends it alone.
SINGLE = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
# DynamoDB's limit on the actions of one TransactWriteItems.
MAX_ACTIONS = 100


def _checks_stored(part: RequestPart) -> bool:
    """Whether a failed condition returns the stored item, because what the failure means depends on it: an
    update's (NotFound, or a field it relied on changed: plan again), a versioned write's (VersionConflict, or
    the caller's own condition), a put's wrong createdAt guess (retried with the stored one)."""
    return part.label.role in ("update", "upsert") or part.label.versioned or part.assumed is not None


def asked_back(part: RequestPart, *, alone: bool, returning: bool) -> dict[str, Any]:
    """The part's request as sent: its parameters, and what it asks DynamoDB to return -- decided here, for
    every write the model sends (:func:`send` calls it for each part; nothing else adds return values).

    ``ReturnValues="ALL_NEW"``: an UpdateItem sent ``alone`` for a caller ``returning`` the entity as stored
    (``db.update``; ``db.put`` as the UpdateItem that keeps a stored createdAt) gets the item back in the same
    request, not by a read after it. A PutItem's entity is the one it wrote, a DeleteItem returns nothing, and
    a TransactWriteItems returns no items (its caller reads the item back); nothing asks for ``ALL_OLD`` or
    ``UPDATED_NEW`` on success, and ``NONE`` is the default, left unsaid.

    ``ReturnValuesOnConditionCheckFailure="ALL_OLD"``: a part whose failure is told apart by the stored item
    (:func:`_checks_stored`), alone or inside a transaction (where the cancellation reason carries it).
    """
    new = alone and returning and part.kind == "Update"
    on_failure = _checks_stored(part)
    if not (new or on_failure):
        return part.params
    params = dict(part.params)
    if new:
        params["ReturnValues"] = "ALL_NEW"
    if on_failure:
        params["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return params


def _plain(av: dict[str, Any]) -> str:
    """A key attribute's value as a person reads it: ``'USER#a'``, ``5``, ``b'..'``."""
    ((kind, value),) = av.items()
    return value if kind == "N" else repr(value)


def _value(av: dict[str, Any]) -> Any:
    """A key attribute's value as Python: ``'USER#a'``, ``5``, ``Decimal('0.5')``, ``b'..'``."""
    ((kind, value),) = av.items()
    if kind != "N":
        return value
    number = Decimal(value)
    return int(number) if number == number.to_integral_value() else number


class TableKeys(NamedTuple):
    """The table a write's parts go to and its key attribute names: which item a Put with no entity (a
    guard, derived or hand-written item) writes there."""

    table_name: str
    names: tuple[str, ...]


def part_key(part: RequestPart, keys: TableKeys | None = None) -> dict[str, Any]:
    """The primary key (AttributeValues) of the item a part acts on; a Put's is read from its item, with
    the key attribute names of its entity's table, else those of ``keys`` for an item written there. Empty
    when it cannot be told (a hand-written Put to another table)."""
    key = part.params.get("Key")
    if key is not None:
        return key if isinstance(key, dict) else {}
    item = part.params.get("Item") or {}
    if part.meta is not None:
        names: tuple[str | None, ...] = (part.meta.table.pk_name, part.meta.table.sk_name)
    elif keys is not None and part.params.get("TableName") == keys.table_name:
        names = keys.names
    else:
        return {}
    return {name: item[name] for name in names if name and name in item}


def plain_key(key: dict[str, Any]) -> dict[str, Any] | None:
    """``{"PK": "USER#a"}`` from ``{"PK": {"S": "USER#a"}}``; None for a key that is not AttributeValues."""
    try:
        return {name: _value(av) for name, av in key.items()}
    except (AttributeError, ValueError, ArithmeticError):  # a hand-written key that is not AttributeValues
        return None


def key_text(part: RequestPart, keys: TableKeys | None = None) -> str:
    """The part's primary key as ``PK='USER#a' SK='PROFILE'`` ("" when it cannot be told)."""
    key = part_key(part, keys)
    try:
        return " ".join(f"{name}={_plain(av)}" for name, av in key.items())
    except (AttributeError, ValueError):  # a hand-written part whose key is not AttributeValues
        return ""


def action_text(part: RequestPart, keys: TableKeys | None = None) -> str:
    """``USER update PK='USER#a' SK='PROFILE'``: the label and the key of one action."""
    key = key_text(part, keys)
    return f"{part.label} {key}" if key else str(part.label)


def _meaning(part: RequestPart, error: RequestError, item: Any, where: str = "") -> ModelError:
    """The error a failed condition of ``part`` means; ``where`` places it in a transaction."""
    label = part.label
    if label.role == "claim":
        return UniqueViolation(label.entity, label.field, label.value, dict(label.scope))
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


def _cancelled(parts: list[RequestPart], error: RequestError, keys: TableKeys | None) -> ModelError:
    """What a TransactionCanceledException meant: the first failed condition by its label, or a
    :class:`TransactionFailed` naming each action DynamoDB gave a reason for; either carries every
    action's :class:`Cancellation`."""
    reasons = error.extra.get("CancellationReasons") or _reasons_from_message(error.message)
    cancellations = tuple(
        _cancellation(index, part, reason, keys)
        for index, (part, reason) in enumerate(zip(parts, reasons, strict=False))
    )
    total = len(parts)
    failed = []
    meaning: ModelError | None = None
    for each, part in zip(cancellations, parts, strict=False):
        if not each.failed:
            continue
        where = f"transaction cancelled, action {each.index + 1} of {total} ({action_text(part, keys)})"
        if each.code == "ConditionalCheckFailed":
            meaning = _meaning(part, error, each.item, where)
            if type(meaning) is ConditionFailed:  # not a claim, a create, a version: maybe a bound
                meaning = bound_refusal(part.bounds, each.item, True) or meaning
            break
        detail = f" ({each.message})" if each.message else ""
        failed.append(f"{where} failed: {each.code}{detail}")
    if meaning is None:
        message = "; ".join(failed) or f"transaction cancelled: {error.message}"
        meaning = TransactionFailed(error.code, message, reasons, [str(p.label) for p in parts])
    meaning.cancellations = cancellations
    return meaning


def _cancellation(
    index: int, part: RequestPart, reason: dict[str, Any], keys: TableKeys | None
) -> Cancellation:
    label = part.label
    return Cancellation(
        index=index,
        action=str(label),
        entity=label.entity,
        role=label.role,
        key=plain_key(part_key(part, keys)) or {},
        code=str(reason.get("Code") or "None"),
        message=str(reason.get("Message") or ""),
        item=reason.get("Item"),
    )


def refuse_repeated_items(parts: list[RequestPart], keys: TableKeys | None = None) -> None:
    """Refuse, before anything is sent, a transaction with two actions on one item (same table, same
    primary key): DynamoDB refuses it whole with a ValidationException naming neither, so the model names
    the item and both actions."""
    seen: dict[tuple[Any, ...], int] = {}
    for index, part in enumerate(parts):
        identity = _identity(part, keys)
        try:
            first = seen.setdefault(identity, index) if identity is not None else index
        except TypeError:  # a hand-written key holding a list: DynamoDB will say what is wrong
            continue
        if first == index:
            continue
        total = len(parts)
        entity = parts[first].label.entity
        item = f"{entity} {key_text(part, keys)}" if entity else key_text(part, keys)
        raise RequestRefused(
            f"two actions of this transaction act on one item, {item}: action {first + 1} of {total} "
            f"({parts[first].label}) and action {index + 1} of {total} ({part.label}); DynamoDB refuses "
            "a transaction that acts on an item twice, so nothing was sent -- make them one action (one "
            "update can set several fields under one condition)"
        )


def _identity(part: RequestPart, keys: TableKeys | None) -> tuple[Any, ...] | None:
    """The item a part acts on as DynamoDB tells items apart: its table and key (numbers by value: ``1`` and
    ``1.0`` are one key); None when it cannot be told (a hand-written key that is not AttributeValues)."""
    key = part_key(part, keys)
    if not key:
        return None
    identity: list[Any] = [part.params.get("TableName")]
    for name in sorted(key):
        av = key[name]
        if type(av) is not dict or len(av) != 1:
            return None
        ((kind, value),) = av.items()
        if kind == "N":
            try:
                value = Decimal(value).normalize()
            except (ArithmeticError, TypeError, ValueError):
                return None
        identity += (name, kind, value)
    return tuple(identity)


def send(
    parts: list[RequestPart],
    *,
    transaction: bool = False,
    returning: bool = False,
    dest: WriteTarget | None = None,
) -> Steps[dict[str, Any]]:
    """Send the parts (one request, or one TransactWriteItems) and return the response; ``returning``: the
    caller returns the entity as stored, so a lone UpdateItem asks for it back (:func:`asked_back`); ``dest``
    is the table they go to, whose key attributes tell the item of a Put that has no entity (else they are
    read off the parts). A failed condition raises what it meant."""
    if len(parts) == 1 and not transaction and parts[0].kind in SINGLE:
        part = parts[0]
        params = asked_back(part, alone=True, returning=returning)
        try:
            return (yield Request(SINGLE[part.kind], params))
        except ConditionFailed as error:
            raise _meaning(part, error, error.item) from None
    keys = TableKeys(dest.table_name, dest.key_names) if dest is not None else _table_of(parts)
    if len(parts) > MAX_ACTIONS:
        raise RequestRefused(
            f"a transaction holds at most {MAX_ACTIONS} actions (DynamoDB's limit) and this one has "
            f"{len(parts)} (guard and derived items count too); nothing was sent -- split it, or use "
            "db.batch_write where all-or-nothing is not needed"
        )
    refuse_repeated_items(parts, keys)
    items = [{part.kind: asked_back(part, alone=False, returning=returning)} for part in parts]
    try:
        return (yield Request("TransactWriteItems", {"TransactItems": items}))
    except RequestError as error:
        if error.code != "TransactionCanceledException":
            raise
        raise _cancelled(parts, error, keys) from None


def _table_of(parts: list[RequestPart]) -> TableKeys | None:
    """The table the parts of one entity's write go to, from the first that knows its entity: a guard or
    derived item of that write is keyed by that table's key attributes."""
    for part in parts:
        if part.meta is not None and "TableName" in part.params:
            table = part.meta.table
            names = tuple(name for name in (table.pk_name, table.sk_name) if name)
            return TableKeys(part.params["TableName"], names)
    return None


def _reasons_from_message(message: str) -> list[dict[str, Any]]:
    found = re.search(r"\[([^\]]*)\]\s*$", message)
    if not found:
        return []
    return [{"Code": part.strip()} for part in found[1].split(",")]
