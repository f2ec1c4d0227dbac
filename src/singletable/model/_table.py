"""The table declaration: name, keys, indexes and conventions every entity on the table shares.

It is plain data (dataclasses), so the design tooling -- lint, docs, cost, infrastructure export -- reads
the same objects the runtime uses, and ``to_json()`` is the design's canonical serialised form.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from singletable.model._errors import DeclarationError
from singletable.model._expr import Path
from singletable.model._field_keys import KeyPart, check_field_key, field_key_parts, named
from singletable.model._field_values import build_codec
from singletable.model._source import Source, as_dict, caller
from singletable.model._vector_index import VectorIndex, check_vector_indexes

if TYPE_CHECKING:
    from singletable.model._entity_meta import EntityMeta
    from singletable.model._patterns import Collection

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class EnvName:
    """A name read from the environment when the table is connected, not when the module is imported.

    ``env("DYNAMODB_TABLE", "WavyBlog")`` reads one variable; ``env("${StackName}-${Environment}-blog",
    StackName="blog", Environment="dev")`` fills a CloudFormation-style template, each variable with its
    default -- the two forms the seed designs use.
    """

    text: str
    defaults: tuple[tuple[str, str], ...] = ()

    def resolve(self) -> str:
        defaults = dict(self.defaults)
        if "${" not in self.text:
            return os.environ.get(self.text, defaults.get(self.text, ""))

        def fill(match: re.Match[str]) -> str:
            name = match[1]
            value = os.environ.get(name, defaults.get(name))
            if value is None:
                raise DeclarationError(f"table name {self.text!r}: set ${name} or give it a default")
            return value

        return _VAR.sub(fill, self.text)

    def describe(self) -> dict[str, Any]:
        return {"env": self.text, "defaults": dict(self.defaults), "resolved": self.resolve()}


def env(text: str, default: str | None = None, **defaults: str) -> EnvName:
    """A table name from an environment variable (with a default) or a ``${Var}`` template."""
    if default is not None:
        defaults[text] = default
    return EnvName(text, tuple(sorted(defaults.items())))


KeySpec = str | tuple[str, str]
PROJECTIONS = ("ALL", "KEYS_ONLY")
STREAM_VIEWS = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")


@overload
def _key(spec: KeySpec) -> tuple[str, str]: ...
@overload
def _key(spec: KeySpec | None) -> tuple[str | None, str]: ...
def _key(spec: KeySpec | None) -> tuple[str | None, str]:
    if spec is None:
        return None, "S"
    if isinstance(spec, tuple):
        name, kind = spec
        if kind not in ("S", "N", "B"):
            raise DeclarationError(f"key attribute {name}: type must be S, N or B, not {kind!r}")
        return name, kind
    return spec, "S"


@dataclass
class Index:
    """A secondary index. ``projection`` is "ALL", "KEYS_ONLY" or the attribute names of an INCLUDE."""

    name: str
    pk: str
    sk: str | None = None
    pk_type: str = "S"
    sk_type: str = "S"
    projection: str | tuple[str, ...] = "ALL"
    local: bool = False
    source: Source | None = field(default=None, compare=False, repr=False)
    # A key declared by field (``pk=["tenant", "status"]``): its partition and sort attributes, in order.
    # Empty for a key declared by attribute name, whose templates the entities give.
    hash_parts: tuple[KeyPart, ...] = ()
    range_parts: tuple[KeyPart, ...] = ()

    def __post_init__(self) -> None:
        if self.source is None:  # built directly: the line that called Index(...)
            self.source = caller(2)

    @property
    def by_fields(self) -> bool:
        """Whether the key is declared by field: typed attributes (up to four each), no templates."""
        return bool(self.hash_parts)

    @property
    def pk_attributes(self) -> tuple[str, ...]:
        """The partition key's attributes, in KeySchema order (one, unless declared by several fields)."""
        return tuple(p.attribute for p in self.hash_parts) if self.hash_parts else (self.pk,)

    @property
    def sk_attributes(self) -> tuple[str, ...]:
        """The sort key's attributes, in KeySchema order (none, one, or up to four fields)."""
        if self.hash_parts:
            return tuple(p.attribute for p in self.range_parts)
        return (self.sk,) if self.sk else ()

    @property
    def projection_type(self) -> str:
        return self.projection if isinstance(self.projection, str) else "INCLUDE"

    def projects(self, attributes: Iterable[str], table: Table) -> bool:
        """Whether reading this index returns all of ``attributes`` (else entities need hydrating)."""
        if self.projection == "ALL":
            return True
        have = set(table.key_attributes(self))
        if not isinstance(self.projection, str):
            have.update(self.projection)
        return set(attributes) <= have

    def describe(self, types: dict[str, str] | None = None) -> dict[str, Any]:
        """The index as data. ``pk`` and ``sk`` are its first partition and sort attributes; ``pk_attributes``
        and ``sk_attributes`` all of them, each with its type (and its field, for a key declared by field)."""
        types = types or {}

        def typed(attribute: str | None, kind: str, part: KeyPart | None = None) -> dict[str, Any]:
            out = {"attribute": attribute, "type": types.get(attribute or "", kind)}
            return out | {"field": part.field} if part else out

        if self.hash_parts:
            pks = [typed(p.attribute, p.type or "S", p) for p in self.hash_parts]
            sks = [typed(p.attribute, p.type or "S", p) for p in self.range_parts]
        else:
            pks = [typed(self.pk, self.pk_type)]
            sks = [typed(self.sk, self.sk_type)] if self.sk else []
        return {
            "name": self.name,
            "kind": "LSI" if self.local else "GSI",
            "pk": pks[0],
            "sk": sks[0] if sks else None,
            "pk_attributes": pks,
            "sk_attributes": sks,
            "by_fields": self.by_fields,
            "projection": self.projection_type,
            "include": None if isinstance(self.projection, str) else list(self.projection),
            "source": as_dict(self.source),
        }


