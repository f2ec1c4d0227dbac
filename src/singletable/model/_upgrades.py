"""Lazy migration on read: an entity's ``schema_version`` and the ``@upgrade`` functions that bring an older
stored item up to it.

An entity declared ``schema_version=N`` stores ``_v = N`` on every item it writes; an item without ``_v`` is
version 1. Each ``@upgrade(n)`` function in the class body turns a version-``n`` item (a plain dict of its
attributes) into a version-``n+1`` one; every version from 1 to N-1 needs exactly one (checked when the class
is created). Reads pass an older item through the chain before the entity is built, so the rest of the model
only ever sees current items.

Nothing here touches an entity without ``schema_version``: :func:`install` replaces the compiled entity's
``from_item``, ``decode`` and ``to_item`` with upgrading ones only for entities that declare it, so the read
and write hot paths of every other entity are exactly what they were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from singletable.model._errors import DeclarationError, UpgradeError
from singletable.model._field_values import AV, dump_any, load_any

if TYPE_CHECKING:
    from singletable.model._entity_meta import EntityMeta

# The attribute that holds an item's schema version: short (every item of a versioned entity carries it)
# and never a field's name (pydantic fields cannot start with an underscore).
VERSION_ATTRIBUTE = "_v"

Item = dict[str, AV]


@dataclass(frozen=True, slots=True)
class Upgrade:
    """One step of an entity's upgrade chain: ``function`` turns a version-``version`` item into a
    version-``version + 1`` one. Made by :func:`upgrade`."""

    version: int
    function: Callable[[dict[str, Any]], dict[str, Any]]

    @property
    def name(self) -> str:
        return getattr(self.function, "__qualname__", repr(self.function))

    def __call__(self, old: dict[str, Any]) -> dict[str, Any]:
        return self.function(old)


def upgrade(version: int) -> Callable[[Callable[[dict[str, Any]], dict[str, Any]]], Upgrade]:
    """``@upgrade(1)`` on a function in an entity's body: it turns a stored version-1 item (its attributes
    as plain Python values, keys and type attribute included) into a version-2 one, and returns it."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DeclarationError(
            f"@upgrade(version) takes the version it upgrades from (1 or more), not {version!r}"
        )

    def declare(function: Callable[[dict[str, Any]], dict[str, Any]]) -> Upgrade:
        if isinstance(function, staticmethod):
            function = function.__func__
        if not callable(function):
            raise DeclarationError(f"@upgrade({version}) decorates a function, not {function!r}")
        return Upgrade(version, function)

    return declare


@dataclass(frozen=True, slots=True)
class UpgradeChain:
    """An entity's current schema version and the upgrades from each older one."""

    entity: str
    current: int
    steps: Mapping[int, Upgrade]
    key_names: tuple[str, ...]

    @property
    def stamp(self) -> AV:
        return {"N": str(self.current)}

    def version_of(self, item: Mapping[str, AV]) -> int:
        """The schema version ``item`` was written at (1 when it has no ``_v``)."""
        av = item.get(VERSION_ATTRIBUTE)
        if av is None:
            return 1
        try:
            return int(av["N"])
        except (KeyError, TypeError, ValueError):
            raise UpgradeError(
                self.entity,
                self._key(item),
                None,
                None,
                f"its {VERSION_ATTRIBUTE} is {av!r}, not a whole number",
            ) from None

    def stale(self, item: Mapping[str, AV] | None) -> bool:
        """Whether ``item`` is an older version than the entity's."""
        return item is not None and self.version_of(item) < self.current

    def current_item(self, item: Mapping[str, AV]) -> Mapping[str, AV]:
        """``item`` brought to the current version: itself when it already is; else a new item, each
        attribute an upgrade left as it was kept exactly as stored (numbers keep every digit)."""
        version = self.version_of(item)
        if version == self.current:
            return item
        if version > self.current:
            raise UpgradeError(
                self.entity,
                self._key(item),
                version,
                None,
                f"it is schema version {version}, newer than the {self.current} {self.entity} declares: "
                "it was written by newer code",
            )
        stored = {name: av for name, av in item.items() if name != VERSION_ATTRIBUTE}
        plain = {name: load_any(av) for name, av in stored.items()}
        for step in range(version, self.current):
            upgrade = self.steps[step]
            try:
                plain = upgrade(dict(plain))
            except Exception as error:
                raise UpgradeError(
                    self.entity,
                    self._key(item),
                    step,
                    upgrade.name,
                    f"{type(error).__name__}: {error}",
                    error,
                ) from error
            if not isinstance(plain, Mapping):
                raise UpgradeError(
                    self.entity, self._key(item), step, upgrade.name, f"it returned {plain!r}, not a dict"
                )
        try:
            upgraded = {
                name: _stored(stored, name, value) for name, value in plain.items() if value is not None
            }
        except Exception as error:
            raise UpgradeError(
                self.entity, self._key(item), self.current - 1, None, f"its result cannot be stored: {error}"
            ) from error
        upgraded[VERSION_ATTRIBUTE] = self.stamp
        return upgraded

    def _key(self, item: Mapping[str, AV]) -> dict[str, Any]:
        return {n: next(iter(item[n].values())) for n in self.key_names if isinstance(item.get(n), Mapping)}


