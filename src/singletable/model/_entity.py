"""Entities: the ``Entity`` base class and the compiler that turns a declaration into an EntityMeta.

Everything about an entity that the runtime needs is compiled once, when the class is created, into an
:class:`~singletable.model._entity_meta.EntityMeta` (plain data, also the introspection source). Declaration
mistakes -- a key attribute the table does not have, a template naming a missing field, a numeric key from a
text field -- fail at import, not at the first request. The compiler knows the access patterns and derived
items declared in a class body and binds them to the compiled entity; they, in turn, only ever see the
``EntityMeta`` (the dependency runs one way).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from singletable.model._derived import Derived
from singletable.model._entity_meta import (
    EntityMeta,
    Fields,
    FieldSpec,
    KeyRef,
    read_with_projection,
    refuse_unknown,
)
from singletable.model._errors import DeclarationError, FieldNotLoaded
from singletable.model._field_keys import empty_key_value, key_type_of
from singletable.model._field_values import Codec, build_codec, ttl_codec
from singletable.model._patterns import Pattern
from singletable.model._similar import Similar
from singletable.model._table import Table
from singletable.model._templates import BoundKey, Key, Keys, KeyTemplate
from singletable.model._upgrades import Upgrade, install, upgrade_chain
from singletable.model._vectors import vector_codec, vector_shape


class _HybridKey:
    """``Post.key(slug="x")`` on the class, ``post.key()`` on an instance."""

    def __get__(self, instance: Entity | None, owner: type[Entity]) -> Callable[..., KeyRef]:
        def key(*args: Any, **values: Any) -> KeyRef:
            meta = owner.model_entity()
            if values:
                refuse_unknown(f"{owner.__name__}.key()", values, meta.fields)
            if instance is not None:
                values = {**instance.__dict__, **values}
            if args:
                values.update(zip(meta.primary_fields, args, strict=False))
            return KeyRef(meta, values)

        return key


def _constructor_names(cls: type[BaseModel]) -> dict[str, None]:
    """The keyword arguments an entity's constructor takes: its field names, then their aliases."""
    names = dict.fromkeys(cls.__pydantic_fields__)
    for info in cls.__pydantic_fields__.values():
        if info.alias:
            names[info.alias] = None
    return names


_init_names: dict[type[BaseModel], dict[str, None]] = {}


class Entity(BaseModel):
    """Base class of entities: ``class User(Entity, table=app, type="USER"): ...``.

    Class keywords: ``table``, ``type`` (the type attribute's value), ``unique`` (field names, or a mapping
    of field name to guard key template, or to ``(template, *key_fields)`` when the guard item should also
    store some of the owner's primary-key fields, which never change), ``version`` (an int field for
    optimistic locking), ``ttl`` (a datetime field stored as epoch seconds), ``timestamps=False`` to opt out
    of created/updated upkeep, ``schema_version`` (the version items are stored at; older ones are upgraded
    on read by the ``@upgrade`` functions of the body).
    In the body: ``keys = Keys(...)``, named access patterns, derived items.
    """

    model_config = ConfigDict(
        ignored_types=(Keys, Key, Pattern, Similar, Derived, Upgrade), populate_by_name=True, extra="ignore"
    )

    __entity_meta__: ClassVar[EntityMeta | None] = None
    f: ClassVar[Fields]
    key: ClassVar[_HybridKey] = _HybridKey()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Class keywords are consumed by __pydantic_init_subclass__, once pydantic has built the fields.
        super().__init_subclass__()

    def __init__(self, /, **data: Any) -> None:
        # pydantic would drop an unknown name silently (extra="ignore"): a misspelt optional field would
        # quietly take its default. Items read from the table never come through here (model/_read_items.py).
        cls = type(self)
        names = _init_names.get(cls)
        if names is None:
            names = _init_names[cls] = _constructor_names(cls)
        for name in data:
            if name not in names:
                refuse_unknown(f"{cls.__name__}()", data, names)
        super().__init__(**data)

    if not TYPE_CHECKING:  # type checkers must keep seeing unknown attributes as errors

        def __getattr__(self, name: str) -> Any:
            # Only reached when normal lookup fails: a whole entity holds every field in its __dict__, so a
            # field missing there is one a projection did not load (model/_entity_meta.py, from_item).
            cls = type(self)
            if name in cls.__pydantic_fields__ and cls.__entity_meta__ is not None:
                projected = read_with_projection(self)
                raise FieldNotLoaded(cls.__entity_meta__.type, name, list(self.__dict__), projected=projected)
            return super().__getattr__(name)

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
        schema_version: int | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise DeclarationError(
                f"{cls.__name__}: unknown class keyword(s) {', '.join(kwargs)}; an entity takes "
                "table, type, unique, version, ttl, timestamps, schema_version"
            )
        super().__pydantic_init_subclass__()
        if table is None:
            return
        meta = _compile(cls, table, type or cls.__name__.upper(), unique, version, ttl, timestamps)
        key_names = tuple(n for n in (table.pk_name, table.sk_name) if n)
        chain = upgrade_chain(cls, meta.type, schema_version, key_names)
        if chain is not None:
            install(meta, chain)
        cls.__entity_meta__ = meta
        cls.f = Fields(meta)
        if meta.type in table.entities and table.entities[meta.type].cls.__qualname__ != cls.__qualname__:
            raise DeclarationError(f"two entities on table {table.name} use the type name {meta.type!r}")
        table.check_ttl(meta)
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
    field_keys = _field_keys(cls, table, fields)
    guards, carry = _guards(cls, table, type_name, unique, fields, keys, codecs, version)
    stamps = table.timestamps if timestamps else (None, None)
    created, updated = (name if name in fields else None for name in stamps)
    meta = EntityMeta(cls, type_name, table, fields, keys, guards, version, ttl, created, updated)
    meta.guard_carry = carry
    meta.field_keys = field_keys
    _bind_members(cls, meta)
    return meta


