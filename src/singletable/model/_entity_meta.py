"""An entity's compiled declaration: what the runtime knows of one entity type.

:class:`EntityMeta` is plain data built once, when the entity class is created (by the compiler in
:mod:`singletable.model._entity`): field specs with their codecs, key templates bound to those codecs,
uniqueness guards, timestamps and version fields, and the fast item decoder. Reads, writes, patterns and
derived items take an ``EntityMeta``; none of them needs the ``Entity`` base class, so this module sits below
all of them and imports none of them (the annotations name them for readers only).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from singletable.model._errors import (
    FieldTypeError,
    FieldValueError,
    KeyTemplateError,
    MissingKeyFields,
    PartialEntity,
    UnknownArgument,
)
from singletable.model._expr import Path
from singletable.model._field_checks import check_entity, field_check
from singletable.model._field_keys import empty_key_value
from singletable.model._field_values import AV, CanonicalSet, Codec, NumberRefused, refused
from singletable.model._item_writer import item_writer
from singletable.model._read_items import Fallback, FieldRefused, entity_builder
from singletable.model._source import class_source, field_limits
from singletable.model._templates import BoundKey
from singletable.model._vectors import VectorRefused, vector_shape

# The entities read with a projection (.select), by id, held weakly: only they lack fields because of what was
# read. Any other entity that lacks one was built without it (model_construct), and its errors say so.
_PROJECTED: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def read_with_projection(entity: Any) -> bool:
    """Whether ``entity`` is a partial entity a projection read (not one built without some fields)."""
    return _PROJECTED.get(id(entity)) is entity


if TYPE_CHECKING:  # annotations only: these modules import this one
    from singletable.model._derived import Derived
    from singletable.model._patterns import Pattern
    from singletable.model._similar import Similar
    from singletable.model._table import Table
    from singletable.model._upgrades import UpgradeChain


@dataclass(eq=False)
class FieldSpec:
    name: str
    attribute: str
    codec: Codec
    required: bool
    stored: bool = True  # False when the attribute is a key built from this field (seed 000's siteId)


@dataclass(eq=False)
class EntityMeta:
    """The compiled declaration of one entity type."""

    cls: type[Any]  # the Entity subclass (its module imports this one)
    type: str
    table: Table
    fields: dict[str, FieldSpec]
    keys: dict[str, BoundKey]
    unique: dict[str, BoundKey] = field(default_factory=dict)
    version: str | None = None
    ttl: str | None = None
    created: str | None = None
    updated: str | None = None
    derived: list[Derived] = field(default_factory=list)
    patterns: dict[str, Pattern] = field(default_factory=dict)
    searches: dict[str, Similar] = field(default_factory=dict)  # similarity searches (vector indexes)
    # Unique field -> primary-key fields its guard item also stores (seed 003's USEREMAIL#... Username).
    guard_carry: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Fields stored under attributes that indexes declared by field key on -> those indexes' names.
    field_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # schema_version and its @upgrade chain (model/_upgrades.py installs it); None for most entities.
    upgrades: UpgradeChain | None = None

    def __post_init__(self) -> None:
        table = self.table
        self.pk = self.keys[table.pk_name]
        self.sk = self.keys.get(table.sk_name) if table.sk_name else None
        self.primary_fields = tuple(dict.fromkeys(self.pk.needs + (self.sk.needs if self.sk else ())))
        self.primary_names = dict.fromkeys(self.primary_fields)  # what db.get(cls, **key) takes, in order
        self.attribute_of = {f.name: f.attribute for f in self.fields.values()}
        self.field_of = {f.attribute: f.name for f in self.fields.values()}
        self.type_av = {"S": self.type}
        self._stored = [(f.name, f.attribute, f.codec.dump) for f in self.fields.values() if f.stored]
        self._loads = [(f.name, f.attribute, f.codec.load) for f in self.fields.values() if f.stored]
        self._primary = [k for k in (self.pk, self.sk) if k is not None]
        self.secondary_keys = [k for a, k in self.keys.items() if k not in self._primary]
        # Fields that can be read back from keys: for projections that omit them and for unstored fields.
        self._recover: list[BoundKey] = [
            k for k in self.keys.values() if any(s.reversible for s in k.template.slots)
        ]
        self._unstored = [f.name for f in self.fields.values() if not f.stored]
        self._set_fields = [f.name for f in self.fields.values() if f.codec.kind in ("SS", "NS", "BS")]
        # Index keys built from createdAt. An upsert keeps the *stored* createdAt, so these keys must be built
        # from the stored value too (see plan_put). A primary key naming it makes it part of the item's
        # identity: the stored value is then the one in hand, and nothing extra is needed.
        self.created_keys = (
            [k for k in self.secondary_keys if self.created in k.needs]
            if self.created and self.created not in self.primary_fields
            else []
        )
        # Unique field -> every field its guard key is built from: itself, then the fields scoping it
        # (``STORE#{store_id}#EMAIL#{email}``); a change of any of them moves the guard.
        self.guard_fields = {name: bound.template.fields for name, bound in self.unique.items()}
        self._decode_stored = _decoder(self._loads, {f.name: f.codec.kind for f in self.fields.values()})
        recoverable = {s.field for key in self._recover for s in key.template.slots if s.reversible}
        # None: items of this entity are validated by pydantic
        self.builder = None if self._unstored else entity_builder(self.cls, self._attributes(), recoverable)
        # What a page builds its items with: the builder, unless reads must upgrade items first (then None,
        # and pages go through from_item).
        self.read_builder = self.builder
        # What writes an item (to_item): generated at the first write, when the declaration is complete.
        self._write_item: Callable[[Mapping[str, Any]], dict[str, AV]] = self._first_item

    def _attributes(self) -> dict[str, tuple[str, Codec]]:
        return {f.name: (f.attribute, f.codec) for f in self.fields.values()}

    # -- items ------------------------------------------------------------------------------------------

    def values(self, entity: Any) -> dict[str, Any]:
        """The field values of a whole entity, to be written as one item; a partial entity (read with a
        projection) is refused, since its unloaded fields would be written as defaults."""
        values = dict(entity.__dict__)
        if len(values) < len(self.fields):
            missing = [n for n in self.fields if n not in values]
            raise PartialEntity(self.type, missing, projected=read_with_projection(entity))
        return values

    def to_item(self, values: Mapping[str, Any]) -> dict[str, AV]:
        """The item for a complete entity: stored fields, every applicable key, the type attribute. Each
        value is checked against its field's type (:class:`FieldTypeError`), then the whole against the
        entity's declared validation (:class:`FieldValueError`), so nothing is stored that a read refuses.

        Written by the entity's generated writer (:mod:`singletable.model._item_writer`); whatever it does
        not settle is written, or refused with its message, by :meth:`checked_item`."""
        try:
            return self._write_item(values)
        except Exception:  # not settled there: decided below, outside this handler (no chained context)
            pass
        return self.checked_item(values)

    def _first_item(self, values: Mapping[str, Any]) -> dict[str, AV]:
        """The first item written: the writer is generated now, once the declaration is complete."""
        self._write_item = item_writer(self)
        return self._write_item(values)

    def checked_item(self, values: Mapping[str, Any]) -> dict[str, AV]:
        """:meth:`to_item` the careful way, field by field and key part by key part: the item, or the error
        naming the entity, field and value refused."""
        item: dict[str, AV] = {}
        for name, attr, dump in self._stored:
            value = values.get(name)
            if value is None:
                if self.fields[name].required:
                    raise FieldValueError(self.type, name, self.fields[name].codec.expected, None, _ABSENT)
            else:
                try:
                    av = dump(value)
                except Exception as error:
                    if isinstance(error, VectorRefused | NumberRefused):
                        raise FieldValueError(
                            self.type, name, self.fields[name].codec.expected, value, str(error)
                        ) from None
                    if refused(error):
                        raise FieldTypeError(
                            self.type, name, self.fields[name].codec.expected, value
                        ) from None
                    raise
                if av is not None:
                    item[attr] = av
                elif self.fields[name].required:  # an empty set: not stored, and then never read back
                    raise FieldValueError(
                        self.type,
                        name,
                        self.fields[name].codec.expected,
                        value,
                        "DynamoDB stores no empty set, so this required field (no default) would be absent "
                        "and the item unreadable; give the field a default (= set()) or a value",
                    )
        check_entity(self, values)
        for name in self.field_keys:
            refuse_empty_key(self, name, values.get(name))
        for key in self._primary:
            if not key.applies(values):
                raise MissingKeyFields(self.type, key.attribute, key.template.text, key.missing(values))
            item[key.attribute] = key.value(values)
        for key in self.secondary_keys:
            if key.applies(values):
                item[key.attribute] = key.value(values)
        item[self.table.type_attribute] = self.type_av
        return item

    def primary_key(self, values: Mapping[str, Any]) -> dict[str, AV]:
        key = {}
        for bound in self._primary:
            missing = bound.missing(values)
            if missing:
                raise MissingKeyFields(
                    self.type,
                    bound.attribute,
                    bound.template.text,
                    missing,
                    "to address one item give every primary-key field",
                )
            key[bound.attribute] = bound.value(values)
        return key

    def decode(self, item: Mapping[str, AV]) -> dict[str, Any]:
        data = self._decode_stored(item)
        if len(data) < len(self.fields):
            for key in self._recover:
                av = item.get(key.attribute)
                text = av.get("S", av.get("N")) if av is not None else None  # N: a field stored as the key
                if text is None:
                    continue
                parsed = key.parse(text)
                if parsed:
                    for name, value in parsed.items():
                        data.setdefault(name, value)
        return data

    def from_item(self, item: Mapping[str, AV], *, partial: bool = False) -> Any:
        if not partial and self.builder is not None:
            try:
                return self.builder(item)  # the codecs already gave the declared types (model/_read_items.py)
            except Fallback:
                pass
        data = self.decode(item)
        if partial:  # projections: validate each field that is there; the rest are absent, not defaults
            loaded = {k: _loaded(field_check(self, k), v) for k, v in data.items()}
            entity = self.cls.model_construct(**loaded)
            state = entity.__dict__
            for name in self.fields:
                if name not in loaded:
                    state.pop(name, None)  # reading it raises FieldNotLoaded (Entity.__getattr__)
            _PROJECTED[id(entity)] = entity
        else:
            entity = self.cls.model_validate(data)
        return self._canonical_sets(entity) if self._set_fields else entity

    def _canonical_sets(self, entity: Any) -> Any:
        """Validation rebuilds set fields as plain sets; give them back the canonical order the codecs read
        them in (what the fast builders return), so output never depends on ``PYTHONHASHSEED``."""
        values = entity.__dict__
        for name in self._set_fields:
            value = values.get(name)
            if type(value) is set:
                values[name] = CanonicalSet(value)
        return entity

    def matches(self, item: Mapping[str, AV]) -> bool:
        """Whether an item is of this type: by the type attribute, else by the shape of its keys."""
        av = item.get(self.table.type_attribute)
        if av is not None:
            return av.get("S") == self.type
        for key in self._primary:
            stored = item.get(key.attribute)
            if stored is None or ("S" in stored and key.parse(stored["S"]) is None):
                return False
        return True

    # -- introspection ----------------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        lines = class_source(self.cls)
        return {
            "type": self.type,
            "class": self.cls.__qualname__,
            "source": lines.at(None) if lines else None,
            "fields": [
                {
                    "name": f.name,
                    "attribute": f.attribute,
                    "type": f.codec.kind,
                    "python": getattr(f.codec.python, "__name__", None),
                    "required": f.required,
                    "stored": f.stored,
                    "vector": _dimensions(self.cls.model_fields[f.name]),
                    **field_limits(self.cls.model_fields[f.name]),
                    "source": lines.member(f.name) if lines else None,
                }
                for f in self.fields.values()
            ],
            "keys": [
                k.describe() | {"source": lines.key(k.attribute) if lines else None}
                for k in self.keys.values()
            ],
            "unique": [
                {"field": n, "guard": k.template.text}
                | ({"carries": list(self.guard_carry[n])} if self.guard_carry.get(n) else {})
                for n, k in self.unique.items()
            ],
            "version": self.version,
            "ttl": self.ttl,
            "timestamps": {"created": self.created, "updated": self.updated},
            "derived": [d.describe() for d in self.derived],
            "patterns": [p.describe() for p in self.patterns.values()],
            "searches": [s.describe() for s in self.searches.values()],
        }


def _dimensions(info: Any) -> int | None:
    """A vector field's dimensions (``= Vector(768)``), for introspection; None for other fields."""
    shape = vector_shape(info)
    return shape.dimensions if shape is not None else None