def _stored(stored: Mapping[str, AV], name: str, value: Any) -> AV:
    """The AttributeValue of an upgraded attribute: the stored one when the upgrade left it as read."""
    av = stored.get(name)
    if av is not None and load_any(av) == value:
        return av
    out = dump_any(value)
    if out is None:
        raise ValueError(f"attribute {name!r} is an empty set")
    return out


def declared_upgrades(cls: type[Any]) -> dict[int, Upgrade]:
    """The ``@upgrade`` functions of an entity's body (and its bases'), by the version each upgrades from."""
    found: dict[int, Upgrade] = {}
    for base in reversed(cls.__mro__):
        for value in base.__dict__.values():
            if isinstance(value, Upgrade):
                found[value.version] = value
    return found


def upgrade_chain(
    cls: type[Any], type_name: str, schema_version: int | None, key_names: tuple[str, ...]
) -> UpgradeChain | None:
    """The entity's chain, checked: every version from 1 to ``schema_version - 1`` upgraded exactly once."""
    steps = declared_upgrades(cls)
    if schema_version is None:
        if steps:
            raise DeclarationError(
                f"{cls.__name__}: @upgrade({min(steps)}) needs the class keyword schema_version=N "
                "(the version items are brought up to)"
            )
        return None
    if not isinstance(schema_version, int) or isinstance(schema_version, bool) or schema_version < 1:
        raise DeclarationError(
            f"{cls.__name__}: schema_version must be a whole number from 1, not {schema_version!r}"
        )
    missing = [v for v in range(1, schema_version) if v not in steps]
    if missing:
        raise DeclarationError(
            f"{cls.__name__}: schema_version={schema_version} but no @upgrade for version "
            f"{', '.join(map(str, missing))}: every version from 1 to {schema_version - 1} needs one "
            "(items without _v are version 1)"
        )
    extra = sorted(v for v in steps if v >= schema_version)
    if extra:
        raise DeclarationError(
            f"{cls.__name__}: @upgrade({extra[0]}) upgrades from a version that is not older than "
            f"schema_version={schema_version}"
        )
    return UpgradeChain(type_name, schema_version, steps, key_names)


def install(meta: EntityMeta, chain: UpgradeChain) -> None:
    """Make ``meta`` read through ``chain`` and stamp the current version on what it writes. Only entities
    that declare ``schema_version`` get these wrappers (instance attributes over the class's methods)."""
    cls = type(meta)
    current_item = chain.current_item
    stamp = chain.stamp

    def from_item(item: Mapping[str, AV], *, partial: bool = False) -> Any:
        return cls.from_item(meta, current_item(item), partial=partial)

    def decode(item: Mapping[str, AV]) -> dict[str, Any]:
        return cls.decode(meta, current_item(item))

    def to_item(values: Mapping[str, Any]) -> dict[str, AV]:
        item = cls.to_item(meta, values)
        item[VERSION_ATTRIBUTE] = stamp
        return item

    meta.upgrades = chain
    # this entity's own readers and writer, installed on its meta only (others keep the plain methods)
    meta.from_item = from_item  # type: ignore[method-assign]
    meta.decode = decode  # type: ignore[method-assign]
    meta.to_item = to_item  # type: ignore[method-assign]
    meta.read_builder = None  # the pager builds through from_item, which upgrades first


def upgraded_item(entity: Any, item: Mapping[str, AV]) -> dict[str, AV]:
    """``item`` (a stored item of ``entity``, as AttributeValues) brought to ``entity``'s current schema
    version through its ``@upgrade`` chain; the item itself when it is current or the entity declares no
    ``schema_version``. What reads apply, for code that handles raw items (a backfill, an export)."""
    meta = entity if hasattr(entity, "upgrades") else entity.model_entity()
    chain = meta.upgrades
    return dict(item) if chain is None else dict(chain.current_item(item))


