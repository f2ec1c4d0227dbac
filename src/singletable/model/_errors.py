"""Typed errors of the modeling layer.

Application code catches these instead of parsing DynamoDB error codes, and gets the same exception whether
the request went to the embedded engine or through boto3 to any endpoint: the adapter normalises both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Cancellation:
    """One action of a cancelled transaction, as DynamoDB judged it: ``error.cancellations`` holds one per
    action sent, in the order sent.

    ``index`` is the action's place in the transaction (from 0: DynamoDB's ``CancellationReasons`` order;
    messages count from 1), ``action`` its label (``"STOCK update"``, ``"USER claim email='a@x'"``,
    ``"ORDER sequence next_number"``, ``"raw"``), ``entity`` the entity type it writes ("" for a raw action),
    ``role`` what it does (create, put, update, upsert, delete, check, claim, release, derived, sequence,
    raw), ``key`` the item's primary key as plain values (``{"PK": "STOCK#s1", "SK": "STOCK"}``; empty when
    it cannot be told), ``code`` DynamoDB's reason (``"ConditionalCheckFailed"``, ``"TransactionConflict"``,
    ``"ValidationError"``...; ``"None"`` for an action that did not fail), ``message`` DynamoDB's text and
    ``item`` the stored item as AttributeValues when DynamoDB returned it (the model asks for it on updates
    and versioned writes: ``ReturnValuesOnConditionCheckFailure``).
    """

    index: int
    action: str
    entity: str
    role: str
    key: dict[str, Any]
    code: str
    message: str = ""
    item: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        """Whether DynamoDB gave this action a reason (its code is not ``"None"``)."""
        return self.code != "None"


def shown_value(value: Any) -> str:
    """A value for a message: its repr, but a long list (an embedding of 768 numbers) as its first and last
    elements and its length, so the message stays readable."""
    if isinstance(value, list | tuple) and len(value) > 8:
        head = ", ".join(repr(x) for x in value[:3])
        return f"[{head}, ..., {value[-1]!r}] ({len(value)} items)"
    return repr(value)


class ModelError(Exception):
    """Base of every error the modeling layer raises.

    ``cancellations``: when the error reports a cancelled transaction (a ``ConditionFailed``,
    ``UniqueViolation``, ``AlreadyExists``, ``NotFound``, ``VersionConflict``, ``TransactionFailed`` or
    ``SequenceContended`` raised by a transaction), one :class:`Cancellation` per action sent, each with
    DynamoDB's reason (``"None"`` for those that did not fail): ``[c for c in error.cancellations if
    c.failed]`` are the ones to blame. Empty otherwise.
    """

    cancellations: tuple[Cancellation, ...] = ()


class DeclarationError(ModelError, TypeError):
    """A table or entity declaration cannot work; raised at import time so mistakes never reach a request."""


class KeyTemplateError(ModelError, ValueError):
    """A key template could not be filled (or a value would make the key ambiguous)."""


class MissingKeyFields(KeyTemplateError):
    """A key cannot be built because fields its template needs were not given.

    Carries the entity, the key attribute and the missing fields so the message tells the user exactly what
    to pass -- the most common complaint about other mappers is an opaque error here.
    """

    def __init__(
        self,
        entity: str,
        attribute: str,
        template: str,
        missing: list[str],
        why: str = "",
        *,
        message: str | None = None,
    ) -> None:
        self.entity = entity
        self.attribute = attribute  # for an index keyed by fields: the index's name
        self.template = template  # ... and its fields
        self.missing = missing
        detail = f" ({why})" if why else ""
        super().__init__(
            message
            or f"{entity}: key attribute {attribute} = {template!r} needs {', '.join(missing)}{detail}"
        )


class MissingFields(ModelError, ValueError):
    """An upsert (``db.update(..., upsert=True)``) that does not set every required field of its entity.

    It would create, when the item does not exist, an item lacking them, which every read then refuses; so
    it is refused before anything is sent. ``entity`` is the entity's type name, ``missing`` the fields.
    """

    def __init__(self, entity: str, missing: list[str]) -> None:
        self.entity = entity
        self.missing = missing
        super().__init__(
            f"{entity}: upsert=True creates the item when it does not exist, and then it would lack "
            f"{', '.join(missing)} (required, no default); set {'it' if len(missing) == 1 else 'them'} in "
            "the update, or drop upsert=True (NotFound when absent)"
        )


class FieldTypeError(ModelError, TypeError):
    """A value does not fit the declared type of the field it is written to, compared with or keyed by.

    Raised before any request is sent, so a wrong value can never be stored (and break every later read of
    the item). ``entity`` is the entity's type name, ``field`` the field (with its nested path, if any),
    ``expected`` the declared type, ``value`` the value given.
    """

    def __init__(self, entity: str, field: str, expected: str, value: Any) -> None:
        self.entity = entity
        self.field = field
        self.expected = expected
        self.value = value
        super().__init__(
            f"{entity}.{field} is {expected}; {shown_value(value)} ({type(value).__name__}) does not fit"
        )


class FieldValueError(FieldTypeError, ValueError):
    """A value of the right type that the field's declared validation refuses: a constraint
    (``Field(ge=0)``), a ``Literal`` choice, an enum, a validator -- or, with ``field`` None, a model
    validator refusing the entity as a whole.

    Raised before any request is sent (for a number an update computes on the server, by the condition that
    keeps it in bounds), so the model never writes what it cannot read back. ``entity``, ``field``,
    ``expected`` (the declared type) and ``value`` as for :class:`FieldTypeError`; ``reason`` is what the
    validation said.
    """

    def __init__(self, entity: str, field: str | None, expected: str, value: Any, reason: str) -> None:
        self.entity = entity
        self.field = field  # type: ignore[assignment]  # None: the whole entity was refused, no one field
        self.expected = expected
        self.value = value
        self.reason = reason
        if field is None:
            message = f"{entity} is refused by its validation: {reason}"
        else:
            message = f"{entity}.{field} = {shown_value(value)} is refused: {reason}"
        Exception.__init__(self, message)


class RequestError(ModelError):
    """DynamoDB refused a request; ``code`` and ``message`` are DynamoDB's own."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        item: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.item = item
        self.extra = extra or {}