# Why None (or nothing) cannot be written to a required field: None is stored as no attribute at all.
_ABSENT = (
    "None is stored as no attribute, and the field is required (no default), so the item could not be read "
    "back; give the field a default (= None) or a value"
)


def _loaded(check: Any, value: Any) -> Any:
    """A field read with a projection, validated as a whole item's field is (its constraints, choices and
    field validators); a refusal names the field (:class:`FieldRefused`, reported as StoredItemError)."""
    if check.adapter is None or value is None:
        return value
    try:
        return check.adapter.validate_python(value)
    except ValueError as error:
        raise FieldRefused(check.field, error) from None


def _returns_text(load: Callable[[AV], Any]) -> bool:
    """Whether a string codec hands the text back unchanged, so decoding may skip calling it.

    Codecs that validate (an enum refuses ``"x"``) must always be called.
    """
    try:
        return load({"S": "x"}) == "x"
    except (ValueError, TypeError):
        return False


def _decoder(
    loads: list[tuple[str, str, Callable[[AV], Any]]], kinds: dict[str, str]
) -> Callable[[Mapping[str, AV]], dict[str, Any]]:
    """One straight-line function per entity: reading items is the hot path of every query.

    Strings are taken from the AttributeValue inline; other types call their codec. Generated from the
    entity's own field list (names are passed as constants, never spliced into code).
    """
    lines = ["def decode(item):", "    data = {}", "    get = item.get"]
    env: dict[str, Any] = {}
    for i, (name, attr, load) in enumerate(loads):
        env[f"A{i}"], env[f"N{i}"], env[f"L{i}"] = attr, name, load
        lines.append(f"    av = get(A{i})")
        if kinds[name] == "S" and load.__name__ == "<lambda>" and _returns_text(load):
            lines += [
                "    if av is not None:",
                "        v = av.get('S')",
                "        if v is not None:",
                f"            data[N{i}] = v",
                "        elif 'NULL' not in av:",
                f"            data[N{i}] = L{i}(av)",  # another type: the codec raises (StoredItemError)
            ]
        else:
            lines += ["    if av is not None and 'NULL' not in av:", f"        data[N{i}] = L{i}(av)"]
    lines.append("    return data")
    exec("\n".join(lines), env)
    return env["decode"]


