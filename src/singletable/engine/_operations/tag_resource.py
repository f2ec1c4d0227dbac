"""TagResource: add or overwrite tags on a table (at most 50 per table)."""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._tags import MAX_TAGS, check_tag_keys, save_tags, tagged_table


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    tags = params["Tags"]
    with engine.storage.write():
        schema = tagged_table(engine, params["ResourceArn"])
        if not tags:
            raise validation("Atleast one Tag needs to be provided as Input.")
        check_tag_keys(tags)
        merged = {t["Key"]: t["Value"] for t in schema.description.get("_Tags", ())}
        merged.update((t["Key"], t["Value"]) for t in tags)
        if len(merged) > MAX_TAGS:
            raise validation("Number of Tags exceed the current limit for the provided ResourceArn")
        save_tags(engine, schema, [{"Key": key, "Value": value} for key, value in merged.items()])
    return {}
