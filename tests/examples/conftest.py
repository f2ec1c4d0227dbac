"""Seed examples run on every target (``model_targets``): the embedded engine on a SQLite file, an in-process
boto3 client, boto3 over HTTP to ``singletable serve``, and DynamoDB Local.

The repository root goes on ``sys.path`` so ``import examples.<package>`` works from a checkout.
``open_db(table)`` connects a design to the current target under a unique table name and creates the table.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from model_targets import open_db, target  # noqa: E402

__all__ = ["open_db", "target"]