def _declared_keys(cls: type[Entity], table: Table) -> Keys:
    """``keys = Keys(...)`` over the class and its bases; every attribute must be a key of the table."""
    declared: Keys = Keys()
    for base in reversed(cls.__mro__):
        if isinstance(base.__dict__.get("keys"), Keys):
            declared.update(base.__dict__["keys"])
    key_types = table.key_types
    field_keyed = table.field_key_parts()
    for attr in declared:
        if attr in field_keyed:
            raise DeclarationError(
                f"{cls.__name__}: Keys({attr}=...) but GSI {field_keyed[attr][0][0].name} keys on the field "
                f"stored as {attr} itself, typed, not on a template; drop {attr} from Keys"
            )
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
        shape = vector_shape(info)
        if name == ttl:
            codec = ttl_codec()
        elif shape is not None:
            codec = vector_codec(cls.__name__, name, info, shape)
        else:
            codec = build_codec(info.annotation, table.datetime_precision)
        fields[name] = FieldSpec(name, attribute, codec, info.is_required())
    _check_vector_fields(cls, table, fields)
    if version and (version not in fields or fields[version].codec.python is not int):
        raise DeclarationError(f"{cls.__name__}: version={version!r} must name an int field")
    if ttl and ttl not in fields:
        raise DeclarationError(f"{cls.__name__}: ttl={ttl!r} must name a datetime field")
    return fields


def _check_vector_fields(cls: type[Entity], table: Table, fields: dict[str, FieldSpec]) -> None:
    """Each field stored as a vector index's attribute must be a vector of that index's dimensions, and each
    stored as a search-schema attribute a scalar of the type the index declares."""
    by_attribute = {f.attribute: f for f in fields.values()}
    for index in table.vector_indexes:
        spec = by_attribute.get(index.vector)
        if spec is not None:
            shape = vector_shape(cls.model_fields[spec.name])
            if shape is None:
                raise DeclarationError(
                    f"{cls.__name__}.{spec.name} is stored as {index.vector}, the vector attribute of "
                    f"{index.name}, so it must be a vector: {spec.name}: list[float] = "
                    f"Vector({index.dimensions})"
                )
            if shape.dimensions != index.dimensions:
                raise DeclarationError(
                    f"{cls.__name__}.{spec.name} is Vector({shape.dimensions}), but {index.name} indexes "
                    f"{index.vector} with {index.dimensions} dimensions; DynamoDB would refuse every write"
                )
        for attribute, kind, role in index.schema:
            spec = by_attribute.get(attribute)
            if spec is not None and spec.codec.kind not in _SCHEMA_KINDS[kind]:
                raise DeclarationError(
                    f"{cls.__name__}.{spec.name} ({spec.codec.expected}) is stored as {attribute}, a {kind} "
                    f"attribute of {index.name}'s search schema ({role}); declare it in the index as "
                    f"({attribute!r}, ...) of its own type, or store it as a {kind}"
                )


# Codec kinds a search-schema attribute of each DynamoDB type can be written from.
_SCHEMA_KINDS = {"S": ("S", "DT"), "N": ("N", "TTL"), "B": ("B",)}


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
        if _key_is_its_field(cls, table, attr, key, template, fields):
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
    cls: type[Entity],
    table: Table,
    attr: str,
    key: Key,
    template: KeyTemplate,
    fields: dict[str, FieldSpec],
) -> bool:
    """Whether index key ``attr`` is simply the field stored under that name. A key built from the field
    that shares its attribute must give the field back when parsed, and then the field is not stored
    itself. The table's own key attributes are always bound templates (every read and write addresses the
    item through them), so a field stored as one (a Workbench import's ``PK``) is read back from the key."""
    owner = next((f for f in fields.values() if f.attribute == attr), None)
    if owner is None:
        return False
    primary = attr in (table.pk_name, table.sk_name)
    if template.text == "{" + owner.name + "}" and key.when is None and not primary:
        return True  # the key *is* the field, stored as itself
    recoverable = any(s.field == owner.name and s.reversible for s in template.slots)
    if not recoverable:
        raise DeclarationError(
            f"{cls.__name__}: field {owner.name} is stored as {attr}, which is also a key built from "
            f"{key.template!r}; give the field another name with Field(alias=...)"
        )
    owner.stored = False
    return False