class Fields:
    """``Entity.f``: typed references to the entity's fields, for conditions, filters and updates."""

    def __init__(self, meta: EntityMeta) -> None:
        self._meta = meta
        self._cache: dict[str, Path] = {}

    def __getattr__(self, name: str) -> Path:
        if name.startswith("_"):
            raise AttributeError(name)
        path = self._cache.get(name)
        if path is None:
            spec = self._meta.fields.get(name)
            if spec is None:
                raise AttributeError(
                    f"{self._meta.type} has no field {name!r}; its fields are {', '.join(self._meta.fields)}"
                )
            path = self._cache[name] = Path(self._meta.type, name, (spec.attribute,), spec.codec)
        return path

    def __getitem__(self, name: str) -> Path:
        return self.__getattr__(name)

    def __dir__(self) -> Iterable[str]:
        return list(self._meta.fields)


def refuse_empty_key(meta: EntityMeta, name: str, value: Any) -> None:
    """DynamoDB refuses an empty string or binary in an index key attribute (the whole write fails): a field
    an index keys on is refused such a value before any request, naming the field and the indexes."""
    if empty_key_value(value):
        indexes = ", ".join(meta.field_keys[name])
        raise KeyTemplateError(
            f"{meta.type}.{name} = {value!r} is empty, and GSI {indexes} keys on it; DynamoDB refuses empty "
            "strings and binaries in index key attributes (give it a value, or None to leave the item out of "
            "the index)"
        )


def refuse_unknown(where: str, given: Iterable[str], valid: Collection[str]) -> None:
    """Raise :class:`UnknownArgument` if ``given`` names anything ``valid`` does not hold (cheap when all is
    well: reads call it on every request, so ``valid`` should be a set or dict there)."""
    for name in given:
        if name not in valid:
            allowed = list(valid)
            raise UnknownArgument(where, [n for n in given if n not in allowed], allowed)


@dataclass(frozen=True)
class KeyRef:
    """One entity's address, from ``Post.key(slug="x")`` or ``post.key()``."""

    meta: EntityMeta
    values: Mapping[str, Any]

    def item_key(self) -> dict[str, AV]:
        return self.meta.primary_key(self.values)
