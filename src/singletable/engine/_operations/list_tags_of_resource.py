"""ListTagsOfResource: a table's tags, all on one page (a table holds at most 50)."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._tags import tagged_table


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    schema = tagged_table(engine, params["ResourceArn"])
    return {"Tags": [dict(tag) for tag in schema.description.get("_Tags", ())]}
