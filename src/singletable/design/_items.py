"""Items to draw, document and price a design with: its own sample data, or items generated from field types.

``docs`` draws item collections and ``cost`` replays access patterns; both need items shaped exactly as the
application writes them. A seed example ships its sample data (``singletable.examples.<name>`` exposes an
``EXAMPLE`` whose ``load`` writes it through the app's service), so for those designs the items are the real
ones; a design module of your own may define ``load_sample(db)`` to write its own, list ``SAMPLE_ITEMS``, or
sit next to a ``sample`` module with ``open_service(db)`` and ``load(service)``. ``export`` takes the same
sample data as items (:func:`sample_items`); this module is the one place that knows where it is. Any other
design gets
items generated from its fields' types: deterministic values (``title-3``, the n-th hour after a fixed
instant, the first enum member...) written through the model, so keys, guards and derived items are what
the runtime builds. Partition-key fields draw from a small pool of values, so items of different entities
that share a partition template (``POST#{post_id}``) land in the same collections.
"""

from __future__ import annotations

import datetime as dt
import enum
import importlib
import json
import sys
import types
import typing
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from singletable.model import DB, ModelError, Table, connect

# The instant generated times count from (the demos' clock), so generated items never change between runs.
BASE_TIME = dt.datetime(2026, 1, 15, 12, 0, tzinfo=dt.UTC)
# Generated items per entity, and how many distinct values a partition-key field takes among them.
PER_ENTITY = 4
PARTITION_POOL = 2
# How far past the base time a generated TTL attribute expires.
TTL_AHEAD = dt.timedelta(days=36500)


class SampleError(ValueError):
    """Items cannot be generated for an entity: a field whose type or constraint has no generated value."""


def sample_loader(table: Table) -> Callable[[DB], None] | None:
    """What writes the design's sample data into a connected DB, or None when it has none.

    A design module may define ``load_sample(db)`` (writing through the model), or ``SAMPLE_ITEMS``, a list of
    items in DynamoDB JSON (what the Workbench import writes; each is put as it is); a seed example's package
    exposes ``EXAMPLE``, whose ``open`` builds the app's service on the DB and ``load`` writes the sample
    data through it; a design may also sit next to a ``sample`` module with ``open_service(db)`` and
    ``load(service)`` (the seeds' convention, without an ``EXAMPLE``).
    """
    modules = sorted({meta.cls.__module__ for meta in table.entities.values()})
    for module in modules:
        found = getattr(sys.modules.get(module), "load_sample", None)
        if callable(found):
            return found
        items = getattr(sys.modules.get(module), "SAMPLE_ITEMS", None)
        if isinstance(items, list):
            # the default binds the loop's value; mypy cannot infer a lambda with one
            return lambda db, items=items: _put_items(db, items)  # type: ignore[misc]
    for module in modules:
        package = module.rpartition(".")[0]
        if not package:
            continue
        try:
            example = getattr(importlib.import_module(package), "EXAMPLE", None)
        except ImportError:
            continue
        if example is not None and getattr(example, "table", None) is table:
            return lambda db, example=example: example.load(example.open(db))  # type: ignore[misc]  # as above
        sample = _sibling_sample(package)
        if sample is not None:
            return lambda db, sample=sample: sample.load(sample.open_service(db))  # type: ignore[misc]  # as above
    return None


def _sibling_sample(package: str) -> types.ModuleType | None:
    """``<package>.sample`` when it has ``open_service`` and ``load``; an error inside it is the design's."""
    try:
        sample = importlib.import_module(f"{package}.sample")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.sample":
            raise
        return None
    if callable(getattr(sample, "open_service", None)) and callable(getattr(sample, "load", None)):
        return sample
    return None


def sample_items(module: types.ModuleType | None, table: Table) -> list[dict[str, Any]]:
    """The design's sample items (DynamoDB JSON), or ``[]`` when it has none: ``module``'s ``SAMPLE_ITEMS``
    as listed, or what :func:`sample_loader`'s loader writes on an in-memory table, scanned back."""
    declared = getattr(module, "SAMPLE_ITEMS", None)
    if declared is not None:
        return list(declared)
    if sample_loader(table) is None:
        return []
    db, _ = loaded_db(table)
    try:
        return table_items(db)
    finally:
        db.close()


def _put_items(db: DB, items: list[dict[str, Any]]) -> None:
    for item in items:
        try:
            db.call("PutItem", {"TableName": db.table_name, "Item": item})
        except ModelError as error:
            raise SampleError(f"SAMPLE_ITEMS: the item {item!r} was refused: {error}") from None


