"""UntagResource: remove tag keys from a table; keys it does not have are ignored, as on AWS."""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._tags import save_tags, tagged_table


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    keys = set(params["TagKeys"])
    with engine.storage.write():
        schema = tagged_table(engine, params["ResourceArn"])
        if not keys:
            raise validation("Atleast one Tag Key needs to be provided as Input.")
        tags = [t for t in schema.description.get("_Tags", ()) if t["Key"] not in keys]
        save_tags(engine, schema, tags)
    return {}