MAX_INCLUDE = 20  # DynamoDB: at most 20 NonKeyAttributes per index (and 100 over all indexes)


def _projection(projection: str | Iterable[str]) -> str | tuple[str, ...]:
    if isinstance(projection, str):
        if projection not in PROJECTIONS:
            raise DeclarationError(
                f"projection must be ALL, KEYS_ONLY or a list of attributes, not {projection!r}"
            )
        return projection
    attributes = tuple(projection)
    if len(attributes) > MAX_INCLUDE:
        raise DeclarationError(
            f"an INCLUDE projection holds at most {MAX_INCLUDE} attributes; this one has "
            f"{len(attributes)} -- use ALL, or project fewer and hydrate"
        )
    return attributes


FieldKeySpec = list[str | tuple[str, str]]


def GSI(
    name: str,
    pk: KeySpec | FieldKeySpec,
    sk: KeySpec | FieldKeySpec | None = None,
    projection: str | Iterable[str] = "ALL",
) -> Index:
    """A global secondary index; ``pk=("starRating", "N")`` for a numeric key.

    Lists declare a key by field, up to four attributes each: ``pk=["tenant", "status"], sk=["created_at",
    "id"]`` keys the index on those entity fields, each stored as its own typed attribute (its type from the
    field, or given: ``("score", "N")``); see :mod:`singletable.model._field_keys`.
    """
    if isinstance(pk, list) or isinstance(sk, list):
        hash_parts = field_key_parts(name, pk, "pk")
        range_parts = field_key_parts(name, sk, "sk")
        check_field_key(name, hash_parts, range_parts)
        return Index(
            name,
            "",
            None,
            projection=_projection(projection),
            source=caller(1),
            hash_parts=hash_parts,
            range_parts=range_parts,
        )
    pk_name, pk_type = _key(pk)
    sk_name, sk_type = _key(sk)
    assert pk_name is not None
    return Index(name, pk_name, sk_name, pk_type, sk_type, _projection(projection), source=caller(1))


def LSI(name: str, sk: KeySpec, projection: str | Iterable[str] = "ALL") -> Index:
    """A local secondary index: the table's partition key with another sort key."""
    if isinstance(sk, list):
        raise DeclarationError(
            f"LSI {name}: a key of several fields is for global secondary indexes only (DynamoDB); an LSI "
            "sorts by one attribute"
        )
    sk_name, sk_type = _key(sk)
    return Index(name, "", sk_name, "S", sk_type, _projection(projection), local=True, source=caller(1))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


NAMING = {
    None: lambda n: n,
    "snake": lambda n: n,
    "camel": _camel,
    "pascal": lambda n: "".join(p[:1].upper() + p[1:] for p in n.split("_")),
}