def loaded_db(
    table: Table, *, sizes: Mapping[str, Mapping[str, int]] | None = None, generated: bool = False
) -> tuple[DB, str]:
    """A fresh in-memory table holding the design's items, and where they came from (``"sample"`` or
    ``"generated"``). ``generated``, or ``sizes`` (entity class -> field -> characters of its strings), asks
    for generated items whatever sample data the design has."""
    from singletable.examples import DEMO_CURSOR_SECRET

    load = None if sizes or generated else sample_loader(table)
    db = memory_db(table, cursor_secret=DEMO_CURSOR_SECRET)
    if load is not None:
        try:
            load(db)
        except SampleError:
            db.close()
            raise
        except Exception as error:  # the design's own code, whatever it raises, in one line
            db.close()
            raise SampleError(
                f"the design's sample data could not be loaded: {type(error).__name__}: {error}"
            ) from None
        return db, "sample"
    try:
        for meta in table.entities.values():
            for n in range(PER_ENTITY):
                create_generated(db, generated_entity(meta.cls, n, (sizes or {}).get(meta.cls.__name__, {})))
    except BaseException:
        db.close()
        raise
    return db, "generated"


def create_generated(db: DB, entity: Any) -> Any:
    """Write a generated entity as the application writes a new one, ``db.create``: a version starts at 1,
    guards and derived items are claimed. A ``put`` would be an update of an item that is not there, which a
    versioned entity refuses. Returns what was stored, or None when an earlier generated item already holds
    its key or a unique value (a singleton's fixed key, a partition-pool field that is unique): the table
    keeps the first, as the application's second create would fail."""
    from singletable.model import AlreadyExists, UniqueViolation

    try:
        return db.create(entity)
    except (AlreadyExists, UniqueViolation):
        return None
    except ModelError as error:
        raise SampleError(
            f"{type(entity).__name__}: a generated item was refused: {error} "
            "(`singletable check` says what in the design cannot work)"
        ) from None


def memory_db(table: Table, **options: Any) -> DB:
    """The design's table, created empty on an in-memory engine at the demos' fixed clock (``options``: more
    of ``connect``'s). A table the engine refuses to create (a name DynamoDB does not accept) is a
    :class:`~singletable.data.DesignError` naming why, one line for the command that asked."""
    from singletable._designs import DesignError
    from singletable.examples import DEMO_CLOCK

    try:
        db = connect(table, ":memory:", clock=lambda: DEMO_CLOCK, **options)
    except ModelError as error:
        raise DesignError(f"the design's table cannot be created: {error}") from None
    try:
        db.create_table()
    except ModelError as error:
        db.close()
        raise DesignError(f"the design's table cannot be created: {error}") from None
    return db


def table_items(db: DB, index: str | None = None) -> list[dict[str, Any]]:
    """Every item of the table (or every entry of ``index``), as AttributeValue dicts, in no set order."""
    params: dict[str, Any] = {"TableName": db.table_name}
    if index:
        params["IndexName"] = index
    items: list[dict[str, Any]] = []
    while True:
        response = db.call("Scan", params)
        items += response.get("Items", [])
        last = response.get("LastEvaluatedKey")
        if not last:
            return items
        params = dict(params, ExclusiveStartKey=last)


def generated_entity(
    cls: type[Any], n: int, sizes: Mapping[str, int] | None = None, *, defaults: bool = False
) -> Any:
    """The ``n``-th generated instance of entity ``cls``: a value for every field from its type.

    ``defaults``: a field whose default is a value (not None, not empty: ``""``, ``[]``, ``set()`` say "none
    yet", and a generated value shows what the field costs when given) keeps it, as a create that leaves the
    field out writes it (an order created ``status="open"`` is in the sparse index of open orders; a
    generated ``status-7`` would not be). A field with a default that refuses its generated value keeps its
    default; a required one raises :class:`SampleError` naming the entity, the field and pydantic's reason.
    """
    meta = cls.model_entity()
    partition = set(meta.pk.needs)
    lengths = sizes or {}
    retried: set[str] = set()
    values: dict[str, Any] = {}
    vectors = {f["name"]: f["vector"] for f in meta.describe()["fields"] if f.get("vector")}
    for name, info in cls.model_fields.items():
        if name in (meta.created, meta.updated, meta.version):
            continue
        if name in vectors:  # a unit vector along the n-th axis: every generated item points its own way
            values[name] = [1.0 if i == n % vectors[name] else 0.0 for i in range(vectors[name])]
            continue
        if defaults and not info.is_required() and _a_value(info.get_default(call_default_factory=True)):
            continue
        index = n % PARTITION_POOL if name in partition and name not in _sort_fields(meta) else n
        values[name] = value_for(info.annotation, name, index, lengths.get(name, 0))
    if meta.ttl and isinstance(values.get(meta.ttl), dt.datetime):
        values[meta.ttl] += TTL_AHEAD  # the engine's TTL sweeper must not delete items while they are drawn
    for _attempt in range(2 * len(values) + 1):
        try:
            return cls(**values)
        except ValidationError as error:
            optional = [f for f in values if not cls.model_fields[f].is_required()]
            bad = {str(e["loc"][0]) for e in error.errors() if e["loc"]}
            # A required field out of its bounds (an order at most 999) is tried once with its first value.
            small = {b for b in bad - set(optional) if b in values and b not in retried}
            for name in small:
                retried.add(name)
                values[name] = value_for(cls.model_fields[name].annotation, name, 0, lengths.get(name, 0))
            if small:
                continue
            # A model validator's error names no field: give optional fields their defaults, last first.
            fixable = {b for b in bad if b in optional} if bad else set(optional[-1:])
            if not fixable:
                first = error.errors()[0]
                where = ".".join(str(part) for part in first["loc"]) or "?"
                raise SampleError(
                    f"{cls.__name__}.{where}: cannot generate a value ({first['msg']}); "
                    "give the design sample data or a default"
                ) from None
            for name in fixable:
                values.pop(name)
    raise SampleError(f"{cls.__name__}: cannot generate a valid instance")


