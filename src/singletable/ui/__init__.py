"""singletable.ui: a local web console for a database file or any DynamoDB endpoint (docs/ui.md).

It shows a table the way its designers think of it: item collections (each partition's items together, in
sort-key order, labelled by entity, key attributes decoded into their template fields), the design's access
patterns as forms, raw Query and Scan, and items created, edited and deleted -- through the modeling layer
when a design is given (validation, key templates, uniqueness guards, derived items), else PutItem and
DeleteItem. ``singletable ui TARGET`` serves it alone; ``singletable serve --ui`` beside the API.

Needs the ``ui`` extra (Starlette and Jinja2). Everything reads and writes through :mod:`singletable.data` and
:mod:`singletable.model`, so it works the same on a file, ``singletable serve``, DynamoDB Local and AWS.
"""

from __future__ import annotations

from singletable._extras import MissingExtra, missing

if missing(("starlette", "jinja2", "pydantic")):
    raise MissingExtra("ui", "singletable.ui")

from singletable.ui._app import console_app, run_console
from singletable.ui._guard import HostPolicy

__all__ = ["HostPolicy", "console_app", "run_console"]