class ConditionFailed(RequestError):
    """A write's condition (declared or implied, like create's "must not exist") did not hold."""


class OutOfBounds(FieldValueError, ConditionFailed):
    """A number an update computes on the server (``add``, ``subtract``) would leave its declared bounds:
    the condition that keeps it inside refused the write, and nothing was written (inside
    ``db.transaction()``, nothing of the transaction). A :class:`FieldValueError` naming entity, field and
    the amount (``PRODUCT.stock = -5 is refused: add(-5) would make it -2, which must be >= 0``), and, since
    a condition failed, a :class:`ConditionFailed` too (``code``, ``item``: the stored item as
    AttributeValues), so either ``except`` catches it; raised by a transaction, it carries the
    transaction's ``cancellations``."""

    def __init__(
        self, entity: str, field: str, expected: str, value: Any, reason: str, *, item: dict[str, Any] | None
    ) -> None:
        FieldValueError.__init__(self, entity, field, expected, value, reason)
        self.code = "ConditionalCheckFailedException"
        self.message = str(self)
        self.item = item
        self.extra: dict[str, Any] = {}


class AlreadyExists(ConditionFailed):
    """``create`` found an item with the same primary key."""


class VersionConflict(ConditionFailed):
    """Optimistic locking: the stored version differs from the one the caller read."""


class NotFound(ModelError, LookupError):
    """A ``get``/``update`` addressed an entity that does not exist (only raised where asked for)."""


class UniqueViolation(ModelError):
    """A value declared unique is already held by another entity (of the same scope, for a guard scoped by
    other fields: ``scope`` holds them, ``{"store_id": "s1"}``)."""

    def __init__(self, entity: str, field: str, value: Any, scope: dict[str, Any] | None = None) -> None:
        self.entity = entity
        self.field = field
        self.value = value
        self.scope = scope or {}  # a scoped guard's other fields: {"store_id": "s1"}
        if self.scope:
            within = ", ".join(f"{name}={v!r}" for name, v in self.scope.items())
            per = ", ".join(self.scope)
            message = f"{entity}.{field} must be unique per {per}: {value!r} is already taken ({within})"
        else:
            message = f"{entity}.{field} must be unique: {value!r} is already taken"
        super().__init__(message)


class TransactionFailed(RequestError):
    """A transaction was cancelled; ``reasons`` lines up with the requests that were sent."""

    def __init__(self, code: str, message: str, reasons: list[dict[str, Any]], labels: list[str]) -> None:
        super().__init__(code, message, extra={"CancellationReasons": reasons})
        self.reasons = reasons
        self.labels = labels


class SequenceContended(ModelError):
    """A number drawn from a :class:`~singletable.model.Sequence` was taken by another writer before the
    transaction holding it was committed (or DynamoDB cancelled it with ``TransactionConflict``); nothing
    was written. ``Sequence.create`` and ``db.run_transaction`` raise it once every attempt lost the race;
    a ``with db.transaction()`` block, which cannot run again by itself, raises it at its first loss.
    ``sequence`` is the :class:`~singletable.model.Sequence` concerned, ``number`` the number it lost."""

    def __init__(self, message: str, sequence: Any = None, number: int | None = None) -> None:
        super().__init__(message)
        self.sequence = sequence
        self.number = number


class RequestRefused(ModelError, ValueError):
    """A request DynamoDB would reject, refused by the model before anything is sent: a table name outside
    DynamoDB's naming rules, a transaction of more actions than DynamoDB takes. The message says what and
    why."""


