"""Reading a query's pages: the requests of one pattern, their items decoded into entities, pages and cursors.

One :class:`Pager` walks one query: each :meth:`Pager.next` is the steps (:mod:`singletable.model._steps`) of
one response -- the Query or Scan, the BatchGetItem that hydrates a KEYS_ONLY index's items -- and returns
its entities (None once there is no more). ``db.query`` yields them as they come; :func:`page_steps` and
:func:`collect_steps` build a signed :class:`Page` and a :class:`Grouped` from them. ``DB`` and ``AsyncDB``
drive the same steps, so paging, cursors, page sizing and the handling of items that do not fit their entity
are one code for both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from singletable.model import cursor as cursors
from singletable.model._batches import batch_get
from singletable.model._entity_meta import EntityMeta
from singletable.model._field_values import AV
from singletable.model._page_sizing import PageSizer
from singletable.model._patterns import Grouped, Query
from singletable.model._read_items import BAD_ITEM, Fallback, checked_on_bad_item, stored_item_error
from singletable.model._steps import Request, Steps
from singletable.model._table import Table

_SLOW = (Fallback, *BAD_ITEM)
# CostlyPage points at the application's line: above PageSizer.warn, page_steps, the driver and db.page.
WARN_STACKLEVEL = 5


@dataclass
class Page:
    """Up to ``size`` entities and the cursor to resume after the last of them (None when done)."""

    items: list[Any]
    cursor: str | None

    @property
    def has_more(self) -> bool:
        return self.cursor is not None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


class Pager:
    """The responses of one query, in order: each :meth:`next` sends one request (and hydrates its items)
    and returns what it decoded; stops decoding once ``limit`` entities are out."""

    def __init__(
        self,
        table: Table,
        table_name: str,
        query: Query,
        start: dict[str, AV] | None,
        *,
        page_size: int | None = None,
        limit: int | None = None,
        sizer: PageSizer | None = None,
        on_bad: str = "raise",
    ) -> None:
        self.table, self.table_name, self.query = table, table_name, query
        self.start, self.page_size, self.limit, self.sizer, self.on_bad = (
            start,
            page_size,
            limit,
            sizer,
            on_bad,
        )
        self.op, self.base = query.request(table_name)
        self.metas = query.entities
        self.single = self.metas[0] if len(self.metas) == 1 else None
        self.partial = query.projection is not None
        self.done = False

    def next(self) -> Steps[tuple[list[Any], list[dict[str, AV]]] | None]:
        """One response's entities and the items they came from; None when the query has no more."""
        if self.done:
            return None
        params = dict(self.base)
        if self.start:
            params["ExclusiveStartKey"] = self.start
        sizer, limit = self.sizer, self.limit
        if sizer is not None:
            params["Limit"] = sizer.limit
        elif self.page_size:
            params["Limit"] = self.page_size
        response = yield Request(self.op, params)
        items = response.get("Items", [])
        if self.query.needs_hydration and items:
            items = yield from self._hydrate(items)
        single = self.single
        if single is not None and not self.partial and (limit is None or limit >= len(items)):
            # The hot path: comprehensions, no per-item branching, single.matches() inlined
            type_attr, type_av, matches = self.table.type_attribute, single.type_av, single.matches
            raws = [r for r in items if (t := r.get(type_attr)) == type_av or (t is None and matches(r))]
            try:
                build = single.read_builder
                entities = (
                    [build(r) for r in raws] if build is not None else [single.from_item(r) for r in raws]
                )
            except _SLOW:  # an item for validation, or one that does not fit (model/_read_items.py)
                entities, raws = self._decode(raws, None)
        else:
            entities, raws = self._decode(items, limit)
        if sizer is not None:
            sizer.record(response.get("ScannedCount", len(items)), len(entities))
        if limit is not None:
            self.limit = limit - len(entities)
            self.done = self.limit <= 0
        self.start = response.get("LastEvaluatedKey")
        self.done = self.done or not self.start
        return entities, raws

    def _decode(self, items: list[dict[str, AV]], limit: int | None) -> tuple[list[Any], list[dict[str, AV]]]:
        """A page of several types (or a projection, or past a limit, or holding an item that does not fit
        its entity): each item by its own type; an unfit one raised, skipped or kept raw (``on_bad``)."""
        entities: list[Any] = []
        raws: list[dict[str, AV]] = []
        for raw in items:
            meta = _which(self.metas, raw)
            if meta is not None:
                try:
                    entities.append(meta.from_item(raw, partial=self.partial))
                except BAD_ITEM as error:
                    bad = stored_item_error(meta, raw, self.table_name, error)
                    if self.on_bad == "raise":
                        raise bad from None
                    if self.on_bad == "skip":
                        continue
                    entities.append(raw)
                raws.append(raw)
                if limit is not None and len(entities) >= limit:
                    break
        return entities, raws

    def _hydrate(self, items: list[dict[str, AV]]) -> Steps[list[dict[str, AV]]]:
        """Index items -> full items by primary key, in index order (seed 001's KEYS_ONLY email lookup)."""
        keys = [self.table.pk_name] + ([self.table.sk_name] if self.table.sk_name else [])
        wanted = [{k: raw[k] for k in keys} for raw in items]
        found = yield from batch_get(self.table_name, wanted, raw=True)
        by_key = {_frozen(item, keys): item for item in found}
        out = []
        for raw in items:
            full = by_key.get(_frozen(raw, keys))
            if full is not None:
                out.append({**full, **{k: v for k, v in raw.items() if k not in full}})
        return out


