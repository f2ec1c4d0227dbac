"""Move a table from the older layout (:mod:`singletable.examples.places.legacy`) to the design's current one.

The old ``PK`` is a Number and the new one a String, and DynamoDB cannot change a table's key schema, so the
migration copies: it Scans the old table page by page and writes each item, rewritten, into the new table.

* **Idempotent**: every write is a full PutItem of a value computed only from the old item, or an ``ADD``
  of a place ID to a word's string set; doing a page twice leaves the same table as doing it once.
* **Resumable**: after each page it records the Scan's ``LastEvaluatedKey`` in a checkpoint item in the new
  table (``PK = "migration#<name>"``, ``SK = "migration"``, no ``GSISK``, so outside the GSI). A run that
  stops -- crash, throttling, Ctrl-C -- starts again after the last recorded page; the page it was in the
  middle of is redone, which idempotence makes harmless. A finished migration is a no-op.
* The word index is rebuilt from the places (each place ``ADD``s its ID to its words) instead of copying the
  old word items, whose words were not folded.

The progress bar (rich) is drawn only on a terminal, so logs, tests and the demo stay plain.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from singletable.examples.places.design import (
    Category,
    Collection,
    CollectionCategory,
    Place,
    PlaceSettings,
    PlaceWord,
    Post,
    Record,
    RecordHousehold,
    Sequence,
    Setting,
    User,
    words,
)
from singletable.model import DB, Entity

CHECKPOINT_SK = "migration"


class MigrationError(Exception):
    """An old item the migration does not understand: stopping beats dropping data silently."""


@dataclass
class Converted:
    """What one old item becomes: entities to put, and (word, place ID) pairs for the word index."""

    puts: list[Entity] = field(default_factory=list)
    word_ids: list[tuple[str, str]] = field(default_factory=list)
    skipped: bool = False


@dataclass
class MigrationResult:
    pages: int
    items: int
    skipped: int
    resumed: bool
    already_done: bool = False


def _text(item: dict[str, Any], name: str) -> str | None:
    av = item.get(name)
    if av is None:
        return None
    return av.get("S", av.get("N"))


def _number(item: dict[str, Any], name: str) -> int | None:
    av = item.get(name)
    return None if av is None else int(av["N"])


def _category(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([Category(id=id_, name=_text(item, "name") or _text(item, "GSISK"))])


def _collection(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    name = _text(item, "name") or _text(item, "GSISK")
    return Converted([Collection(id=id_, name=name, description=_text(item, "description"))])


def _collection_category(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([CollectionCategory(collection_id=id_, category_id=rest)])


def _place(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    place = Place(
        id=id_, full_name=_text(item, "fullName") or _text(item, "GSISK"), region=_text(item, "region")
    )
    return Converted([place], [(word, id_) for word in words(place.full_name)])


def _place_settings(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    settings = PlaceSettings(
        max_results=_number(item, "maxResults") or 20, default_region=_text(item, "defaultRegion")
    )
    return Converted([settings])


def _place_word(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted(skipped=True)  # rebuilt from the places


def _post(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    post = Post(
        id=id_,
        collection_id=_text(item, "collectionId") or _text(item, "GSISK"),
        title=_text(item, "title") or "",
        place_id=_text(item, "placeId"),
        created_at=_text(item, "createdAt"),
    )
    return Converted([post])


def _record(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    record = Record(
        id=id_,
        post_id=_text(item, "postId") or _text(item, "GSISK"),
        name=_text(item, "name") or "",
        household=_text(item, "household"),
        relationship=_text(item, "relationship"),
        age=_number(item, "age"),
        birthplace_id=_text(item, "birthplaceId"),
    )
    return Converted([record])


def _record_household(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([RecordHousehold(post_id=id_, household=rest)])


def _setting(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted(
        [Setting(name=_text(item, "name") or _text(item, "GSISK"), value=_text(item, "value") or "")]
    )


def _sequence(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    return Converted([Sequence(value=_number(item, "value") or 0)])


def _user(id_: str, rest: str, item: dict[str, Any]) -> Converted:
    issuer, subject = _text(item, "issuer"), _text(item, "subject")
    if issuer is None or subject is None or quote(issuer + subject, safe="") != _text(item, "GSISK"):
        raise MigrationError(f"user {id_}: issuer and subject do not match its old GSISK")
    user = User(
        id=id_, issuer=issuer, subject=subject, name=_text(item, "name"), created_at=_text(item, "createdAt")
    )
    return Converted([user])


_Converter = Callable[[str, str, dict[str, Any]], Converted]
# An old item's converter by its whole SK ...
_BY_SK: dict[str, _Converter] = {
    "category": _category,
    "collection": _collection,
    "placeSettings": _place_settings,
    "placeWord": _place_word,
    "post": _post,
    "record": _record,
    "settings": _setting,
    "sequence": _sequence,
    "user": _user,
}
# ... or, for SKs of the form KIND#REST, by KIND (REST is the converter's second argument).
_BY_KIND: dict[str, _Converter] = {
    "collection_category": _collection_category,
    "place": _place,
    "record_household": _record_household,
}


def convert(item: dict[str, Any]) -> Converted:
    """One old-layout item in the new layout (see ``legacy`` for how we read the old one)."""
    pk, sk = item["PK"]["N"], item["SK"]["S"]
    id_ = str(int(pk))
    kind, _, rest = sk.partition("#")
    converter = _BY_SK.get(sk) or _BY_KIND.get(kind)
    if converter is None:
        raise MigrationError(f"old item PK={id_} SK={sk!r} is of no known entity")
    return converter(id_, rest, item)


def _checkpoint_key(name: str) -> dict[str, Any]:
    return {"PK": {"S": f"migration#{name}"}, "SK": {"S": CHECKPOINT_SK}}


def read_checkpoint(target: DB, name: str) -> dict[str, Any] | None:
    params = {"TableName": target.table_name, "Key": _checkpoint_key(name), "ConsistentRead": True}
    return target.call("GetItem", params).get("Item")


def _save_checkpoint(
    target: DB, name: str, source: str, last_key: dict[str, Any] | None, pages: int, items: int, done: bool
) -> None:
    item = {
        **_checkpoint_key(name),
        target.table.type_attribute: {"S": "migration"},
        "source": {"S": source},
        "pages": {"N": str(pages)},
        "items": {"N": str(items)},
        "done": {"BOOL": done},
    }
    if last_key:
        item["lastKey"] = {"M": last_key}
    target.call("PutItem", {"TableName": target.table_name, "Item": item})


def migrate(
    source: DB,
    target: DB,
    *,
    name: str = "v1-to-v2",
    page_size: int = 100,
    progress: bool | None = None,
    after_page: Callable[[int], None] | None = None,
    console: Any = None,
) -> MigrationResult:
    """Copy every item of ``source`` (old layout) into ``target`` (new layout), resuming where a previous
    run with the same ``name`` stopped. ``after_page(pages_done)`` runs after each checkpoint (tests use it
    to interrupt a run). ``progress=None`` draws a bar only when stderr is a terminal; ``console`` is
    the rich Console to draw on (default: stderr)."""
    checkpoint = read_checkpoint(target, name)
    if checkpoint is not None and checkpoint["done"]["BOOL"]:
        return MigrationResult(int(checkpoint["pages"]["N"]), int(checkpoint["items"]["N"]), 0, True, True)
    start = checkpoint.get("lastKey", {}).get("M") if checkpoint else None
    pages = int(checkpoint["pages"]["N"]) if checkpoint else 0
    items = int(checkpoint["items"]["N"]) if checkpoint else 0
    result = MigrationResult(pages, items, 0, checkpoint is not None)
    draw = sys.stderr.isatty() if progress is None else progress
    bar = _Bar(source, items, console) if draw else None
    try:
        while True:
            params: dict[str, Any] = {
                "TableName": source.table_name,
                "Limit": page_size,
                "ConsistentRead": True,
            }
            if start:
                params["ExclusiveStartKey"] = start
            response = source.call("Scan", params)
            page = response.get("Items", [])
            converted = [convert(item) for item in page]
            puts = [entity for c in converted for entity in c.puts]
            if puts:
                target.batch_write(put=puts)
            for word, place_id in sorted({pair for c in converted for pair in c.word_ids}):
                target.update(PlaceWord.key(word=word), PlaceWord.f.place_ids.add({place_id}), upsert=True)
            start = response.get("LastEvaluatedKey")
            result.pages += 1
            result.items += len(page)
            result.skipped += sum(1 for c in converted if c.skipped)
            _save_checkpoint(target, name, source.table_name, start, result.pages, result.items, not start)
            if bar is not None:
                bar.advance(len(page))
            if after_page is not None:
                after_page(result.pages)
            if not start:
                return result
    finally:
        if bar is not None:
            bar.close()


class _Bar:
    """A rich progress bar over the old table's approximate item count (DescribeTable's ItemCount)."""

    def __init__(self, source: DB, done: int, console: Any = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        described = source.call("DescribeTable", {"TableName": source.table_name})["Table"]
        total = max(int(described.get("ItemCount", 0)), done) or None
        self.progress = Progress(
            TextColumn("migrating {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
        )
        self.task = self.progress.add_task(source.table_name, total=total, completed=done)
        self.progress.start()

    def advance(self, count: int) -> None:
        self.progress.advance(self.task, count)

    def close(self) -> None:
        self.progress.stop()


def main(argv: list[str] | None = None) -> None:
    """The command line: ``python -m singletable.examples.places.migrate --source OLD --target NEW``
    ``[--endpoint URL | --db FILE]``."""
    import argparse

    from singletable.examples.places.design import places
    from singletable.examples.places.legacy import legacy
    from singletable.model import connect

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--source", required=True, help="the table in the older layout")
    parser.add_argument("--target", required=True, help="the table in the new layout (created if missing)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--endpoint", help="a DynamoDB endpoint; credentials from the AWS environment")
    where.add_argument("--db", help="a SQLite file of the embedded engine")
    parser.add_argument("--name", default="v1-to-v2", help="the checkpoint's name (resume with the same)")
    parser.add_argument("--page-size", type=int, default=100)
    args = parser.parse_args(argv)
    location = args.endpoint or args.db
    source = connect(legacy, location, name=args.source)
    target = connect(places, location, name=args.target)
    target.ensure_table()
    result = migrate(source, target, name=args.name, page_size=args.page_size)
    state = "already done" if result.already_done else f"{result.items} items in {result.pages} pages"
    print(f"migrated {args.source} -> {args.target}: {state}")


if __name__ == "__main__":  # pragma: no cover
    main()
