"""``copy_from``: a step that reads another table and writes what each of its items becomes into the
migration's own table -- for a change DynamoDB cannot make in place (a key attribute's type, a key schema, a
table merged into another).

The source is scanned page by page through a caller that refuses every write, so it is never written; the
scan's position is the migration's checkpoint, kept (like every migration's) in the record item of the
target table, outside every index. Each source item is turned by the step's function into entities and set
additions, and each is written so that doing it twice changes nothing:

* an entity is put on condition that its key is free: an item already there -- copied by an earlier,
  interrupted run, or written meanwhile by an application already on the new table -- is kept as it is;
* :class:`AddToSet` puts its entity's other attributes where absent (``if_not_exists``) and ``ADD`` s the
  members of one set field: adding a member twice leaves one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from singletable.migrate._calls import Caller
from singletable.migrate._items import Item, absent, key_text
from singletable.migrate._record import RECORD_ID
from singletable.migrate._steps import MigrationError, Step, Write
from singletable.model import Entity, EntityMeta, RequestError, Table

REFUSED = frozenset({"ConditionalCheckFailedException"})


@dataclass(slots=True)
class AddToSet:
    """What ``copy_from``'s function returns to add members to a set field of an item that several source
    items feed (a word index): ``entity`` carries the key fields and the members to add in ``field``; the
    item is created from it when absent. Written with ``ADD``, so a member added twice is there once."""

    entity: Entity
    field: str


@dataclass(slots=True)
class CopyFrom(Step):
    """Copy every item of ``source`` into the migration's table; see :func:`copy_from`."""

    source: Table
    fn: Callable[[Item], Iterable[Entity | AddToSet]]
    source_name: str | None = None
    kind = "copy_from"

    def __post_init__(self) -> None:
        if not isinstance(self.source, Table):
            raise TypeError(f"copy_from() takes the source's Table(...), not {self.source!r}")
        if not callable(self.fn):
            raise TypeError(f"copy_from() needs each=, a function of one source item, not {self.fn!r}")

    def name(self) -> str:
        """The source table's name: given, or the source design's (its environment variable read now)."""
        return self.source_name or self.source.resolved_name()

    def reader(self, call: Caller) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
        """A caller on the source table, on the same connection and rate limit, that refuses every write;
        a source that is not there is a MigrationError naming it."""
        source = Caller(call.db, call.limiter, read_only=True)
        source.table_name = self.name()
        source.usage, source._lock = call.usage, call._lock  # one run's units, wherever consumed

        def read(operation: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                return source(operation, params)
            except RequestError as error:
                if error.code != "ResourceNotFoundException":
                    raise
                raise MigrationError(
                    f"copy_from: the source table {self.name()} is not on this database or endpoint "
                    "(the migration reads it beside its own table)"
                ) from None

        return read

    def writes(self, item: Item, table: Table) -> list[Write]:
        if _is_record(item, self.source):
            return []  # the source's own migration record is not data
        out: list[Write] = []
        for result in self.fn(item) or ():
            if isinstance(result, AddToSet):
                out.append(_add_to_set(result))
            elif isinstance(result, Entity):
                out.append(_put_if_absent(result))
            else:
                raise MigrationError(
                    f"copy_from({self.name()}): each returned {result!r}: return entities or AddToSet(...)"
                )
        for write in out:
            for new in write.new:
                if table.type_attribute not in new:
                    raise MigrationError(f"copy_from({self.name()}): {new} is not an item of the target")
        return out

    def describe(self) -> str:
        return f"copy {self.name()}: {getattr(self.fn, '__qualname__', repr(self.fn))}"


def _is_record(item: Item, source: Table) -> bool:
    return item.get(source.pk_name) in ({"S": RECORD_ID}, {"B": RECORD_ID.encode()})


def _refuse_owned(entity: Entity, verb: str) -> EntityMeta:
    meta = entity.model_entity()
    if meta.unique or meta.derived:
        owned = "uniqueness guards" if meta.unique else "derived items"
        raise MigrationError(
            f"copy_from: {meta.type} has {owned}, which {verb} does not write; create such entities "
            "through the model (db.create) once the copy is done"
        )
    return meta


def _put_if_absent(entity: Entity) -> Write:
    meta = _refuse_owned(entity, "a copied put")
    item = meta.to_item(meta.values(entity))
    key = meta.primary_key(meta.values(entity))
    return Write("PutItem", {"Item": item, **absent(key)}, None, [item])


def _add_to_set(add: AddToSet) -> Write:
    meta = _refuse_owned(add.entity, "AddToSet")
    spec = meta.fields.get(add.field)
    if spec is None or spec.codec.kind not in ("SS", "NS", "BS"):
        raise MigrationError(f"AddToSet: {meta.type}.{add.field} is not a set field")
    values = meta.values(add.entity)
    item = meta.to_item(values)
    key = meta.primary_key(values)
    attribute = meta.attribute_of[add.field]
    members = item.get(attribute)
    if members is None:
        raise MigrationError(f"AddToSet: {meta.type}.{add.field} holds no member to add")
    names: dict[str, str] = {"#f": attribute}
    values_av: dict[str, Any] = {":f": members}
    sets = []
    for n, (name, av) in enumerate(
        sorted((n, av) for n, av in item.items() if n not in key and n != attribute)
    ):
        names[f"#a{n}"] = name
        values_av[f":a{n}"] = av
        sets.append(f"#a{n} = if_not_exists(#a{n}, :a{n})")
    expression = (f"SET {', '.join(sets)} " if sets else "") + "ADD #f :f"
    params = {
        "Key": key,
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values_av,
    }
    return Write("UpdateItem", params, None, [item])


def copy_item(call: Caller, step: CopyFrom, item: Item, table: Table) -> int:
    """Write what ``step`` makes of one source ``item``; a put refused because its key is taken is an item
    already there, kept. Returns 1 if anything was written."""
    try:
        writes = step.writes(item, table)
    except MigrationError:
        raise
    except Exception as error:
        where = key_text({n: item[n] for n in (step.source.pk_name, step.source.sk_name) if n and n in item})
        raise MigrationError(f"{step.describe()}: item {where}: {type(error).__name__}: {error}") from error
    wrote = 0
    for write in writes:
        try:
            call(write.operation, write.params)
            wrote = 1
        except RequestError as error:
            if error.code not in REFUSED:
                where = key_text(write.params.get("Key") or _key_of(write, table))
                raise MigrationError(
                    f"{step.describe()}: writing {where}: {error.code}: {error.message}"
                ) from None
    return wrote


def _key_of(write: Write, table: Table) -> Item:
    item = write.params.get("Item", {})
    return {n: item[n] for n in (table.pk_name, table.sk_name) if n and n in item}


def copy_from(
    source: Table, each: Callable[[Item], Iterable[Entity | AddToSet]], *, name: str | None = None
) -> CopyFrom:
    """Read every item of the table ``source`` declares (``name``: another table name) and write what
    ``each(item)`` returns into the migration's table: entities, put only where their key is free, and
    :class:`AddToSet`, added with ``ADD``. The source is only read. Make ``each`` depend only on the item it
    is given, so a page read again writes the same. Entities with uniqueness guards or derived items are
    refused (this step writes single items)."""
    return CopyFrom(source, each, name)
