"""``python -m singletable.examples.places.migrate --source OLD --target NEW (--db FILE | --endpoint URL)``:
the copy from the older layout (``migrations/0001_string_ids.py``) run by ``singletable.migrate``, with the
two table names given on the command line.

It is the same as ``PLACES_LEGACY_TABLE=OLD singletable migrate up <migrations directory> TARGET --table NEW``
once the new table exists: this entry also creates it. The run is resumable (its checkpoint is in the new
table's migration record) and idempotent; see the README's "Migration" section.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from singletable.migrate import CopyFrom, Migration, Progress, Result, load_migrations, up
from singletable.model import DB

MIGRATIONS = Path(__file__).parent / "migrations"


def copy_migration(source: str | None = None) -> Migration:
    """The copy migration, reading the old table ``source`` (default: ``PLACES_LEGACY_TABLE``)."""
    [migration] = [m for m in load_migrations(str(MIGRATIONS)) if m.id == "0001-string-ids"]
    if source is not None:
        [copy] = migration.steps
        assert isinstance(copy, CopyFrom), "the places migration is one copy_from step"
        copy.source_name = source
    return migration


def migrate(
    source: str, target: DB, *, page_size: int = 100, on_page: Callable[[Progress], None] | None = None
) -> Result:
    """Copy the old-layout table named ``source`` into ``target`` (created when missing), resuming where an
    earlier run stopped; a finished copy is reported "already applied"."""
    target.ensure_table()
    [result] = up(copy_migration(source), target, page_size=page_size, on_page=on_page)
    return result


def main(argv: list[str] | None = None) -> None:
    """The command line; see the module docstring."""
    import argparse

    from singletable.examples.places.design import places
    from singletable.model import connect

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", required=True, help="the table in the older layout")
    parser.add_argument("--target", required=True, help="the table in the new layout (created if missing)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--endpoint", help="a DynamoDB endpoint; credentials from the AWS environment")
    where.add_argument("--db", help="a SQLite file of the embedded engine")
    parser.add_argument("--page-size", type=int, default=100)
    args = parser.parse_args(argv)
    target = connect(places, args.endpoint or args.db, name=args.target)
    result = migrate(args.source, target, page_size=args.page_size)
    if result.state == "already applied":
        print(f"migrated {args.source} -> {args.target}: already done")
    else:
        print(
            f"migrated {args.source} -> {args.target}: {result.scanned} items read, {result.written} written"
        )


if __name__ == "__main__":  # pragma: no cover
    main()
