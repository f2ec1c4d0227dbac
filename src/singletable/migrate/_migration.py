"""A migration as code: an id, a description, steps, and the checksum of the source that declared them.

A migration module declares one ``migration = Migration(...)``; a directory holds one module per migration,
applied in the order of their ids. The checksum is the SHA-256 of the declaring module's source (line endings
normalised), so any edit to an applied migration -- its steps or the functions they call -- is noticed.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from singletable.migrate._steps import MigrationError, Step
from singletable.model import Table


@dataclass(slots=True)
class Migration:
    """One migration: ``id`` (ordered as text: ``"0001-add-by-email"``), ``description``, ``steps`` (built
    with the verbs), the ``table`` it runs on (default: the table of the first entity a step names)."""

    id: str
    description: str
    steps: list[Step]
    table: Table | None = None
    checksum: str = field(default="")

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or len(self.id) > 255:
            raise ValueError(
                f"a migration's id is a non-empty string of at most 255 characters, not {self.id!r}"
            )
        if not all(isinstance(step, Step) for step in self.steps):
            raise TypeError(
                "a migration's steps are built with backfill, rekey, rename, split, merge, each, add_index, "
                "drop_index"
            )
        if not self.steps:
            raise ValueError(f"migration {self.id} has no steps")
        if self.table is None:
            self.table = _table_of(self.steps)
        if self.table is None:
            raise ValueError(f"migration {self.id}: no step names an entity; give table=")
        if not self.checksum:
            caller = sys._getframe(2).f_globals.get("__file__")  # the module that wrote Migration(...)
            if caller and Path(caller).exists():
                self.checksum = source_checksum(Path(caller))


def _table_of(steps: list[Step]) -> Table | None:
    for step in steps:
        entity = getattr(step, "entity", None) or getattr(step, "to", None)
        if entity is not None:
            return entity.model_entity().table
    return None


def one_table(migrations: list[Migration], where: str) -> Table:
    """The one table ``migrations`` run on, or MigrationError naming ``where``. The declarations of a table
    before and after a change (``rekey(Old, to=New)``, ``split``) are separate Table objects; they are one
    table when they name it alike and key it alike. The last migration's declaration is returned."""
    tables = {_stored_as(m.table) for m in migrations if m.table is not None}
    if len(tables) != 1:
        raise MigrationError(
            f"{where}: the migrations are for {len(tables)} different tables; run them apart"
        )
    table = migrations[-1].table
    assert table is not None  # Migration() refuses a migration without one
    return table


def _stored_as(table: Table | None) -> tuple[str | None, ...]:
    assert table is not None
    return (table.resolved_name(), table.pk_name, table.pk_type, table.sk_name, table.sk_type)


def source_checksum(path: Path) -> str:
    text = path.read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(text).hexdigest()


def load_migrations(spec: str) -> list[Migration]:
    """The migrations of ``spec``: a ``.py`` file, a directory of them, or a dotted module name; sorted by id.
    A module without ``migration`` (or a ``migrations`` list) is MigrationError naming it."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.py") if not p.name.startswith("_"))
        found = [m for p in files for m in _declared(_load_file(p), str(p), required=False)]
        if not found:
            raise MigrationError(f"{spec}: no module in this directory declares a migration")
    elif path.suffix == ".py":
        if not path.exists():
            raise MigrationError(f"{spec}: no such migration file")
        found = _declared(_load_file(path), spec, required=True)
    else:
        try:
            module = importlib.import_module(spec)
        except ImportError as error:
            raise MigrationError(f"{spec}: cannot import: {error}") from None
        found = _declared(module, spec, required=True)
    ids = [m.id for m in found]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise MigrationError(f"{spec}: migration ids declared twice: {', '.join(duplicated)}")
    return sorted(found, key=lambda m: m.id)


def _load_file(path: Path) -> ModuleType:
    name = "_singletable_migration_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise MigrationError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        sys.modules.pop(name, None)
        raise MigrationError(f"{path}: {type(error).__name__}: {error}") from error
    return module


def _declared(module: ModuleType, where: str, *, required: bool) -> list[Migration]:
    found: list[Migration] = []
    one = getattr(module, "migration", None)
    if isinstance(one, Migration):
        found.append(one)
    many = getattr(module, "migrations", None)
    if isinstance(many, list | tuple):
        found.extend(m for m in many if isinstance(m, Migration))
    file = getattr(module, "__file__", None)
    if file:
        checksum = source_checksum(Path(file))
        for migration in found:
            migration.checksum = checksum
    if required and not found:
        raise MigrationError(f"{where}: declares no `migration = Migration(...)`")
    return found