def start_of(secret: bytes, query: Query, cursor: str | None) -> dict[str, AV] | None:
    """Where a query resumes: the key a signed cursor holds (:class:`InvalidCursor` if it was tampered
    with or belongs to another query), or None for the start."""
    return cursors.decode(secret, query.fingerprint(), cursor) if cursor else None


def page_steps(
    table: Table,
    table_name: str,
    secret: bytes,
    query: Query,
    size: int,
    cursor: str | None,
    on_bad_item: str,
) -> Steps[Page]:
    """One page of ``size`` entities and a signed cursor to the next (None when there is no more)."""
    on_bad = checked_on_bad_item(on_bad_item)
    sizer = PageSizer(size)
    pager = Pager(table, table_name, query, start_of(secret, query, cursor), sizer=sizer, on_bad=on_bad)
    entities: list[Any] = []
    last: dict[str, AV] | None = None
    while (got := (yield from pager.next())) is not None:
        for entity, raw in zip(*got, strict=True):
            if len(entities) == size:
                if sizer.costly:
                    sizer.warn(_named(query), size, WARN_STACKLEVEL)
                keys = table.key_attributes(query.index)
                # entities is full, so last was set with them
                token = cursors.encode(secret, query.fingerprint(), {k: last[k] for k in keys if k in last})  # type: ignore[index,operator]
                return Page(entities, token)
            entities.append(entity)
            last = raw
    if sizer.costly:
        sizer.warn(_named(query), size, WARN_STACKLEVEL)
    return Page(entities, None)


def collect_steps(table: Table, table_name: str, query: Query, on_bad_item: str) -> Steps[Grouped]:
    """Every entity of a collection (all pages), grouped by type."""
    pager = Pager(table, table_name, query, None, on_bad=checked_on_bad_item(on_bad_item))
    entities: list[Any] = []
    while (got := (yield from pager.next())) is not None:
        entities += got[0]
    return Grouped(entities)


def _named(query: Query) -> str:
    """``NOTE.of_user``: a query by its entity types and pattern, for messages."""
    return "/".join(meta.type for meta in query.entities) + (f".{query.name}" if query.name else "")


def _frozen(item: dict[str, AV], keys: list[str]) -> tuple[Any, ...]:
    return tuple(next(iter(item[k].values())) for k in keys)


def _which(metas: list[EntityMeta], raw: dict[str, AV]) -> EntityMeta | None:
    for meta in metas:
        if meta.matches(raw):
            return meta
    return None
