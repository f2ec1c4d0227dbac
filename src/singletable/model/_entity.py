"""Entities: pydantic v2 models that know their type name, key templates and item shape.

Everything about an entity that the runtime needs is compiled once, when the class is created, into an
:class:`EntityMeta` (plain data, also the introspection source). Declaration mistakes -- a key attribute the
table does not have, a template naming a missing field, a numeric key from a text field -- fail at import,
not at the first request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, TypeAdapter

from singletable.model._construct import Fallback, entity_builder
from singletable.model._errors import DeclarationError, MissingKeyFields
from singletable.model._expr import Path
from singletable.model._table import Table
from singletable.model._templates import BoundKey, Key, Keys, KeyTemplate
from singletable.model._values import AV, Codec, build_codec, ttl_codec

if TYPE_CHECKING:
    from singletable.model._derived import Derived
    from singletable.model._patterns import Pattern


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

    cls: type[Entity]
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
    # Unique field -> primary-key fields its guard item also stores (seed 003's USEREMAIL#... Username).
    guard_carry: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        table = self.table
        self.pk = self.keys[table.pk_name]
        self.sk = self.keys.get(table.sk_name) if table.sk_name else None
        self.primary_fields = tuple(dict.fromkeys(self.pk.needs + (self.sk.needs if self.sk else ())))
        self.attribute_of = {f.name: f.attribute for f in self.fields.values()}
        self.field_of = {f.attribute: f.name for f in self.fields.values()}
        self._type_av = {"S": self.type}
        self._stored = [(f.name, f.attribute, f.codec.dump) for f in self.fields.values() if f.stored]
        self._loads = [(f.name, f.attribute, f.codec.load) for f in self.fields.values() if f.stored]
        self._primary = [k for k in (self.pk, self.sk) if k is not None]
        self._secondary = [k for a, k in self.keys.items() if k not in self._primary]
        # Fields that can be read back from keys: for projections that omit them and for unstored fields.
        self._recover: list[BoundKey] = [
            k for k in self.keys.values() if any(s.reversible for s in k.template.slots)
        ]
        self._unstored = [f.name for f in self.fields.values() if not f.stored]
        # Index keys built from createdAt. An upsert keeps the *stored* createdAt, so these keys must be built
        # from the stored value too (see plan_put). A primary key naming it makes it part of the item's
        # identity: the stored value is then the one in hand, and nothing extra is needed.
        self._created_keys = (
            [k for k in self._secondary if self.created in k.needs]
            if self.created and self.created not in self.primary_fields
            else []
        )
        self._decode_stored = _decoder(self._loads, {f.name: f.codec.kind for f in self.fields.values()})
        self._build = entity_builder(self)  # None: items of this entity are validated by pydantic

    # -- items ------------------------------------------------------------------------------------------

    def values(self, entity: Entity, **overrides: Any) -> dict[str, Any]:
        values = dict(entity.__dict__)
        values.update(overrides)
        return values

    def to_item(self, values: Mapping[str, Any]) -> dict[str, AV]:
        """The item for a complete entity: stored fields, every applicable key, the type attribute."""
        item: dict[str, AV] = {}
        for name, attr, dump in self._stored:
            value = values.get(name)
            if value is not None:
                av = dump(value)
                if av is not None:
                    item[attr] = av
        for key in self._primary:
            if not key.applies(values):
                raise MissingKeyFields(self.type, key.attribute, key.template.text, key.missing(values))
            item[key.attribute] = key.value(values)
        for key in self._secondary:
            if key.applies(values):
                item[key.attribute] = key.value(values)
        item[self.table.type_attribute] = self._type_av
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
                if av is None or "S" not in av:
                    continue
                parsed = key.parse(av["S"])
                if parsed:
                    for name, value in parsed.items():
                        data.setdefault(name, value)
        return data

    def from_item(self, item: Mapping[str, AV], *, partial: bool = False) -> Entity:
        if not partial and self._build is not None:
            try:
                return self._build(item)  # the codecs already gave the declared types (model/_construct.py)
            except Fallback:
                pass
        data = self.decode(item)
        if partial:  # projections: validate each field that is there, leave the rest unset
            return self.cls.model_construct(
                **{k: self._adapter(k).validate_python(v) for k, v in data.items()}
            )
        return self.cls.model_validate(data)

    def _adapter(self, name: str) -> TypeAdapter[Any]:
        adapters = self.__dict__.setdefault("_adapters", {})
        adapter = adapters.get(name)
        if adapter is None:
            adapter = adapters[name] = TypeAdapter(self.cls.model_fields[name].annotation)
        return adapter

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
        return {
            "type": self.type,
            "class": self.cls.__qualname__,
            "fields": [
                {
                    "name": f.name,
                    "attribute": f.attribute,
                    "type": f.codec.kind,
                    "python": getattr(f.codec.python, "__name__", None),
                    "required": f.required,
                    "stored": f.stored,
                }
                for f in self.fields.values()
            ],
            "keys": [k.describe() for k in self.keys.values()],
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
        }


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
                raise AttributeError(f"{self._meta.type} has no field {name!r}")
            path = self._cache[name] = Path(self._meta.type, name, (spec.attribute,), spec.codec)
        return path

    def __getitem__(self, name: str) -> Path:
        return self.__getattr__(name)

    def __dir__(self) -> Iterable[str]:
        return list(self._meta.fields)


@dataclass(frozen=True)
class KeyRef:
    """One entity's address, from ``Post.key(slug="x")`` or ``post.key()``."""

    meta: EntityMeta
    values: Mapping[str, Any]

    def item_key(self) -> dict[str, AV]:
        return self.meta.primary_key(self.values)