class DBClosed(ModelError, RuntimeError):
    """The :class:`~singletable.model.DB` was closed (``db.close()``), or the Engine behind it was
    (``engine.close()``); connect again to use the table."""


class InvalidCursor(ModelError, ValueError):
    """A pagination cursor was altered, forged, or belongs to another query."""


class UnknownArgument(ModelError, TypeError):
    """A keyword argument the call does not take (a misspelt key field, a template field of another entity).

    ``where`` names the call, ``unknown`` the names it does not take and ``valid`` the ones it does; nothing
    is sent.
    """

    def __init__(self, where: str, unknown: list[str], valid: list[str], how: str = "") -> None:
        self.where = where
        self.unknown = unknown
        self.valid = valid
        takes = f"{how} {', '.join(valid)}".strip() if valid else "no keyword arguments"
        if unknown:
            super().__init__(f"{where} got unknown argument(s) {', '.join(unknown)}; it takes {takes}")
        else:
            super().__init__(f"{where} takes {takes}")


class FieldNotLoaded(ModelError, AttributeError):
    """A field of a partial entity (read with ``.select(...)``) that the projection did not load."""

    def __init__(self, entity: str, field: str, loaded: list[str], *, projected: bool = True) -> None:
        self.entity = entity
        self.field = field
        self.loaded = loaded
        self.projected = projected
        how = (
            "this entity was read with a projection (.select) that did not include it"
            if projected
            else f"this {entity} was built without it (model_construct, or a derived item's build given only "
            "some of its owner's fields), not read from the table"
        )
        super().__init__(f"{entity}.{field} was not loaded: {how}; loaded fields: {', '.join(loaded)}")


class PartialEntity(ModelError, TypeError):
    """A partial entity (read with ``.select(...)``, or built without some fields) given to a write that
    stores whole entities; ``projected`` says which."""

    def __init__(self, entity: str, missing: list[str], *, projected: bool = True) -> None:
        self.entity = entity
        self.missing = missing
        self.projected = projected
        lacks = ", ".join(missing)
        if projected:
            text = (
                f"{entity} was read with a projection (.select) and lacks {lacks}; writing it whole would "
                "overwrite them with defaults. Use db.update(entity, field=value, ...) to change the loaded "
                "fields"
            )
        else:
            text = (
                f"{entity} lacks {lacks}: it was built without them (model_construct skips validation and "
                "leaves out required fields it is not given), not read from the table; writing it would "
                "store an item without them. Build it with the class itself, giving every required field, "
                "or use db.update(key, field=value, ...) to change some fields"
            )
        super().__init__(text)


class StoredItemError(ModelError, ValueError):
    """A stored item does not fit its entity (written by another tool, or by older code).

    Raised by every read (get, query, page, collect, batch_get) instead of a bare ``KeyError`` or a
    validation error: ``table`` is the table's name, ``key`` the item's primary key (attribute -> value),
    ``entity`` the entity type, ``attribute`` the stored attribute that does not fit (None when no single
    one is to blame), ``expected`` the declared type and ``stored`` what the item holds there. A query can
    skip such items or hand them back raw instead: ``db.query(..., on_bad_item="skip" | "raw")``.
    """

    def __init__(
        self,
        table: str,
        key: dict[str, Any],
        entity: str,
        attribute: str | None,
        expected: str,
        stored: str,
    ) -> None:
        self.table = table
        self.key = key
        self.entity = entity
        self.attribute = attribute
        self.expected = expected
        self.stored = stored
        where = ", ".join(f"{name}={value!r}" for name, value in key.items())
        what = f"attribute {attribute!r}" if attribute else "the item"
        super().__init__(
            f"table {table!r}, item ({where}): {what} does not fit {entity}: expected {expected}, "
            f"stored {stored}"
        )


class UpgradeError(StoredItemError):
    """A stored item could not be brought to its entity's ``schema_version``: an ``@upgrade`` function
    raised or returned something that is not an item, or the item is newer than the entity (written by newer
    code). ``entity``, ``key``, ``version`` (the version the failing step upgrades from) and ``function``
    (its name) say which; ``error`` is the exception the upgrade raised (None for the other cases)."""

    def __init__(
        self,
        entity: str,
        key: dict[str, Any],
        version: int | None,
        function: str | None,
        reason: str,
        error: BaseException | None = None,
    ) -> None:
        self.version = version
        self.error = error
        self.function = function
        where = ", ".join(f"{name}={value!r}" for name, value in key.items())
        step = f"upgrade from version {version} ({function}) failed: " if function else "cannot be read: "
        ModelError.__init__(self, f"{entity} item ({where}): {step}{reason}")
        self.table = ""
        self.key = key
        self.entity = entity
        self.attribute = None
        self.expected = entity
        self.stored = reason
