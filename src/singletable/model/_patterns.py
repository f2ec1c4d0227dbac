"""Named access patterns and collections, compiled to GetItem/Query -- never a Scan unless declared.

A :class:`Pattern` sits in the entity's body (``by_user = Pattern(index="GSI1", newest_first=True)``) and
takes its key templates from the entity's own ``keys``, so the pattern cannot drift from how items are
written. Calling it (``Post.by_user(author_id="john")``) gives a :class:`Query`: sort-key conditions on typed
fields are translated through the sort-key template, so ``.where(Post.f.created_at >= t)`` becomes
``GSI1SK >= "POST#<t>"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from singletable.model._entity_meta import EntityMeta, refuse_unknown
from singletable.model._errors import DeclarationError, KeyTemplateError, MissingKeyFields
from singletable.model._expr import Compiler, Cond, Path
from singletable.model._field_key_queries import FieldKey
from singletable.model._field_values import AV
from singletable.model._source import as_dict, caller, class_source
from singletable.model._table import Index, Table
from singletable.model._templates import TOP, BoundKey, KeyTemplate, Slot


def key_for(meta: EntityMeta, attribute: str) -> BoundKey | None:
    """How ``meta`` fills a key attribute: a declared template, a field stored as itself, or its type."""
    if attribute in meta.keys:
        return meta.keys[attribute]
    codecs = {n: f.codec for n, f in meta.fields.items()}
    if attribute in meta.field_of:
        name = meta.field_of[attribute]
        kind = meta.table.key_types.get(attribute, "S")
        return BoundKey(attribute, KeyTemplate.parse("{" + name + "}"), kind, codecs, "", meta.type)
    if attribute == meta.table.type_attribute:
        return BoundKey(attribute, KeyTemplate.parse(meta.type), "S", codecs, "", meta.type)
    return None


@dataclass(eq=False)
class Pattern:
    """An access pattern: which index, and optionally templates that differ from the entity's keys.

    ``sk`` may be a literal prefix (``"POST#"``) or a template; ``filter`` takes the entity's fields
    (``filter=lambda f: f.is_published == True``) for a condition every call applies. ``prefix=True``
    makes a fully given sort key a ``begins_with`` (seed 002's search by the start of a name).
    """

    index: str | None = None
    pk: str | None = None
    sk: str | None = None
    newest_first: bool = False
    scan: bool = False
    hydrate: bool | None = None
    filter: Callable[[Any], Cond] | None = None
    prefix: bool = False
    doc: str = ""
    name: str = field(default="", init=False)
    meta: EntityMeta | None = field(default=None, init=False, repr=False)

    def bind(self, meta: EntityMeta, name: str) -> Pattern:
        self.name, self.meta = name, meta
        table = meta.table
        self.index_obj = table.index(self.index)
        self.field_key: FieldKey | None = None
        if self.scan:
            self.pk_key = self.sk_key = None
            self.takes: dict[str, None] = {}
            return self
        if self.index_obj is not None and self.index_obj.by_fields:
            return self._bind_field_key(meta, self.index_obj)
        pk_attr = self.index_obj.pk if self.index_obj else table.pk_name
        sk_attr = self.index_obj.sk if self.index_obj else table.sk_name
        codecs = {n: f.codec for n, f in meta.fields.items()}
        where = f"{meta.cls.__name__}.{name}"
        if self.pk is not None:
            self.pk_key = BoundKey(
                pk_attr,
                KeyTemplate.parse(self.pk),
                table.key_types[pk_attr],
                codecs,
                table.delimiter,
                meta.type,
            )
        else:
            found = key_for(meta, pk_attr)
            if found is None:
                raise DeclarationError(
                    f"{where}: {meta.type} does not fill {pk_attr}, the partition key of "
                    f"{self.index or 'the table'}; add it to keys or give pk="
                )
            self.pk_key = found
        self.sk_key = None
        if sk_attr:
            if self.sk is not None:
                self.sk_key = (
                    BoundKey(
                        sk_attr,
                        KeyTemplate.parse(self.sk),
                        table.key_types[sk_attr],
                        codecs,
                        table.delimiter,
                        meta.type,
                    )
                    if self.sk
                    else None
                )
            else:
                self.sk_key = key_for(meta, sk_attr)
        # The keyword arguments a call takes: the partition key's fields, then the sort key's.
        self.takes = dict.fromkeys((*self.arguments, *(self.sk_key.template.fields if self.sk_key else ())))
        for key in filter(None, (self.pk_key, self.sk_key)):
            for name_ in key.template.fields:
                if name_ not in meta.fields:
                    raise DeclarationError(
                        f"{where}: template {key.template.text!r} uses unknown field {name_}"
                    )
        return self

    def _bind_field_key(self, meta: EntityMeta, index: Index) -> Pattern:
        """A pattern on an index keyed by fields: typed equalities, no templates to override."""
        where = f"{meta.cls.__name__}.{self.name}"
        if self.pk is not None or self.sk is not None or self.prefix:
            raise DeclarationError(
                f"{where}: GSI {index.name} is keyed by fields, not templates, so pk=, sk= and prefix= do "
                "not apply; give the fields in the call and a range with .where()"
            )
        self.pk_key = self.sk_key = None
        self.field_key = FieldKey.bind(meta, index, where)
        self.takes = dict.fromkeys(self.field_key.takes)
        return self

    @property
    def arguments(self) -> tuple[str, ...]:
        if self.field_key is not None:
            return self.field_key.arguments
        return self.pk_key.template.fields if self.pk_key else ()

    def __call__(self, *args: Any, **values: Any) -> Query:
        if self.meta is None:
            raise DeclarationError("this Pattern is not declared in an entity bound to a table")
        if len(args) > len(self.arguments):
            raise TypeError(f"{self.name}() takes {len(self.arguments)} positional arguments")
        values.update(zip(self.arguments, args, strict=False))
        meta = self.meta
        for name in values:
            if name not in self.takes:
                refuse_unknown(f"{meta.cls.__name__}.{self.name}()", values, self.takes)
        query = Query(
            meta.table,
            [meta],
            self.index_obj,
            name=self.name,
            reverse=self.newest_first,
            hydrate=self.hydrate,
            scan=self.scan,
        )
        if self.filter is not None:
            query.filter_cond = self.filter(meta.cls.f)
        if self.scan:
            return query
        if self.field_key is not None:
            (first, *rest) = self.field_key.equalities(values)
            query.pk, query.key_equal = first, tuple(rest)
            query.field_key, query.values = self.field_key, values
            return query
        assert self.pk_key is not None
        missing = [f for f in self.pk_key.template.fields if values.get(f) is None]
        if missing:
            raise MissingKeyFields(
                meta.type,
                self.pk_key.attribute,
                self.pk_key.template.text,
                missing,
                f"the partition key of {self.name}()",
            )
        query.pk = (self.pk_key.attribute, self.pk_key.value(values))
        query.sk_key, query.values = self.sk_key, values
        if self.sk_key is not None:
            if self.sk_key.key_type == "N" or not self.sk_key.template.parts:
                if self.sk_key.template.fields and all(
                    values.get(f) is not None for f in self.sk_key.template.fields
                ):
                    query.sk = ("=", self.sk_key.value(values))
            else:
                text, complete = self.sk_key.prefix(values)
                literal = self.sk is not None and not self.sk_key.template.fields
                if complete and not self.prefix and not literal:
                    query.sk = ("=", {"S": text})
                elif text:
                    query.sk = ("begins_with", {"S": text})
        return query

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entity": self.meta.type if self.meta else None,
            "operation": "Scan" if self.scan else "Query",
            "index": self.index,
            "pk": _key_described(self.pk_key) if self.field_key is None else self.field_key.describe(True),
            "sk": _key_described(self.sk_key) if self.field_key is None else self.field_key.describe(False),
            "arguments": list(self.arguments),
            "newest_first": self.newest_first,
            "doc": self.doc or None,
            "hydrate": self.hydrate,
            "filter": self.filter is not None,
            "prefix": self.prefix,
            "source": self._source(),
        }

    def _source(self) -> dict[str, Any] | None:
        lines = class_source(self.meta.cls) if self.meta else None
        return lines.member(self.name) if lines else None


def _key_described(key: BoundKey | None) -> dict[str, Any] | None:
    if key is None:
        return None
    return {
        "attribute": key.attribute,
        "template": key.template.text,
        "parts": key.template.describe_parts(),
    }


@dataclass(eq=False)
class Query:
    """A compiled read. Builder methods return new queries; ``db.query()``/``db.page()`` run them."""

    table: Table
    entities: list[EntityMeta]
    index: Index | None
    name: str = ""
    pk: tuple[str, AV] | None = None
    sk: tuple[Any, ...] | None = None
    sk_key: BoundKey | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    filter_cond: Cond | None = None
    projection: tuple[Path, ...] | None = None
    reverse: bool = False
    hydrate: bool | None = None
    scan: bool = False
    consistent: bool = False
    # An index keyed by fields: equalities after ``pk`` (the other partition fields, the sort fields given),
    # and the attribute ``sk``'s range is on.
    key_equal: tuple[tuple[str, AV], ...] = ()
    field_key: FieldKey | None = None
    sk_attribute: str | None = None

    def where(self, cond: Cond) -> Query:
        """A sort-key condition on the field in the sort-key template's next slot (on an index keyed by
        fields: a range on the sort field after those the call gave)."""
        if self.field_key is not None:
            attribute, range_ = self.field_key.range(self.values, cond)
            return replace(self, sk=range_, sk_attribute=attribute)
        if self.sk_key is None:
            raise KeyTemplateError(f"{self.name}: this query has no sort key to put a condition on")
        return replace(self, sk=_sort_condition(self.sk_key, self.values, cond))

    def filter(self, cond: Cond) -> Query:
        """A FilterExpression; page sizes still count entities returned, not items read."""
        return replace(self, filter_cond=cond if self.filter_cond is None else self.filter_cond & cond)

    def select(self, *paths: Path) -> Query:
        """Fetch only these fields; results are partial entities (unset fields are missing)."""
        return replace(self, projection=paths)

    def newest_first(self) -> Query:
        return replace(self, reverse=True)

    def oldest_first(self) -> Query:
        return replace(self, reverse=False)

    def consistent_read(self) -> Query:
        return replace(self, consistent=True)

    def with_hydration(self, hydrate: bool = True) -> Query:
        return replace(self, hydrate=hydrate)

    @property
    def needs_hydration(self) -> bool:
        if self.hydrate is not None:
            return self.hydrate and self.index is not None and self.projection is None
        if self.index is None or self.projection is not None:
            return False
        return any(not self.index.projects(m.attribute_of.values(), self.table) for m in self.entities)

    def request(self, table_name: str) -> tuple[str, dict[str, Any]]:
        """(operation, parameters) without paging."""
        c = Compiler()
        params: dict[str, Any] = {"TableName": table_name}
        if self.index is not None:
            params["IndexName"] = self.index.name
        if self.scan:
            op = "Scan"
            type_attr = self.table.type_attribute
            types = [m.type for m in self.entities]
            type_cond = " OR ".join(f"{c.name(type_attr)} = {c.value({'S': t})}" for t in types)
            filters = [f"({type_cond})"]
        else:
            op = "Query"
            assert self.pk is not None
            attr, value = self.pk
            parts = [f"{c.name(attr)} = {c.value(value)}"]
            parts += [f"{c.name(a)} = {c.value(v)}" for a, v in self.key_equal]
            if self.sk is not None:
                sk_attribute = self.sk_key.attribute if self.sk_key is not None else self.sk_attribute
                assert sk_attribute is not None
                sk = c.name(sk_attribute)
                how, *args = self.sk
                if how == "begins_with":
                    parts.append(f"begins_with({sk}, {c.value(args[0])})")
                elif how == "between":
                    parts.append(f"{sk} BETWEEN {c.value(args[0])} AND {c.value(args[1])}")
                else:
                    parts.append(f"{sk} {how} {c.value(args[0])}")
            params["KeyConditionExpression"] = " AND ".join(parts)
            if self.reverse:
                params["ScanIndexForward"] = False
            filters = []
        if self.filter_cond is not None:
            filters.append(self.filter_cond.compile(c))
        if filters:
            params["FilterExpression"] = (
                " AND ".join(filters) if len(filters) == 1 else " AND ".join(f"({f})" for f in filters)
            )
        # An entity that upgrades older items on read needs each item whole (an upgrade reads attributes the
        # projection would leave out); DynamoDB charges a read by the item's size either way.
        if self.projection is not None and not any(m.upgrades for m in self.table.entities.values()):
            keep = [c.path(p) for p in self.projection]
            extra = list(self.table.key_attributes(self.index))
            type_attr = self.table.type_attribute
            if self.index is None or self.index.projects([type_attr], self.table):
                extra.append(type_attr)  # DynamoDB refuses to project what an index does not hold
            keep += [c.name(a) for a in extra]
            params["ProjectionExpression"] = ", ".join(dict.fromkeys(keep))
        if self.consistent:
            params["ConsistentRead"] = True
        return op, c.into(params)

    def fingerprint(self) -> str:
        """What a cursor is bound to: the same pattern over the same partition."""
        return "|".join(
            (
                self.name,
                self.index.name if self.index else "",
                repr(self.pk) + (repr(self.key_equal) if self.key_equal else ""),
                repr(self.sk),
                str(self.reverse),
            )
        )


def _sort_condition(key: BoundKey, given: Mapping[str, Any], cond: Cond) -> tuple[Any, ...]:
    if cond.op not in ("CMP", "BETWEEN", "BEGINS_WITH"):
        raise KeyTemplateError("a sort-key condition is a comparison, between or begins_with")
    path = cond.args[0]
    if not isinstance(path, Path) or not path.top_level:
        raise KeyTemplateError("a sort-key condition compares a field of the sort-key template")
    parts, name = key.template.parts, path.field
    index = next((i for i, p in enumerate(parts) if isinstance(p, Slot) and p.field == name), None)
    if index is None:
        raise KeyTemplateError(f"{name} is not in the sort key {key.attribute} = {key.template.text!r}")
    head = []
    for part in parts[:index]:
        if isinstance(part, str):
            head.append(part)
        elif given.get(part.field) is None:
            raise MissingKeyFields(
                key.entity,
                key.attribute,
                key.template.text,
                [part.field],
                f"fields before {name} in the sort key must be given to compare {name}",
            )
        else:
            head.append(key.slot_text(part, given[part.field]))
    prefix = "".join(head)
    slot = parts[index]
    assert isinstance(slot, Slot)  # the part found above
    last = index == len(parts) - 1
    following = None if last else parts[index + 1]
    after = following if isinstance(following, str) else ""

    def low(value: Any) -> AV:
        return _av(key, prefix + key.slot_text(slot, value), value, slot)

    def high(value: Any) -> AV:
        text = prefix + key.slot_text(slot, value)
        return _av(key, text if last else text + after + TOP, value, slot)

    if cond.op == "BEGINS_WITH":
        return ("begins_with", {"S": prefix + cond.args[1]})
    if cond.op == "BETWEEN":
        return ("between", low(cond.args[1]), high(cond.args[2]))
    sign, value = cond.args[1], cond.args[2]
    if sign == "=":
        return (
            ("=", low(value)) if last else ("begins_with", {"S": prefix + key.slot_text(slot, value) + after})
        )
    if sign in ("<", ">="):
        return (sign, low(value))
    if sign in ("<=", ">"):
        return (sign, high(value))
    raise KeyTemplateError(f"a sort key cannot be compared with {sign}")


def _av(key: BoundKey, text: str, value: Any, slot: Slot) -> AV:
    if key.key_type == "N":
        return {"N": key.codecs[slot.field].key(value, "")}
    return {"S": text}


@dataclass(eq=False)
class Collection:
    """Several entity types sharing a partition, read in one query: a user with their ratings and groups."""

    table: Table
    name: str
    pk: str
    entities: tuple[type[Any], ...]
    index: str | None = None
    sk_prefix: str | None = None

    def __post_init__(self) -> None:
        self.source = caller(2)  # the line that declared the collection
        self.metas = [e.model_entity() for e in self.entities]
        self.index_obj = self.table.index(self.index)
        if self.index_obj is not None and self.index_obj.by_fields:
            raise DeclarationError(
                f"collection {self.name}: GSI {self.index} is keyed by fields, not templates; read several "
                "entity types from it with a Pattern per entity"
            )
        attr = self.index_obj.pk if self.index_obj else self.table.pk_name
        codecs: dict[str, Any] = {}
        for meta in reversed(self.metas):
            codecs.update({n: f.codec for n, f in meta.fields.items()})
        template = KeyTemplate.parse(self.pk)
        for name in template.fields:
            if name not in codecs:
                raise DeclarationError(f"collection {self.name}: no member entity has a field {name}")
        self.pk_key = BoundKey(
            attr, template, self.table.key_types[attr], codecs, self.table.delimiter, self.name
        )
        self.sk_key: BoundKey | None = None
        sk_attr = self.index_obj.sk if self.index_obj else self.table.sk_name
        if self.sk_prefix and sk_attr:
            # A prefix is a template like the keys: its fields are call arguments, rendered as keys render
            # them (format specs included); the literal text before the first missing one is the prefix.
            prefix = KeyTemplate.parse(self.sk_prefix)
            for name in prefix.fields:
                if name not in codecs:
                    raise DeclarationError(
                        f"collection {self.name}: sk_prefix {self.sk_prefix!r} uses {name}, which no member "
                        "entity has"
                    )
            self.sk_key = BoundKey(sk_attr, prefix, "S", codecs, self.table.delimiter, self.name)
        elif self.sk_prefix:
            raise DeclarationError(f"collection {self.name}: sk_prefix needs a sort key, and there is none")
        self.arguments = tuple(
            dict.fromkeys((*template.fields, *(self.sk_key.template.fields if self.sk_key else ())))
        )
        self.table.collections[self.name] = self

    def __call__(self, *args: Any, **values: Any) -> Query:
        """The query for one partition: the partition key's fields, then the sort-key prefix's (positionally
        too); prefix fields left out end the prefix at the literal text before them."""
        if len(args) > len(self.arguments):
            raise TypeError(f"{self.name}() takes {len(self.arguments)} positional arguments")
        refuse_unknown(f"collection {self.name}()", values, self.arguments)
        values.update(zip(self.arguments, args, strict=False))
        missing = self.pk_key.missing(values)
        if missing:
            raise MissingKeyFields(self.name, self.pk_key.attribute, self.pk_key.template.text, missing)
        query = Query(
            self.table,
            self.metas,
            self.index_obj,
            name=self.name,
            pk=(self.pk_key.attribute, self.pk_key.value(values)),
        )
        if self.sk_key is not None:
            text, _ = self.sk_key.prefix(values)
            query.sk_key, query.values = self.sk_key, values
            if text:
                query.sk = ("begins_with", {"S": text})
        return query

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "index": self.index,
            "pk": self.pk,
            "entities": [m.type for m in self.metas],
            "sk_prefix": self.sk_prefix,
            "source": as_dict(self.source),
        }


class Grouped:
    """A collection's result: every entity in key order, and each type's list by class."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = list(items)

    def of(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.items if type(e) is cls]

    def __getitem__(self, cls: type[Any]) -> list[Any]:
        return self.of(cls)

    def one(self, cls: type[Any]) -> Any:
        found = self.of(cls)
        return found[0] if found else None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