class _HybridKey:
    """``Post.key(slug="x")`` on the class, ``post.key()`` on an instance."""

    def __get__(self, instance: Entity | None, owner: type[Entity]) -> Callable[..., KeyRef]:
        def key(*args: Any, **values: Any) -> KeyRef:
            meta = owner.model_entity()
            if instance is not None:
                values = {**instance.__dict__, **values}
            if args:
                values.update(zip(meta.primary_fields, args, strict=False))
            return KeyRef(meta, values)

        return key


def _ignored() -> tuple[type, ...]:
    from singletable.model._derived import Derived
    from singletable.model._patterns import Pattern

    return (Keys, Key, Pattern, Derived)


class Entity(BaseModel):
    """Base class of entities: ``class User(Entity, table=app, type="USER"): ...``.

    Class keywords: ``table``, ``type`` (the type attribute's value), ``unique`` (field names, or a mapping
    of field name to guard key template, or to ``(template, *key_fields)`` when the guard item should also
    store some of the owner's primary-key fields, which never change), ``version`` (an int field for
    optimistic locking), ``ttl`` (a datetime field stored as epoch seconds), ``timestamps=False`` to opt out
    of created/updated upkeep.
    In the body: ``keys = Keys(...)``, named access patterns, derived items.
    """

    model_config = ConfigDict(ignored_types=_ignored(), populate_by_name=True, extra="ignore")

    __entity_meta__: ClassVar[EntityMeta | None] = None
    f: ClassVar[Fields]
    key: ClassVar[Any] = _HybridKey()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Class keywords are consumed by __pydantic_init_subclass__, once pydantic has built the fields.
        super().__init_subclass__()

    @classmethod
    def __pydantic_init_subclass__(
        cls,
        *,
        table: Table | None = None,
        type: str | None = None,
        unique: Iterable[str] | Mapping[str, str | tuple[str, ...]] = (),
        version: str | None = None,
        ttl: str | None = None,
        timestamps: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if table is None:
            return
        meta = _compile(cls, table, type or cls.__name__.upper(), unique, version, ttl, timestamps)
        cls.__entity_meta__ = meta
        cls.f = Fields(meta)
        if meta.type in table.entities and table.entities[meta.type].cls.__qualname__ != cls.__qualname__:
            raise DeclarationError(f"two entities on table {table.name} use the type name {meta.type!r}")
        table.entities[meta.type] = meta

    @classmethod
    def model_entity(cls) -> EntityMeta:
        if cls.__entity_meta__ is None:
            raise DeclarationError(
                f"{cls.__name__} is not bound to a table (class {cls.__name__}(Entity, table=..., type=...))"
            )
        return cls.__entity_meta__


def _compile(
    cls: type[Entity],
    table: Table,
    type_name: str,
    unique: Iterable[str] | Mapping[str, str | tuple[str, ...]],
    version: str | None,
    ttl: str | None,
    timestamps: bool,
) -> EntityMeta:
    """The class's declaration checked and compiled, in order: keys named, fields typed, key templates bound,
    uniqueness guards, then the patterns and derived items declared in the body."""
    declared = _declared_keys(cls, table)
    fields = _field_specs(cls, table, version, ttl)
    codecs = {n: f.codec for n, f in fields.items()}
    keys = _bound_keys(cls, table, type_name, declared, fields, codecs)
    guards, carry = _guards(cls, table, type_name, unique, fields, keys, codecs)
    stamps = table.timestamps if timestamps else (None, None)
    created, updated = (name if name in fields else None for name in stamps)
    meta = EntityMeta(cls, type_name, table, fields, keys, guards, version, ttl, created, updated)
    meta.guard_carry = carry
    _bind_members(cls, meta)
    return meta


def _declared_keys(cls: type[Entity], table: Table) -> Keys:
    """``keys = Keys(...)`` over the class and its bases; every attribute must be a key of the table."""
    declared: Keys = Keys()
    for base in reversed(cls.__mro__):
        if isinstance(base.__dict__.get("keys"), Keys):
            declared.update(base.__dict__["keys"])
    key_types = table.key_types
    for attr in declared:
        if attr not in key_types:
            raise DeclarationError(
                f"{cls.__name__}: Keys({attr}=...) but the table declares no key attribute "
                f"{attr}; its key attributes are {sorted(key_types)}"
            )
    for required in filter(None, (table.pk_name, table.sk_name)):
        if required not in declared:
            raise DeclarationError(f"{cls.__name__}: keys must give the table's {required}")
    return declared


def _field_specs(
    cls: type[Entity], table: Table, version: str | None, ttl: str | None
) -> dict[str, FieldSpec]:
    """Each pydantic field's attribute name and codec; the version and TTL fields must fit their job."""
    fields: dict[str, FieldSpec] = {}
    for name, info in cls.model_fields.items():
        attribute = info.alias or table.attribute_name(name)
        codec = ttl_codec() if name == ttl else build_codec(info.annotation, table.datetime_precision)
        fields[name] = FieldSpec(name, attribute, codec, info.is_required())
    if version and (version not in fields or fields[version].codec.python is not int):
        raise DeclarationError(f"{cls.__name__}: version={version!r} must name an int field")
    if ttl and ttl not in fields:
        raise DeclarationError(f"{cls.__name__}: ttl={ttl!r} must name a datetime field")
    return fields


def _bound_keys(
    cls: type[Entity],
    table: Table,
    type_name: str,
    declared: Keys,
    fields: dict[str, FieldSpec],
    codecs: dict[str, Codec],
) -> dict[str, BoundKey]:
    """Every declared key template bound to the fields' codecs (a key that *is* a field is not a template)."""
    keys: dict[str, BoundKey] = {}
    for attr, key in declared.items():
        template = KeyTemplate.parse(key.template)
        for name in (*template.fields, *key.when_fields):
            if name not in fields:
                raise DeclarationError(
                    f"{cls.__name__}: {attr} = {key.template!r} uses {name!r}, which is "
                    f"not a field; fields are {sorted(fields)}"
                )
        kind = table.key_types[attr]
        if kind == "N" and (len(template.parts) != 1 or fields[template.fields[0]].codec.kind != "N"):
            raise DeclarationError(
                f"{cls.__name__}: {attr} is a Number key, so its template must be a single "
                "numeric field like '{stars}'"
            )
        if _key_is_its_field(cls, attr, key, template, fields):
            continue
        otherwise = None
        if key.otherwise is not None:
            alt = KeyTemplate.parse(key.otherwise)
            otherwise = BoundKey(attr, alt, kind, codecs, table.delimiter, type_name)
        keys[attr] = BoundKey(
            attr, template, kind, codecs, table.delimiter, type_name, key.when, key.when_fields, otherwise
        )
    return keys


def _key_is_its_field(
    cls: type[Entity], attr: str, key: Key, template: KeyTemplate, fields: dict[str, FieldSpec]
) -> bool:
    """Whether key ``attr`` is simply the field stored under that name. A key built from the field that
    shares its attribute must give the field back when parsed, and then the field is not stored itself."""
    owner = next((f for f in fields.values() if f.attribute == attr), None)
    if owner is None:
        return False
    if template.text == "{" + owner.name + "}" and key.when is None:
        return True  # the key *is* the field, stored as itself
    recoverable = any(s.field == owner.name and s.reversible for s in template.slots)
    if not recoverable:
        raise DeclarationError(
            f"{cls.__name__}: field {owner.name} is stored as {attr}, which is also a key built from "
            f"{key.template!r}; give the field another name with Field(alias=...)"
        )
    owner.stored = False
    return False


def _guards(
    cls: type[Entity],
    table: Table,
    type_name: str,
    unique: Iterable[str] | Mapping[str, str | tuple[str, ...]],
    fields: dict[str, FieldSpec],
    keys: dict[str, BoundKey],
    codecs: dict[str, Codec],
) -> tuple[dict[str, BoundKey], dict[str, tuple[str, ...]]]:
    """The guard key of each unique field, and the primary-key fields each guard item also carries."""
    guards: dict[str, BoundKey] = {}
    carry: dict[str, tuple[str, ...]] = {}
    primary = keys[table.pk_name].needs + (keys[table.sk_name].needs if table.sk_name in keys else ())
    items = unique.items() if isinstance(unique, Mapping) else ((n, None) for n in unique)
    for name, spec in items:
        if name not in fields:
            raise DeclarationError(f"{cls.__name__}: unique field {name!r} is not a field")
        template_text, *carried = spec if isinstance(spec, tuple) else (spec,)
        for extra in carried:
            if extra not in primary:
                raise DeclarationError(
                    f"{cls.__name__}: the guard of {name} can carry primary-key fields only (they never "
                    f"change, so the guard cannot go stale); {extra!r} is not one"
                )
        if carried:
            carry[name] = tuple(carried)
        text = template_text or f"UNIQUE#{type_name}#{fields[name].attribute}#{{{name}}}"
        guards[name] = BoundKey(
            table.pk_name, KeyTemplate.parse(text), "S", codecs, table.delimiter, type_name
        )
    return guards, carry


def _bind_members(cls: type[Entity], meta: EntityMeta) -> None:
    """The access patterns and derived items declared in the class body, bound to the compiled entity."""
    from singletable.model._derived import Derived
    from singletable.model._patterns import Pattern

    for name, value in cls.__dict__.items():
        if isinstance(value, Pattern):
            meta.patterns[name] = value.bind(meta, name)
        elif isinstance(value, Derived):
            meta.derived.append(value.bind(meta, name))