def _field_keys(cls: type[Entity], table: Table, fields: dict[str, FieldSpec]) -> dict[str, tuple[str, ...]]:
    """The fields this entity stores under attributes that indexes declared by field key on, each with those
    indexes. Each must hold a type a key attribute can (S, N or B), the one every entity stores there."""
    by_attribute = {f.attribute: f for f in fields.values()}
    found: dict[str, tuple[str, ...]] = {}
    for attribute, uses in table.field_key_parts().items():
        index, part = uses[0]
        owner = by_attribute.get(attribute)
        if owner is None:
            named = fields.get(part.field)
            if named is not None:
                raise DeclarationError(
                    f"{cls.__name__}.{part.field} is stored as {named.attribute}, but GSI {index.name} "
                    f"keys on field {part.field} as attribute {attribute} (the table's naming); drop its "
                    "alias, or name the index after the attribute"
                )
            continue
        where = f"{cls.__name__}.{owner.name}"
        kind = key_type_of(owner.codec.kind)
        if kind is None:
            raise DeclarationError(
                f"{where} is {owner.codec.expected}, which GSI {index.name} cannot key on: a key attribute "
                "holds a string (str, datetime, date, UUID, a text enum), a number (int, float, Decimal) or "
                "bytes"
            )
        for other, used in uses:
            if used.type is not None and used.type != kind:
                raise DeclarationError(
                    f"{where} is {owner.codec.expected} (stored as {kind}), but GSI {other.name} declares "
                    f"({used.field!r}, {used.type!r})"
                )
        info = cls.model_fields[owner.name]
        default = None if info.is_required() else info.get_default(call_default_factory=True)
        if empty_key_value(default):
            raise DeclarationError(
                f"{where} defaults to {default!r}, which GSI {index.name} keys on: DynamoDB refuses an "
                "empty string or binary in an index key attribute, so every write leaving it out would fail; "
                "default it to None (out of the index) or to a value"
            )
        table.type_field_key(attribute, kind, where)
        found[owner.name] = tuple(dict.fromkeys(i.name for i, _ in uses))
    return found


def _guards(
    cls: type[Entity],
    table: Table,
    type_name: str,
    unique: Iterable[str] | Mapping[str, str | tuple[str, ...]],
    fields: dict[str, FieldSpec],
    keys: dict[str, BoundKey],
    codecs: dict[str, Codec],
    version: str | None,
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
        template = KeyTemplate.parse(text)
        _check_guard_template(cls, name, template, fields, version)
        guards[name] = BoundKey(table.pk_name, template, "S", codecs, table.delimiter, type_name)
    return guards, carry


# Codec kinds that cannot fill a key slot: containers and untyped values.
_UNKEYABLE = ("L", "M", "SS", "NS", "BS", "MODEL", "ANY")


def _check_guard_template(
    cls: type[Entity], name: str, template: KeyTemplate, fields: dict[str, FieldSpec], version: str | None
) -> None:
    """A guard template names the unique field and may name other fields of the entity, which scope the
    uniqueness (``STORE#{store_id}#EMAIL#{email}``: one email per store). Each must be a field that always
    has a value the key can hold, or the guard could not be built: refused here, naming the field."""
    where = f"{cls.__name__}: the guard of {name} ({template.text!r})"
    if name not in template.fields:
        raise DeclarationError(f"{where} must contain {{{name}}}, the value it keeps unique")
    for other in template.fields:
        if other not in fields:
            raise DeclarationError(
                f"{where} uses {other!r}, which is not a field; fields are {sorted(fields)}"
            )
        if other == name:
            continue
        spec = fields[other]
        if other == version:
            raise DeclarationError(
                f"{where} uses the version field {other!r}, which changes on every write; "
                "scope a guard by fields that identify a group (a store, a tenant)"
            )
        if spec.codec.kind in _UNKEYABLE:
            raise DeclarationError(
                f"{where} uses {other!r}, a {spec.codec.expected} field, which cannot be part of a key; "
                "scope a guard by text, number, date or enum fields"
            )
        if _may_be_none(cls.model_fields[other]):
            raise DeclarationError(
                f"{where} uses {other!r}, which may be None; a guard needs every field it names on every "
                f"entity, so {other} must be required or have a default that is not None"
            )


def _may_be_none(info: Any) -> bool:
    """Whether a field can hold None: its type admits None, or its default is None."""
    annotation = info.annotation
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is Any or annotation is type(None):
        return True
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    if union and type(None) in typing.get_args(annotation):
        return True
    return not info.is_required() and info.default_factory is None and info.default is None


def _bind_members(cls: type[Entity], meta: EntityMeta) -> None:
    """The access patterns and derived items declared in the class body, bound to the compiled entity."""
    for name, value in cls.__dict__.items():
        if isinstance(value, Pattern):
            meta.patterns[name] = value.bind(meta, name)
        elif isinstance(value, Similar):
            meta.searches[name] = value.bind(meta, name)
        elif isinstance(value, Derived):
            meta.derived.append(value.bind(meta, name))
