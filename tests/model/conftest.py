"""The model layer runs on every target: the native engine, an in-process boto3 client
(``singletable.client(path)``), boto3 over HTTP to a real ``singletable serve``, and DynamoDB Local.

``open_db(table)`` connects a design to the current target under a unique table name, creates the table and
drops it afterwards (the server and DynamoDB Local are shared by the whole session).
"""

from __future__ import annotations

from model_targets import open_db, target

__all__ = ["open_db", "target"]
