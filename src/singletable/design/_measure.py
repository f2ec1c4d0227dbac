"""What each access pattern and each entity write really consumes, measured on the embedded engine.

``cost`` prices a design from measurements, not formulas: the design's items (its sample data, or items
generated from field types) are written into ``Engine(":memory:")`` through the model, then every named
pattern and collection is called once (one page, as ``db.page`` reads it) and every entity is created,
updated and deleted once, each inside ``db.trace(capacity="INDEXES")``. What DynamoDB's ConsumedCapacity
says -- the table's share and each index's, reads and writes, transactions at their doubled rate, the
hydrating BatchGetItem of a KEYS_ONLY page, a unique value's guard item -- is what is kept. Storage is
measured the same way: the size of each stored item and index entry, per entity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from singletable.data import Design
from singletable.design._collections import Labeller
from singletable.design._items import (
    example_values,
    generated_entity,
    loaded_db,
    memory_db,
    table_items,
    value_for,
)
from singletable.engine.shared import item_size
from singletable.model import DB, ModelError

TABLE = "table"  # the target name of the table's own share, beside index names
READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
DEFAULT_PAGE_SIZE = 25  # entities one call of a pattern reads, unless the profile says: db.page's default
# The generated entity whose writes are measured (any number: they are written to an empty table).
FRESH = 1000


@dataclass
class Consumed:
    """Capacity units per target (``"table"`` or an index name), reads and writes apart."""

    reads: dict[str, float] = field(default_factory=dict)
    writes: dict[str, float] = field(default_factory=dict)
    operations: list[str] = field(default_factory=list)

    def add(self, operation: str, capacity: Any) -> None:
        self.operations.append(operation)
        bucket = self.reads if operation in READS else self.writes
        for entry in capacity if isinstance(capacity, list) else [capacity] if capacity else []:
            arms = [(TABLE, entry.get("Table"))]
            for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
                arms += list((entry.get(kind) or {}).items())
            for target, arm in arms:
                units = float((arm or {}).get("CapacityUnits", 0))
                if units:
                    bucket[target] = bucket.get(target, 0.0) + units


@dataclass
class PatternMeasure:
    """One call of a pattern: what it consumed, and how it reads."""

    name: str
    index: str | None
    consumed: Consumed
    filtered: bool
    scan: bool


@dataclass
class StorageMeasure:
    """Per stored entity: items kept per target (1 in the table, plus guards; the share an index holds) and
    their bytes, without the 100-byte overhead (added when priced)."""

    items: dict[str, float] = field(default_factory=dict)
    bytes: dict[str, float] = field(default_factory=dict)


@dataclass
class Measurement:
    origin: str  # "sample" or "generated"
    patterns: dict[str, PatternMeasure]
    writes: dict[str, dict[str, Consumed]]  # entity class -> create/update/delete -> consumed
    storage: dict[str, StorageMeasure]
    failures: dict[str, str]  # what could not be measured, and why


def measure(
    design: Design,
    *,
    page_sizes: Mapping[str, int] | None = None,
    sizes: Mapping[str, Mapping[str, int]] | None = None,
    update_fields: Mapping[str, str] | None = None,
) -> Measurement:
    """Measure every pattern and every entity's writes and storage of ``design`` (``page_sizes``: entities
    per call by pattern name; ``sizes``: entity -> field -> characters, for generated items;
    ``update_fields``: entity -> the field its update changes)."""
    db, origin = loaded_db(design.table, sizes=sizes)
    try:
        items = table_items(db)
        labeller = Labeller(design, items)
        failures: dict[str, str] = {}
        patterns = _patterns(design, db, items, labeller, page_sizes or {}, failures)
        storage = _storage(design, db, items, labeller)
        if any(not s.items for s in storage.values()):  # entities the sample data does not hold
            storage = _fill_storage(design, storage)
    finally:
        db.close()
    writes = _all_writes(design, sizes or {}, update_fields or {}, failures)
    return Measurement(origin, patterns, writes, storage, failures)


def _all_writes(
    design: Design,
    sizes: Mapping[str, Mapping[str, int]],
    update_fields: Mapping[str, str],
    failures: dict[str, str],
) -> dict[str, dict[str, Consumed]]:
    """Each entity's writes, on an empty table: a singleton's create must not find the sample's item."""
    db = memory_db(design.table)
    try:
        return {
            name: _writes(db, meta.cls, sizes.get(name, {}), update_fields.get(name), failures)
            for name, meta in ((m.cls.__name__, m) for m in design.table.entities.values())
        }
    finally:
        db.close()


def pattern_calls(design: Design) -> dict[str, Any]:
    """Every callable read by its profile name: ``Entity.pattern`` and each collection's own name."""
    calls: dict[str, Any] = {}
    for meta in design.table.entities.values():
        for name, pattern in meta.patterns.items():
            calls[f"{meta.cls.__name__}.{name}"] = (meta, pattern, pattern.index_obj, pattern.arguments)
    for name, collection in design.table.collections.items():
        fields = collection.pk_key.template.fields
        calls[name] = (collection.metas[0], collection, collection.index_obj, fields)
    return calls


