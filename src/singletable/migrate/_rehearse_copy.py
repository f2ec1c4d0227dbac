"""What a rehearsal copies into its new database file: the migrations' table, and every table a ``copy_from``
step reads -- each only read where it lives.

The copy is made by the data tools, never by code of its own: ``copy_table`` from a database file or an
endpoint (which opens a file read-only, and sends an endpoint only reads), ``import_table`` from a DynamoDB
export to S3 (a directory). Where each table comes from:

- the migrations' table from SOURCE: copied, or imported when SOURCE is an export directory. When SOURCE (a
  file or an endpoint) does not hold it and a migration copies into it, it is created empty from the
  design, as it must be created before ``up`` runs: a ``copy_from`` migration usually fills a new table;
- a ``copy_from`` source table from the place ``copy_sources`` names for it, or else from SOURCE. An export
  directory holds one table, so a source table in an export is always named; an export named for a source
  table is that table's, and when it is SOURCE too, the migrations' table is created from the design.

Every table is looked for before anything is copied, so a missing one is refused before the copy is made.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from singletable.data import (
    TableSettings,
    Target,
    TransferSummary,
    copy_table,
    import_table,
    open_target,
)
from singletable.data.shared import is_url
from singletable.migrate._copy import CopyFrom
from singletable.migrate._items import canonical
from singletable.migrate._migration import Migration
from singletable.migrate._steps import MigrationError
from singletable.model import Table

WHERE = "FILE|URL|EXPORT_DIR"


@dataclass(slots=True)
class SourceTable:
    """A table a ``copy_from`` reads, as copied into the rehearsal: where it came from, its items, and
    whether the migrations left it as copied (None before the check)."""

    name: str
    origin: str
    items: int
    unchanged: bool | None = None
    fingerprint: tuple[int, int] = (0, 0)  # items, digest: taken before the migrations run


@dataclass(slots=True)
class LocalCopy:
    """The tables of a rehearsal's copy: the migrations' table's transfer (``created``: made empty from the
    design instead, SOURCE not holding it) and the ``copy_from`` sources beside it."""

    transfer: TransferSummary
    created: bool = False
    sources: list[SourceTable] = field(default_factory=list)


@dataclass(slots=True)
class _Wanted:
    """One ``copy_from`` source table: its declaration and where to read it."""

    name: str
    declared: Table
    origin: str


def check_new(path: Path, source: str, copy_sources: Mapping[str, str]) -> None:
    """The copy's file must be new, and none of the places it copies from."""
    if path.exists():
        raise MigrationError(f"{path} exists: a rehearsal makes a new copy; name a file that does not exist")
    for origin in [source, *copy_sources.values()]:
        if not is_url(origin) and Path(origin).resolve() == path.resolve():
            raise MigrationError(f"{path} is the source: a rehearsal never writes its source")


def make_copy(
    migrations: list[Migration],
    source: str,
    path: Path,
    name: str,
    table: Table,
    schema: str | dict[str, Any] | None,
    copy_sources: Mapping[str, str],
) -> LocalCopy:
    """Copy (or create) every table the migrations need into a new database file at ``path``; see the module
    docstring. Checkpoints sit beside the copy, never beside a source."""
    _check_place(source)
    wanted = _wanted(migrations, source, copy_sources)
    for one in wanted:
        _check_present(one.origin, one.name)
    exported = _is_export(source)
    named_export = exported and any(_same(source, one.origin) for one in wanted)
    create = named_export or (bool(wanted) and not exported and not _holds(source, name))
    if create:
        with open_target(str(path), durable=True) as copy:
            copy.call("CreateTable", **table.create_table_params(name))
        copied = LocalCopy(TransferSummary("create", name), created=True)
    else:
        settings = _design_schema(table, name) if schema is None else schema
        copied = LocalCopy(_copy_one(source, path, name, settings))
    for one in wanted:
        moved = _copy_one(one.origin, path, one.name, _design_schema(one.declared, one.name), source=one.name)
        copied.sources.append(SourceTable(one.name, one.origin, moved.items))
    return copied


def _wanted(migrations: list[Migration], source: str, copy_sources: Mapping[str, str]) -> list[_Wanted]:
    """Each table a ``copy_from`` of ``migrations`` reads, once, with where it is read from."""
    steps: dict[str, CopyFrom] = {}
    for migration in migrations:
        for step in migration.steps:
            if isinstance(step, CopyFrom):
                steps.setdefault(step.name(), step)
    for named in copy_sources:
        if named not in steps:
            reads = ", ".join(sorted(steps)) or "no table"
            raise MigrationError(
                f"copy source {named}: no copy_from of these migrations reads a table of that name "
                f"(they read {reads})"
            )
    unnamed = [n for n in steps if n not in copy_sources]
    if unnamed and _is_export(source):
        raise MigrationError(
            f"copy_from reads table {unnamed[0]}, and {source} is an export directory, which holds one "
            f"table: say where {unnamed[0]} is with --copy-source {unnamed[0]}={WHERE}"
        )
    return [_Wanted(n, step.source, copy_sources.get(n, source)) for n, step in steps.items()]


def _check_present(origin: str, name: str) -> None:
    """Refuse a place that is not there, or does not hold ``name``, naming how to say where it is."""
    _check_place(origin)
    if _is_export(origin):
        return  # an export holds one table, whatever its name there
    if not _holds(origin, name):
        raise MigrationError(
            f"copy_from reads table {name}, which is not in {origin}: "
            f"say where it is with --copy-source {name}={WHERE}"
        )


def _check_place(origin: str) -> None:
    if not is_url(origin) and not Path(origin).exists():
        raise MigrationError(f"{origin}: no such database file or export directory")


def _copy_one(
    origin: str, path: Path, name: str, schema: str | dict[str, Any], *, source: str | None = None
) -> TransferSummary:
    """``name`` from ``origin`` into the copy: imported from an export (the table created from ``schema``),
    copied from a file or an endpoint."""
    suffix = f".{source}.checkpoint.json" if source else ".checkpoint.json"
    point = path.with_name(path.name + suffix)
    if _is_export(origin):
        return import_table(str(path), name, origin, format="dynamodb", schema=schema, checkpoint=point)
    return copy_table(origin, str(path), name, checkpoint=point)


def _holds(origin: str, name: str) -> bool:
    """Whether the file or endpoint ``origin`` has a table ``name`` (one DescribeTable, read-only)."""
    with open_target(origin, read_only=True) as target:
        return TableSettings.capture(target, name, lambda warning: None) is not None


def _is_export(origin: str) -> bool:
    return not is_url(origin) and Path(origin).is_dir()


def _same(a: str, b: str) -> bool:
    return a == b if is_url(a) or is_url(b) else Path(a).resolve() == Path(b).resolve()


def _design_schema(table: Table, name: str) -> dict[str, Any]:
    return TableSettings.from_json(table.create_table_params(name)).to_json(name)


def fingerprint(copy: Target, name: str) -> tuple[int, int]:
    """The items of table ``name`` in the copy and a digest of them that does not depend on scan order:
    equal fingerprints, the same items (the check that the migrations left a source table alone)."""
    count = digest = 0
    params: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
    while True:
        page = copy.call("Scan", **params)
        for item in page.get("Items", []):
            shape = repr(sorted((attribute, canonical(av)) for attribute, av in item.items()))
            digest = (digest + int.from_bytes(hashlib.sha256(shape.encode()).digest(), "big")) % 2**256
            count += 1
        if not page.get("LastEvaluatedKey"):
            return count, digest
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
