"""Seed examples run on every target (``model_targets``): the embedded engine on a SQLite file, an in-process
boto3 client, boto3 over HTTP to ``singletable serve``, and DynamoDB Local.

The examples are imported from the installed package (``singletable.examples.<package>``), as a user would.
``open_db(table)`` connects a design to the current target under a unique table name and creates the table.
"""

from __future__ import annotations

from model_targets import api, open_db, target

__all__ = ["api", "open_db", "target"]