def _a_value(default: Any) -> bool:
    """Whether a field's default is a value a create writes as it is: not None, not an empty text or
    collection (which writes nothing, or builds a key DynamoDB refuses)."""
    if default is None:
        return False
    try:
        return len(default) > 0
    except TypeError:  # a number, a bool, a date: a value
        return True


def _sort_fields(meta: Any) -> set[str]:
    return set(meta.sk.needs) if meta.sk is not None else set()


def value_for(annotation: Any, name: str, n: int, length: int = 0) -> Any:
    """A deterministic value of type ``annotation`` for field ``name`` (``length``: a string's characters)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return value_for(args[0], name, n, length)
    if origin in (typing.Union, types.UnionType):
        chosen = [a for a in args if a is not type(None)]
        return value_for(chosen[0], name, n, length) if chosen else None
    if origin is typing.Literal:
        return args[n % len(args)]
    if origin in (list, tuple, set, frozenset):
        inner = value_for(args[0] if args else str, name, n, length)
        return {inner} if origin in (set, frozenset) else [inner]
    if origin is dict:
        return {"k": value_for(args[1] if len(args) > 1 else str, name, n, length)}
    return _scalar(annotation, name, n, length)


def _scalar(annotation: Any, name: str, n: int, length: int) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = list(annotation)
        return members[n % len(members)]
    if annotation is bool:
        return n % 2 == 0
    if annotation is int:
        return n + 1
    if annotation is float:
        return n + 0.5
    if annotation is Decimal:
        return Decimal(n) + Decimal("0.25")
    if annotation is dt.datetime:
        return BASE_TIME + dt.timedelta(hours=n)
    if annotation is dt.date:
        return BASE_TIME.date() + dt.timedelta(days=n)
    if annotation is bytes:
        return f"{name}-{n}".encode().ljust(length, b"x")
    if annotation is uuid.UUID:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"singletable:{name}:{n}")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation(
            **{
                f: value_for(i.annotation, f, n)
                for f, i in annotation.model_fields.items()
                if i.is_required()
            }
        )
    if annotation is str or annotation is Any:
        text = f"{name}-{n}@example.com" if "email" in name.lower() else f"{name}-{n}"
        return text.ljust(length, "x")
    raise SampleError(
        f"field {name}: no generated value for type {annotation!r}; give the design sample data"
    )


def example_values(
    meta: Any, items: list[dict[str, Any]], labeller: Callable[[dict[str, Any]], str], index: Any
) -> dict[str, Any]:
    """Field values of the first item of ``meta``'s entity (one the index holds, when it is sparse), else of
    a generated one: the arguments a documented or measured pattern is called with."""
    name = meta.cls.__name__
    wanted = [*index.pk_attributes, *index.sk_attributes] if index is not None and index.by_fields else []
    if index is not None and not wanted:
        wanted = [index.pk]
    mine = [i for i in items if labeller(i) == name]
    mine.sort(key=lambda i: json.dumps(i, sort_keys=True, default=str))
    generated = dict(generated_entity(meta.cls, 0).__dict__)
    for item in mine:
        if all(a in item for a in wanted):  # an index keyed by fields holds items with every one
            found = meta.decode(item)
            # A field the item leaves empty (a shard number that is off) takes the generated value.
            return {**generated, **{k: v for k, v in found.items() if v is not None}}
    return generated