def rewritten(meta: EntityMeta, item: Mapping[str, AV]) -> dict[str, AV]:
    """The item a write-back stores for an older ``item``: upgraded, then written as the entity writes it
    (every key template computed again, so the item joins the indexes its new fields key), with the
    attributes the entity does not know kept as the upgrade left them."""
    upgraded = meta.upgrades.current_item(item) if meta.upgrades is not None else item
    entity = meta.from_item(upgraded)
    known = set(meta.field_of) | set(meta.table.key_types) | {meta.table.type_attribute}
    return {**{n: av for n, av in upgraded.items() if n not in known}, **meta.to_item(meta.values(entity))}


def unchanged_item(image: Mapping[str, AV]) -> dict[str, Any]:
    """The condition parameters that hold only while the stored item still has every attribute of ``image``
    with the same value: what makes a write computed from ``image`` safe to send, and to send again. A lazy
    upgrade's write-back and every migration write are conditioned on it."""
    names: dict[str, str] = {}
    values: dict[str, AV] = {}
    parts = []
    for n, (name, av) in enumerate(sorted(image.items())):
        names[f"#u{n}"] = name
        values[f":u{n}"] = av
        parts.append(f"#u{n} = :u{n}")
    return {
        "ConditionExpression": " AND ".join(parts),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


def write_back_params(table_name: str, old: Mapping[str, AV], new: Mapping[str, AV]) -> dict[str, Any]:
    """A PutItem of the upgraded ``new`` that holds only while the stored item is still exactly ``old``:
    every attribute of ``old`` as read, and no version attribute where ``old`` had none. A concurrent writer
    wins; the upgrade is then simply not stored."""
    params = {"TableName": table_name, "Item": dict(new), **unchanged_item(old)}
    if VERSION_ATTRIBUTE not in old:
        params["ExpressionAttributeNames"]["#ov"] = VERSION_ATTRIBUTE
        params["ConditionExpression"] += " AND attribute_not_exists(#ov)"
    return params


# -- writing upgraded items back ---------------------------------------------------------------------------


def _read_items(operation: str, params: Mapping[str, Any], response: Mapping[str, Any]) -> list[Item]:
    """The whole items a read returned (none for a projection or a query of an index that does not hold
    whole items: those are not what a write-back may put)."""
    if "ProjectionExpression" in params or params.get("Select") not in (None, "ALL_ATTRIBUTES"):
        return []
    if operation == "GetItem":
        item = response.get("Item")
        return [item] if item is not None else []
    if operation in ("Query", "Scan"):
        return list(response.get("Items", ()))
    if operation == "BatchGetItem":
        return [item for items in response.get("Responses", {}).values() for item in items]
    if operation == "TransactGetItems":
        return [r["Item"] for r in response.get("Responses", ()) if r.get("Item") is not None]
    return []


WRITE_BACK_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})


def write_backs(
    table: Any, table_name: str, operation: str, params: Mapping[str, Any], response: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The conditional PutItems that store, upgraded, the items of older schema versions a read returned."""
    index = params.get("IndexName")
    if index is not None and any(i.name == index and i.projection != "ALL" for i in table.indexes):
        return []
    type_attribute = table.type_attribute
    out = []
    for item in _read_items(operation, params, response):
        kind = item.get(type_attribute, {}).get("S")
        meta = table.entities.get(kind) if kind is not None else None
        if meta is None or meta.upgrades is None or not meta.upgrades.stale(item):
            continue
        try:
            upgraded = rewritten(meta, item)
        except Exception:
            continue  # the read itself raises what is wrong with the item, naming it
        out.append(write_back_params(table_name, item, upgraded))
    return out


def _lost_race(error: Exception) -> bool:
    return getattr(error, "code", None) == "ConditionalCheckFailedException"


def writing_back(table: Any, table_name: str, call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Any:
    """``call``, storing each older item a read returns upgraded (conditionally on the image read; a
    concurrent writer wins silently). ``DB(..., write_back_upgrades=True)``."""

    def call_writing_back(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        response = call(operation, params)
        if operation in WRITE_BACK_READS:
            for put in write_backs(table, table_name, operation, params, response):
                try:
                    call("PutItem", put)
                except Exception as error:
                    if not _lost_race(error):
                        raise
        return response

    return call_writing_back


def writing_back_async(table: Any, table_name: str, call: Any) -> Any:
    """The awaited twin of :func:`writing_back`, for ``AsyncDB``."""

    async def call_writing_back(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await call(operation, params)
        if operation in WRITE_BACK_READS:
            for put in write_backs(table, table_name, operation, params, response):
                try:
                    await call("PutItem", put)
                except Exception as error:
                    if not _lost_race(error):
                        raise
        return response

    return call_writing_back
