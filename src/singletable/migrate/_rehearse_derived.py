"""A rehearsal's reverse check of derived items: every stored item of a derived type is one a stored owner's
declaration calls for now.

The forward check (an owner's derived items are stored) reads each derived item by the key its owner's
declaration computes. The reverse one cannot in general: a ``Derived(build=...)`` item says nothing of its
owner, and items of a type an old declaration derived may have no owner left at all. So during the one Scan
the rehearsal makes, this ledger notes the key and type of every derived item each owner calls for and of
every stored item of a derived type, in a temporary SQLite file; when the Scan ends, one anti-join names the
stored ones no owner calls for. Memory holds SQLite's page cache, whatever the table's size; the file grows
with the number of derived items and is deleted with the ledger.

Each orphan is then read by its key (only for the problems listed) to say why: where an owner's primary key
can be computed from the derived item's own fields by name (``site_id`` of a tag item gives its site's key),
that owner is read -- absent, the item has no owner; present, its declaration does not derive this item
(left from an old template, or for a value the owner no longer holds). Otherwise no stored owner derives it.
"""

from __future__ import annotations

import pickle
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from singletable.migrate._calls import Caller
from singletable.migrate._items import Item, canonical, key_text
from singletable.model import EntityMeta, ModelError

Explain = Callable[[Item, str], None]  # (the orphan's primary key, why)


class Declaration(NamedTuple):
    """An owner type of the design after the migrations, and a type one of its ``Derived`` declares."""

    owner: EntityMeta
    target: EntityMeta


def derived_types(metas: Iterable[EntityMeta]) -> set[str]:
    """The types some declaration in ``metas`` derives (old designs' declarations included: their items
    must be gone or called for by the new design)."""
    return {d.target.model_entity().type for meta in metas for d in meta.derived}


class DerivedLedger:
    """What owners call for and what is stored, by key and type, on disk (module docstring)."""

    def __init__(self, owners: Iterable[EntityMeta]) -> None:
        self.owners: dict[str, list[Declaration]] = {}  # derived type -> who derives it, in declaration order
        for meta in owners:
            for declared in meta.derived:
                target = declared.target.model_entity()
                self.owners.setdefault(target.type, []).append(Declaration(meta, target))
        self._directory = tempfile.TemporaryDirectory(prefix="singletable-rehearse-derived-")
        self._db = sqlite3.connect(Path(self._directory.name) / "derived.db")
        self._db.executescript(
            "CREATE TABLE called (key BLOB, kind TEXT, PRIMARY KEY (key, kind)) WITHOUT ROWID;"
            "CREATE TABLE stored (n INTEGER PRIMARY KEY, key BLOB, kind TEXT, item BLOB);"
        )

    def __enter__(self) -> DerivedLedger:
        return self

    def __exit__(self, *_: object) -> None:
        self._db.close()
        self._directory.cleanup()

    def called_for(self, key: Item, kind: str) -> None:
        """An owner's declaration derives an item of ``kind`` under ``key``."""
        self._db.execute("INSERT OR IGNORE INTO called VALUES (?, ?)", (_frozen(key), kind))

    def stored(self, key: Item, kind: str) -> None:
        """An item of a derived type is stored under ``key``."""
        self._db.execute(
            "INSERT INTO stored (key, kind, item) VALUES (?, ?, ?)", (_frozen(key), kind, pickle.dumps(key))
        )

    def orphans(self) -> Iterator[tuple[Item, str]]:
        """The stored derived items no owner calls for, in the order the Scan met them."""
        rows = self._db.execute(
            "SELECT item, kind FROM stored AS s WHERE NOT EXISTS "
            "(SELECT 1 FROM called AS c WHERE c.key = s.key AND c.kind = s.kind) ORDER BY n"
        )
        for item, kind in rows:
            yield pickle.loads(item), kind  # written by stored() into this ledger's own file

    def why(self, call: Caller, key: Item, kind: str) -> str:
        """Why the ``kind`` under ``key`` is an orphan: its owner is not stored, or does not derive it."""
        owners = self.owners.get(kind)
        if owners is None:
            return f"no owner: no declaration derives a {kind} now"
        item = call("GetItem", {"Key": key, "ConsistentRead": True}).get("Item") or key
        absent = None  # why, when the first owner named is not stored
        for owner, target in owners:
            owner_key = _owner_key(owner, target, item)
            if owner_key is None:
                continue
            stored = call("GetItem", {"Key": owner_key, "ConsistentRead": True}).get("Item")
            if stored is not None and stored.get(owner.table.type_attribute) == owner.type_av:
                return f"not what its owner {key_text(owner_key)} ({owner.type}) derives"
            absent = absent or f"no owner: its {owner.type} {key_text(owner_key)} is not stored"
        if absent is not None:
            return absent
        deriving = ", ".join(sorted({owner.type for owner, _ in owners}))
        return f"no owner: no stored {deriving} derives it"


def _owner_key(owner: EntityMeta, target: EntityMeta, item: Item) -> Item | None:
    """The owner's primary key from the derived item's fields of the same names, if they give it."""
    try:
        return owner.primary_key(target.decode(item))
    except (ModelError, ValueError, TypeError, KeyError):
        return None


def _frozen(key: Item) -> bytes:
    return repr(tuple(sorted((name, canonical(av)) for name, av in key.items()))).encode()


def report_orphans(call: Caller, ledger: DerivedLedger, problem: Explain, listed: Callable[[], bool]) -> None:
    """A problem for each stored derived item no owner calls for; the reason is read only while
    ``listed()`` says the problem will be shown."""
    for key, kind in ledger.orphans():
        problem(key, ledger.why(call, key, kind) if listed() else "no owner derives it")