@dataclass(eq=False)
class Table:
    """One DynamoDB table and the conventions of the single-table design on it.

    ``naming`` maps Python field names to attribute names ("camel": ``created_at`` -> ``createdAt``) so
    models stay idiomatic while items keep the design's spelling; a field's pydantic ``alias`` overrides.
    ``timestamps`` names the fields kept automatically when an entity declares them. ``stream`` turns the
    table's stream on with that view type (``"NEW_AND_OLD_IMAGES"``...), for CreateTable and infra export.
    """

    name: str | EnvName
    pk: KeySpec = "PK"
    sk: KeySpec | None = "SK"
    indexes: list[Index] = field(default_factory=list)
    type_attribute: str = "entityType"
    billing: str = "PAY_PER_REQUEST"
    delimiter: str = "#"
    naming: str | None = "camel"
    datetime_precision: str = "milliseconds"
    timestamps: tuple[str, str] = ("created_at", "updated_at")
    ttl_attribute: str | None = None
    read_capacity: int = 5
    write_capacity: int = 5
    stream: str | None = None
    vector_indexes: list[VectorIndex] = field(default_factory=list)
    entities: dict[str, EntityMeta] = field(default_factory=dict, repr=False)
    collections: dict[str, Collection] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.source = caller(2)  # the line that declared the table (dataclass __init__ calls this)
        self.pk_name, self.pk_type = _key(self.pk)
        self.sk_name, self.sk_type = _key(self.sk)
        if self.naming not in NAMING:
            raise DeclarationError(f"naming must be one of camel, pascal, snake, not {self.naming!r}")
        if self.billing not in ("PAY_PER_REQUEST", "PROVISIONED"):
            raise DeclarationError("billing must be PAY_PER_REQUEST or PROVISIONED")
        if self.stream is not None and self.stream not in STREAM_VIEWS:
            raise DeclarationError(f"stream must be one of {', '.join(STREAM_VIEWS)}, not {self.stream!r}")
        names = [i.name for i in self.indexes]
        if len(set(names)) != len(names):
            raise DeclarationError(f"duplicate index names in {names}")
        for index in self.indexes:
            if index.local:
                index.pk, index.pk_type = self.pk_name, self.pk_type
            if index.by_fields:
                self._name_field_key(index)
        included = sum(len(i.projection) for i in self.indexes if not isinstance(i.projection, str))
        if included > 100:
            raise DeclarationError(
                f"INCLUDE projections name {included} attributes over all indexes; DynamoDB allows 100"
            )
        self._types = self._attribute_types()
        for vector_index in self.vector_indexes:
            if not isinstance(vector_index, VectorIndex):
                raise DeclarationError(
                    f"vector_indexes takes VectorIndex(...) declarations, not {vector_index!r}"
                )
        # Search-schema attributes go in AttributeDefinitions too (DynamoDB requires it), but are no keys.
        self._search_types = check_vector_indexes(self.vector_indexes, self.billing, names, self._types)

    # -- structure --------------------------------------------------------------------------------------

    def _name_field_key(self, index: Index) -> None:
        """A key declared by field gets its attributes from the table's naming; none may be the table's own
        key, whose value the entities' templates build."""
        index.hash_parts = named(index.hash_parts, self.attribute_name)
        index.range_parts = named(index.range_parts, self.attribute_name)
        index.pk = index.hash_parts[0].attribute
        index.sk = index.range_parts[0].attribute if index.range_parts else None
        index.pk_type = index.hash_parts[0].type or "S"
        index.sk_type = index.range_parts[0].type or "S" if index.range_parts else "S"
        for part in (*index.hash_parts, *index.range_parts):
            if part.attribute in (self.pk_name, self.sk_name):
                raise DeclarationError(
                    f"GSI {index.name}: field {part.field} is stored as {part.attribute}, the table's own "
                    "key, which the entities build from templates; key the index on fields of their own"
                )

    def _attribute_types(self) -> dict[str, str]:
        types: dict[str, str] = {self.pk_name: self.pk_type}
        if self.sk_name:
            types[self.sk_name] = self.sk_type
        self._typed_by: dict[str, str] = {}
        for index in self.indexes:
            pairs: list[tuple[str | None, str | None]]
            if index.by_fields:
                pairs = [(p.attribute, p.type) for p in (*index.hash_parts, *index.range_parts)]
            else:
                pairs = [(index.pk, index.pk_type), (index.sk, index.sk_type)]
            for attr, kind in pairs:
                if attr is None or kind is None:  # a field's type, given when an entity declares it
                    continue
                if types.setdefault(attr, kind) != kind:
                    raise DeclarationError(f"attribute {attr} is declared both {types[attr]} and {kind}")
                self._typed_by[attr] = f"index {index.name}"
        return types

    def field_key_parts(self) -> dict[str, list[tuple[Index, KeyPart]]]:
        """Every attribute a key declared by field reads, with the indexes (and parts) reading it."""
        found: dict[str, list[tuple[Index, KeyPart]]] = {}
        for index in self.indexes:
            for part in (*index.hash_parts, *index.range_parts):
                found.setdefault(part.attribute, []).append((index, part))
        return found

    def type_field_key(self, attribute: str, kind: str, who: str) -> None:
        """Record the type an entity's field gives a field-keyed attribute; every entity storing that
        attribute must agree (DynamoDB has one AttributeDefinition per attribute)."""
        have = self._types.get(attribute)
        if have is not None and have != kind:
            raise DeclarationError(
                f"{who} is stored as {attribute} of type {kind}, but "
                f"{self._typed_by.get(attribute, 'the table')} keys {attribute} as {have}; every entity "
                "must store an index key attribute as one type"
            )
        if have is None:
            self._types[attribute] = kind
            self._typed_by[attribute] = who
            for index in self.indexes:  # the first attribute of each part, as code for one attribute reads it
                if index.by_fields and index.pk == attribute:
                    index.pk_type = kind
                if index.by_fields and index.sk == attribute:
                    index.sk_type = kind

    @property
    def key_types(self) -> dict[str, str]:
        """Every key attribute of the table and its indexes, with its type."""
        return dict(self._types)

    def vector_index(self, name: str) -> VectorIndex:
        for index in self.vector_indexes:
            if index.name == name:
                return index
        raise DeclarationError(
            f"table has no vector index {name!r}; it has {[i.name for i in self.vector_indexes]}"
        )

    def index(self, name: str | None) -> Index | None:
        if name is None:
            return None
        for index in self.indexes:
            if index.name == name:
                return index
        raise DeclarationError(f"table has no index {name!r}; it has {[i.name for i in self.indexes]}")

    def key_attributes(self, index: Index | None = None) -> list[str]:
        """Attributes in a read's LastEvaluatedKey: the table's key plus the index's."""
        out = [self.pk_name] + ([self.sk_name] if self.sk_name else [])
        if index is not None:
            out += [a for a in (*index.pk_attributes, *index.sk_attributes) if a and a not in out]
        return out

    def resolved_name(self) -> str:
        return self.name.resolve() if isinstance(self.name, EnvName) else self.name

    def attribute_name(self, field_name: str) -> str:
        return NAMING[self.naming](field_name)

    def attribute(self, name: str, annotation: Any = str) -> Path:
        """A typed reference to an attribute no entity field holds -- the type attribute, one another
        program writes -- for conditions and filters: ``hub.attribute("entityType") == "listing"``.
        ``annotation`` (a Python type, ``str`` by default) decides how values compared with it are stored.
        """
        return Path("item", name, (name,), build_codec(annotation, self.datetime_precision))

    # -- control plane ----------------------------------------------------------------------------------

    def create_table_params(self, name: str | None = None) -> dict[str, Any]:
        """CreateTable's request for this declaration (what ``create_table()`` and infra export use)."""
        schema = [{"AttributeName": self.pk_name, "KeyType": "HASH"}]
        if self.sk_name:
            schema.append({"AttributeName": self.sk_name, "KeyType": "RANGE"})
        used = {self.pk_name, self.sk_name}
        params: dict[str, Any] = {
            "TableName": name or self.resolved_name(),
            "KeySchema": schema,
            "BillingMode": self.billing,
        }
        gsis: list[dict[str, Any]] = []
        lsis: list[dict[str, Any]] = []
        for index in self.indexes:
            key_schema = [{"AttributeName": a, "KeyType": "HASH"} for a in index.pk_attributes]
            key_schema += [{"AttributeName": a, "KeyType": "RANGE"} for a in index.sk_attributes]
            used.update((*index.pk_attributes, *index.sk_attributes))
            self._check_typed(index)
            projection: dict[str, Any] = {"ProjectionType": index.projection_type}
            if not isinstance(index.projection, str):
                projection["NonKeyAttributes"] = list(index.projection)
            spec: dict[str, Any] = {
                "IndexName": index.name,
                "KeySchema": key_schema,
                "Projection": projection,
            }
            if self.billing == "PROVISIONED" and not index.local:
                spec["ProvisionedThroughput"] = self._throughput()
            (lsis if index.local else gsis).append(spec)
        params["AttributeDefinitions"] = [
            {"AttributeName": a, "AttributeType": t} for a, t in self._types.items() if a in used
        ] + [{"AttributeName": a, "AttributeType": t} for a, t in self._search_types.items() if a not in used]
        if gsis:
            params["GlobalSecondaryIndexes"] = gsis
        if lsis:
            params["LocalSecondaryIndexes"] = lsis
        if self.billing == "PROVISIONED":
            params["ProvisionedThroughput"] = self._throughput()
        if self.vector_indexes:
            params["VectorIndexes"] = [index.params() for index in self.vector_indexes]
        if self.stream:
            params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": self.stream}
        return params

    def _check_typed(self, index: Index) -> None:
        """A field-keyed attribute no entity stores and no declaration typed cannot be defined."""
        for part in (*index.hash_parts, *index.range_parts):
            if part.attribute not in self._types:
                raise DeclarationError(
                    f"GSI {index.name} keys on field {part.field} (attribute {part.attribute}), which no "
                    f"entity on the table has, so its type is unknown; declare an entity with that field, or "
                    f"give the type: ({part.field!r}, 'S')"
                )

    def _throughput(self) -> dict[str, int]:
        return {"ReadCapacityUnits": self.read_capacity, "WriteCapacityUnits": self.write_capacity}

    # -- time to live -----------------------------------------------------------------------------------

    def resolved_ttl_attribute(self) -> str | None:
        """The attribute DynamoDB's TTL reads: ``ttl_attribute``, or else the one attribute the entities'
        ``ttl`` fields are stored as (declaring a ttl field is declaring that the table expires items)."""
        if self.ttl_attribute:
            return self.ttl_attribute
        return _one_ttl_attribute(self.entities.values())

    def check_ttl(self, meta: EntityMeta) -> None:
        """Refuse an entity whose ``ttl`` field is stored under another attribute than the other entities':
        DynamoDB has one TTL attribute per table. A table that names its own ``ttl_attribute`` decides."""
        if not self.ttl_attribute and meta.ttl:
            _one_ttl_attribute([*(m for t, m in self.entities.items() if t != meta.type), meta])

    # -- introspection ----------------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The whole design as plain data: table, indexes, entities, templates, access patterns."""
        name = self.name.describe() if isinstance(self.name, EnvName) else {"name": self.name}
        return {
            "table": {
                **name,
                "pk": {"attribute": self.pk_name, "type": self.pk_type},
                "sk": None if not self.sk_name else {"attribute": self.sk_name, "type": self.sk_type},
                "billing": self.billing,
                "type_attribute": self.type_attribute,
                "delimiter": self.delimiter,
                "naming": self.naming,
                "datetime_precision": self.datetime_precision,
                "ttl_attribute": self.resolved_ttl_attribute(),
                "source": as_dict(self.source),
                "stream": self.stream,
            },
            "indexes": [i.describe(self._types) for i in self.indexes],
            "vector_indexes": [i.describe() for i in self.vector_indexes],
            "entities": [meta.describe() for meta in self.entities.values()],
            "collections": [c.describe() for c in self.collections.values()],
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.describe(), **{"indent": 2, **kwargs})


def _one_ttl_attribute(entities: Iterable[EntityMeta]) -> str | None:
    """The attribute every entity with a ``ttl`` field stores it as; None when none has one."""
    found: dict[str, list[str]] = {}
    for meta in entities:
        if meta.ttl:
            found.setdefault(meta.fields[meta.ttl].attribute, []).append(meta.cls.__name__)
    if len(found) > 1:
        listed = "; ".join(f"{attr} ({', '.join(owners)})" for attr, owners in sorted(found.items()))
        raise DeclarationError(
            f"entities keep their expiry in different attributes: {listed}; DynamoDB has one TTL attribute "
            "per table: store every ttl field under one name, or declare Table(ttl_attribute=...)"
        )
    return next(iter(found), None)
