"""The requests a write is made of: each request part, its label and its conditions.

A write is planned (:mod:`singletable.model._write_plans`) into one or more :class:`RequestPart` s -- a
PutItem, UpdateItem, DeleteItem or ConditionCheck with its expressions already compiled -- and sent by
:mod:`singletable.model._write_runner`. Each part carries a :class:`PartLabel` saying what it writes and what
its failed condition means (the item exists, a unique value is taken, the version moved on). The condition
helpers here compile the model's implied conditions into a part. What a request asks DynamoDB to return
(``ReturnValues``, ``ReturnValuesOnConditionCheckFailure``) is not decided here: it depends on how the part is
sent, alone or in a transaction, and :func:`~singletable.model._write_runner.asked_back` decides it there.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from singletable.model._bounds import BoundCheck
from singletable.model._entity_meta import EntityMeta
from singletable.model._expr import Compiler, Cond, compile_update
from singletable.model._field_values import AV
from singletable.model._upgrades import VERSION_ATTRIBUTE
from singletable.model._write_keys import declared_attributes
from singletable.model._write_values import UpdateValues

# What a part writes, and so what its failed condition means:
#   create   the entity's item, which must not exist yet       -> AlreadyExists
#   put      the entity's item, replaced (or created)          -> ConditionFailed, VersionConflict
#   update   the entity's item, changed in place               -> NotFound, ConditionFailed, VersionConflict
#   upsert   the entity's item, changed or created             -> ConditionFailed, VersionConflict
#   delete   the entity's item, removed                        -> ConditionFailed, VersionConflict
#   check    a ConditionCheck on the entity's item             -> ConditionFailed
#   claim    a guard item taking a unique value                -> UniqueViolation
#   release  a guard item giving a unique value up             -> ConditionFailed
#   derived  an item the entity owns, written or removed by it -> ConditionFailed
#   sequence a Sequence's counter, moved to the number drawn   -> SequenceContended (another writer took it)
#   raw      a request written by hand in a transaction        -> ConditionFailed
Role = Literal[
    "create", "put", "update", "upsert", "delete", "check", "claim", "release", "derived", "sequence", "raw"
]


class PartLabel(NamedTuple):
    """What a request part writes and what its error message needs: the entity's type name, the part's
    :data:`Role`, whether it checks the entity's version, and for guards the unique field and value (for
    derived items, the declaration's name in ``field``) and, for a scoped guard, the fields scoping it.
    Immutable; a NamedTuple because every write makes one (a frozen dataclass costs five times as much to
    build, a measurable share of a put)."""

    role: Role
    entity: str = ""
    versioned: bool = False
    field: str = ""
    value: Any = None
    # A scoped guard's other fields and their values: (("store_id", "s1"),).
    scope: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        what = f"{self.entity} {self.role}" if self.entity else self.role
        if self.role == "sequence":  # never versioned: the counter's field
            return f"{what} {self.field}"
        if self.role in ("claim", "release"):
            what += f" {self.field}={self.value!r}"
            what += "".join(f" {name}={value!r}" for name, value in self.scope)
        elif self.role == "derived":
            what += f" {self.field}"
        return what + (" (versioned)" if self.versioned else "")


# The label of a part that writes the entity's own item: one per (role, entity, versioned), shared -- labels
# are immutable, and every write makes one.
item_label = functools.cache(PartLabel)


@dataclass(slots=True)
class RequestPart:
    """One request of a write: ``kind`` is Put, Update, Delete or ConditionCheck (a TransactWriteItems
    element's name), ``params`` the request with its expressions compiled."""

    kind: str
    params: dict[str, Any]
    label: PartLabel
    meta: EntityMeta | None = field(default=None, repr=False)
    # A put of an entity with createdAt-derived keys that did not read the item: what it guessed about the
    # stored createdAt. A failure returns the stored item, and the put is retried with it.
    assumed: Stored | None = None
    # An update planned from a read of the stored item: the field values it relied on (and is conditioned on).
    relied: Mapping[str, Any] | None = None
    # A versioned write: the version it expects stored, to tell a moved version from a failed condition.
    expected_version: int | None = None
    # An upsert planned from a read: whether the item existed then (its condition says it still must, or
    # still must not); None for an upsert that did not read.
    read_exists: bool | None = None
    # An update computing numbers on the server: the declared bounds its condition keeps them in.
    bounds: list[BoundCheck] | None = None


@dataclass(frozen=True)
class Stored:
    """What a put assumes about the stored item's createdAt, as its raw AttributeValue.

    ``exists=None`` is the optimistic guess ("absent, or present with ``created``"): one request for a new
    entity and for one read back from the table. Anything else is an exact state, learnt from a read or from
    the stored item a failed guess returns (``ReturnValuesOnConditionCheckFailure``).
    """

    exists: bool | None
    created: AV | None = None

    @classmethod
    def of(cls, meta: EntityMeta, item: Mapping[str, AV] | None) -> Stored:
        if item is None:
            return cls(False)
        return cls(True, item.get(meta.attribute_of[meta.created])) if meta.created else cls(True)

    def admits(self, actual: Stored) -> bool:
        if self.exists is None:
            return not actual.exists or actual.created == self.created
        return self == actual

    def condition(self, meta: EntityMeta, c: Compiler) -> str:
        """The condition that makes the write valid only while this assumption holds."""
        if self.exists is False:
            return not_exists(meta, c)
        # an assumption is about createdAt, so the entity has one
        created = c.name(meta.attribute_of[meta.created])  # type: ignore[index]
        if self.exists is None:
            return f"{not_exists(meta, c)} OR {created} = {c.value(self.created)}"
        if self.created is None:
            return f"{exists(meta, c)} AND attribute_not_exists({created})"
        return f"{created} = {c.value(self.created)}"


def stored_after_failure(part: RequestPart, item: Mapping[str, AV] | None) -> Stored | None:
    """After a failed upsert: the stored createdAt state to retry with, or None if the guess was right (so
    the failure is the caller's condition or version, and is reported as such)."""
    if part.assumed is None or part.meta is None:
        return None
    actual = Stored.of(part.meta, item)
    return None if part.assumed.admits(actual) else actual


def changed_since_read(part: RequestPart, item: Mapping[str, AV] | None) -> bool:
    """After a failed update planned from a read: whether a field it relied on is no longer stored as read
    (so planning it again from ``item``, the stored item the failure returned, may succeed) -- rather than
    the caller's condition or version failing, which is reported as such."""
    if part.read_exists is not None and part.read_exists != (item is not None):
        return True  # an upsert that found the item absent (or present) and it was created (or deleted)
    if not part.relied or part.meta is None or item is None:
        return False
    now = part.meta.decode(item)
    return any(now.get(name) != value for name, value in part.relied.items())


# -- conditions ------------------------------------------------------------------------------------------


def conjoin(c: Compiler, conds: Iterable[str | Cond | None]) -> str | None:
    """The conditions (compiled text or :class:`Cond`) joined with AND; None when there are none."""
    parts = [x.compile(c) if isinstance(x, Cond) else x for x in conds if x is not None]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else " AND ".join(f"({p})" for p in parts)


def finish(params: dict[str, Any], c: Compiler, condition: str | None) -> dict[str, Any]:
    """The request with its condition and the compiler's placeholders."""
    if condition:
        params["ConditionExpression"] = condition
    return c.into(params)


def not_exists(meta: EntityMeta, c: Compiler) -> str:
    return f"attribute_not_exists({c.name(meta.table.pk_name)})"


def exists(meta: EntityMeta, c: Compiler) -> str:
    return f"attribute_exists({c.name(meta.table.pk_name)})"


def unchanged(c: Compiler, meta: EntityMeta, name: str, old: Mapping[str, Any]) -> str:
    """The condition that field ``name`` is stored as it was read in ``old`` (or is still absent: a value
    whose stored form is nothing, like an empty set, is not stored)."""
    attr = c.name(meta.attribute_of[name])
    value = old.get(name)
    av = None if value is None else meta.fields[name].codec.dump(value)
    return f"attribute_not_exists({attr})" if av is None else f"{attr} = {c.value(av)}"


# -- UpdateItem requests ------------------------------------------------------------------


def update_request(
    table_name: str,
    change: UpdateValues,
    rebuilt: list[tuple[str, AV | None]],
    condition: Cond | None,
    *,
    existence: bool | None = True,
    fill: Mapping[str, Any] | None = None,
    checked: Iterable[str] = (),
    old: Mapping[str, Any] | None = None,
    upsert: bool = False,
) -> RequestPart:
    """The update's own request: its actions and rebuilt keys compiled into one UpdateExpression, under
    the condition that the item exists (``existence=True``), does not (``False``: an upsert creating it)
    or either (``None``), the caller's condition, the stored values of ``checked`` fields as read in
    ``old``, and the version the caller holds (bumped). ``fill`` (an upsert that may create the item) adds
    the type attribute, createdAt and the defaults of the fields it does not set, each if not stored."""
    meta = change.meta
    c = Compiler()
    conds: list[str | Cond | None] = [condition]
    if existence is not None:
        conds.insert(0, exists(meta, c) if existence else not_exists(meta, c))
    extra_set = _upsert_sets(meta, c, change.touched, change.now, fill) if fill is not None else []
    conds += [unchanged(c, meta, name, old or {}) for name in checked]
    conds += [bound.condition() for bound in change.bounds]
    removes = []
    for attribute, av in rebuilt:
        if av is None:
            removes.append(c.name(attribute))
        else:
            extra_set.append(f"{c.name(attribute)} = {c.value(av)}")
    actions = [a for a in change.actions if meta.fields[a.path.field].stored]
    if meta.version:
        version = getattr(meta.cls.f, meta.version)
        if change.expected_version is not None:
            conds.append(version == change.expected_version)
        actions.append(version.add(1))
    if meta.upgrades is not None:
        conds.append(current_version(meta, c, existence, extra_set))
    expression = compile_update(actions, c, extra_set, removes)
    params = finish(
        {"TableName": table_name, "Key": change.key, "UpdateExpression": expression}, c, conjoin(c, conds)
    )
    label = item_label("upsert" if upsert else "update", meta.type, change.expected_version is not None)
    part = RequestPart("Update", params, label, meta, expected_version=change.expected_version)
    part.bounds = change.bounds or None
    if upsert:
        part.read_exists = existence
    return part


def current_version(meta: EntityMeta, c: Compiler, existence: bool | None, sets: list[str]) -> str | None:
    """An update of an entity with a ``schema_version`` applies only to an item stored at that version (an
    older one is upgraded first, then the update is sent again: ``DB.update``); the item it leaves, created
    or not, is stamped with it."""
    assert meta.upgrades is not None
    name, value = c.name(VERSION_ATTRIBUTE), c.value(meta.upgrades.stamp)
    sets.append(f"{name} = {value}")
    if existence is False:
        return None
    same = f"{name} = {value}"
    return same if existence else f"({not_exists(meta, c)} OR {same})"


def _upsert_sets(
    meta: EntityMeta, c: Compiler, touched: set[str], now: Any, fill: Mapping[str, Any]
) -> list[str]:
    """Counters and the like: the item may not exist yet, so give it its type, createdAt and the defaults
    of the fields the update does not set (``if_not_exists``: an existing item keeps its own)."""
    out = [f"{c.name(meta.table.type_attribute)} = {c.value(meta.type_av)}"]
    defaults = dict(fill)
    if meta.created and meta.created not in touched:
        defaults[meta.created] = now
    for name, value in defaults.items():
        attribute = c.name(meta.attribute_of[name])
        out.append(
            f"{attribute} = if_not_exists({attribute}, {c.value(meta.fields[name].codec.dump(value))})"
        )
    return out


def update_keeping_created(
    table_name: str, meta: EntityMeta, created: str, item: dict[str, AV], c: Compiler
) -> dict[str, Any]:
    """The put as an UpdateItem: the ``created`` field must survive an upsert, which PutItem cannot do.
    Every attribute is written (createdAt only if absent), and the declared attributes (sparse keys
    included) that this version of the entity lacks are removed."""
    keys = {meta.table.pk_name, meta.table.sk_name}
    created_attr = meta.attribute_of[created]
    sets, removes = [], []
    for attr, av in item.items():
        if attr in keys:
            continue
        name, value = c.name(attr), c.value(av)
        sets.append(
            f"{name} = if_not_exists({name}, {value})" if attr == created_attr else f"{name} = {value}"
        )
    for attr in declared_attributes(meta):
        if attr not in item and attr not in keys:
            removes.append(c.name(attr))
    expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
    key = {k: item[k] for k in keys if k}
    return {"TableName": table_name, "Key": key, "UpdateExpression": expression}