def _patterns(
    design: Design,
    db: DB,
    items: list[dict[str, Any]],
    labeller: Labeller,
    page_sizes: Mapping[str, int],
    failures: dict[str, str],
) -> dict[str, PatternMeasure]:
    out = {}
    for name, (meta, callable_, index, arguments) in pattern_calls(design).items():
        values = example_values(meta, items, labeller, index)
        try:
            query = callable_(**{f: values.get(f) for f in arguments})
            with db.trace(capacity="INDEXES") as trace:
                db.page(query, size=page_sizes.get(name, DEFAULT_PAGE_SIZE), on_bad_item="skip")
        except (ModelError, TypeError) as error:
            failures[name] = str(error)
            continue
        consumed = Consumed()
        for request in trace.requests:
            consumed.add(request.operation, request.capacity)
        index_name = index.name if index is not None else None
        out[name] = PatternMeasure(
            name, index_name, consumed, query.filter_cond is not None or query.scan, query.scan
        )
    return out


def _writes(
    db: DB, cls: type[Any], sizes: Mapping[str, int], update_field: str | None, failures: dict[str, str]
) -> dict[str, Consumed]:
    """Create, update (``update_field``, or the first field outside keys and guards) and delete one fresh
    generated ``cls``, each traced, as the application writes them: the create keeps every field's default
    (so a sparse key a default puts in an index is priced), the update and the delete take the entity the
    write before returned (so a versioned entity's write is the conditioned one its version allows)."""
    out: dict[str, Consumed] = {}
    meta = cls.model_entity()
    try:
        entity = generated_entity(cls, FRESH, sizes, defaults=True)
    except ValueError as error:
        failures[f"{cls.__name__} writes"] = str(error)
        return out
    field_name = update_field or _updatable_field(meta)
    current = [entity]
    steps = [
        ("create", lambda: db.create(current[-1])),
        ("update", lambda: _update(db, cls, current[-1], field_name)),
        ("delete", lambda: db.delete(current[-1])),
    ]
    for kind, write in steps:
        try:
            with db.trace(capacity="INDEXES") as trace:
                written = write()
        except ModelError as error:
            failures[f"{cls.__name__} {kind}"] = str(error)
            return out
        if written is not None:
            current.append(written)
        consumed = Consumed()
        for request in trace.requests:
            consumed.add(request.operation, request.capacity)
        out[kind] = consumed
    return out


def _updatable_field(meta: Any) -> str | None:
    """A field an update would typically change: not in any key, guard or timestamp (the first such)."""
    keyed = {name for key in meta.keys.values() for name in key.needs}
    skip = keyed | set(meta.unique) | {meta.created, meta.updated, meta.version, meta.ttl}
    return next((name for name in meta.fields if name not in skip and meta.fields[name].stored), None)


def _update(db: DB, cls: type[Any], entity: Any, field_name: str | None) -> Any:
    """The entity updated: ``field_name`` set to a generated value other than its own, or (when every
    field is part of a key) the whole entity written again."""
    if field_name is None:
        return db.put(entity)
    annotation = cls.model_fields[field_name].annotation
    old = getattr(entity, field_name, None)
    new: Any = old
    for n in range(FRESH + 1, FRESH + 5):  # a change: an update that writes the same value changes no index
        new = value_for(annotation, field_name, n, len(str(old or "")))
        if new != old:
            break
    return db.update(entity, **{field_name: new})


def _storage(
    design: Design, db: DB, items: list[dict[str, Any]], labeller: Labeller
) -> dict[str, StorageMeasure]:
    """Items and bytes per stored entity in the table (guards counted with the entity they guard) and in each
    index (the share of the entity's items it holds, at the size of its projected entries)."""
    names = [meta.cls.__name__ for meta in design.table.entities.values()]
    count = {name: 0 for name in names}
    for item in items:
        if labeller(item) in count:
            count[labeller(item)] += 1
    storage = {name: StorageMeasure() for name in names}
    targets: list[tuple[str, list[dict[str, Any]]]] = [(TABLE, items)]
    targets += [(index.name, table_items(db, index.name)) for index in design.table.indexes]
    for target, entries in targets:
        for entry in entries:
            owner = labeller(entry).split(" ", 1)[0]  # "User email guard" is stored for a User
            if owner not in storage or not count[owner]:
                continue
            measured = storage[owner]
            measured.items[target] = measured.items.get(target, 0) + 1
            measured.bytes[target] = measured.bytes.get(target, 0) + item_size(entry)
    for name, measured in storage.items():  # totals over the entity's items, then per item
        measured.items = {t: n / count[name] for t, n in measured.items.items()}
        measured.bytes = {t: n / count[name] for t, n in measured.bytes.items()}
    return storage


def _fill_storage(design: Design, storage: dict[str, StorageMeasure]) -> dict[str, StorageMeasure]:
    """Storage of the entities the sample data lacks, from generated items."""
    db, _ = loaded_db(design.table, generated=True)
    try:
        items = table_items(db)
        generated = _storage(design, db, items, Labeller(design, items))
    finally:
        db.close()
    return {name: measured if measured.items else generated[name] for name, measured in storage.items()}
