"""What an operation may use of the Engine, as typing Protocols.

Operation modules and the engine modules they call (the write path, the prepare steps, table descriptions,
tags, PartiQL's planner) take the engine as an :class:`OperationEngine`, not as the whole
:class:`~singletable.engine._engine.Engine`: the table catalog (``table``, ``find_table``, ``table_names``,
``catalog_changed``), ARNs and the account they are built from, the storage, the clock, and ``invoke`` for
running another registered operation from inside one (PartiQL). Nothing else of the Engine (its lifecycle,
its dispatch, its background threads) is theirs to touch. Modules that only look tables up take the smaller
:class:`TableCatalog`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from singletable.engine._schema import TableSchema
from singletable.engine._storage import Storage
from singletable.engine._vector_search import VectorMatrices


class TableCatalog(Protocol):
    """The cached table catalog: enough to prepare a request against a table."""

    def table(self, name: str) -> TableSchema:
        """The table, or DynamoDB's ResourceNotFoundException."""
        ...

    def find_table(self, name: str) -> TableSchema | None:
        """The table, or None."""
        ...


class OperationEngine(TableCatalog, Protocol):
    """Everything an operation module's ``run(engine, params)`` may use of the Engine."""

    region: str
    account: str
    storage: Storage
    # The vector indexes' in-memory search matrices (see ``_vector_search``).
    vectors: VectorMatrices
    # Epoch seconds as TTL sees them (injectable, to fast-forward time in tests).
    clock: Callable[[], float]

    def table_names(self) -> list[str]:
        """Every usable table's name, sorted."""
        ...

    def creating_table(self, name: str) -> TableSchema | None:
        """A table an import is still creating (see ``_import_state``), or None."""
        ...

    def creating_names(self) -> list[str]:
        """The names of the tables imports are still creating, sorted."""
        ...

    def arn(self, table: str, index: str | None = None) -> str:
        """The ARN of a table, or of one of its indexes."""
        ...

    def catalog_changed(self) -> None:
        """Reload the catalog; DDL operations call it inside their write transaction, after changing it."""
        ...

    def invoke(self, operation: str, params: dict[str, Any], **options: Any) -> dict[str, Any]:
        """Run another registered operation from inside this one: its shape check, no lock of its own."""
        ...
