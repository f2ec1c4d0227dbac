"""singletable.migrate: change a live single-table design safely -- migrations as code, planned before they
run, resumable, rate-limited, recorded in the table.

A migration module declares ``migration = Migration(id=..., description=..., steps=[...])`` with steps built
from the verbs :func:`backfill`, :func:`rekey`, :func:`rename`, :func:`split`, :func:`merge`, :func:`each`,
:func:`add_index`, :func:`drop_index` and :func:`copy_from` (from another table). :func:`plan` counts what
it would do (never writing), :func:`up` applies it, resuming from the table's own checkpoint after any
interruption, :func:`status` says what is applied, :func:`rehearse` runs it on a local copy and verifies the
result, and :func:`finish` closes a re-keying's dual-write window (``rekey(..., keep_old=True)``). Everything
goes through a model :class:`~singletable.model.DB`, so it runs the same on the embedded engine, ``serve``,
DynamoDB Local and AWS. docs/migrations.md has a worked example per verb and the guarantees.
"""

from singletable import _extras

if _extras.missing(("pydantic",)):
    raise _extras.MissingExtra("model", "singletable.migrate")

from singletable.migrate._calls import Limiter
from singletable.migrate._copy import AddToSet, CopyFrom, copy_from
from singletable.migrate._eta import Eta, expected_reads
from singletable.migrate._finish import Finished, finish, finished_at
from singletable.migrate._migration import Migration, load_migrations, one_table
from singletable.migrate._plan import Plan, StepPlan, Violation, plan
from singletable.migrate._record import RECORD_ID
from singletable.migrate._rehearse import EntityCount, Problem, Rehearsal, rehearse
from singletable.migrate._rehearse_copy import SourceTable
from singletable.migrate._runner import MigrationChanged, Progress, Result, Status, status, up
from singletable.migrate._share import Share, capacity_share, share_of_capacity
from singletable.migrate._split import merge, split
from singletable.migrate._steps import (
    Delete,
    MigrationError,
    add_index,
    backfill,
    drop_index,
    each,
    rekey,
    rename,
)

__all__ = [
    "RECORD_ID",
    "AddToSet",
    "CopyFrom",
    "Delete",
    "EntityCount",
    "Eta",
    "Finished",
    "Limiter",
    "Migration",
    "MigrationChanged",
    "MigrationError",
    "Plan",
    "Problem",
    "Progress",
    "Rehearsal",
    "Result",
    "Share",
    "SourceTable",
    "Status",
    "StepPlan",
    "Violation",
    "add_index",
    "backfill",
    "capacity_share",
    "copy_from",
    "drop_index",
    "each",
    "expected_reads",
    "finish",
    "finished_at",
    "load_migrations",
    "merge",
    "one_table",
    "plan",
    "rehearse",
    "rekey",
    "rename",
    "share_of_capacity",
    "split",
    "status",
    "up",
]
