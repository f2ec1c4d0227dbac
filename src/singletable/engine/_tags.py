"""Table tags: what TagResource, UntagResource, ListTagsOfResource and CreateTable's Tags share -- finding the
table a ResourceArn names, the tag-key rules, and saving a table's tags.

Tags live in the table description as private ``_Tags`` (CreateTable's ``Tags`` land there too), in the order
they were first set. Texts are those AWS gives, including its ``ResourcArn`` spelling. A ResourceArn is
checked as AWS checks it: it must start with ``arn:``, name a table, and belong to this engine's account
(another account's ARN is ``AccessDeniedException``, whether or not such a table exists). The tag character
rules are shape rules (``_validation/additions.py``).
"""

from __future__ import annotations

import copy
import re

from singletable.engine._errors import DynamoDBError, not_found, validation
from singletable.engine._interfaces import OperationEngine
from singletable.engine._schema import TableSchema

MAX_TAGS = 50
_TABLE_ARN = re.compile(r"arn:[^:]+:dynamodb:[^:]*:([^:]*):table/([a-zA-Z0-9_.-]{3,255})")


def check_tag_keys(tags: list[dict[str, str]]) -> None:
    """The rules CreateTable's Tags and TagResource share: no ``aws:`` prefix, no key twice."""
    keys: set[str] = set()
    for tag in tags:
        if tag["Key"].startswith("aws:"):
            raise validation(f"Tag Key cannot be prefixed with aws:, Key: {tag['Key']}")
        if tag["Key"] in keys:
            raise validation(f"Duplicate Tag Keys provided as input: Duplicate Tag Key found {tag['Key']}")
        keys.add(tag["Key"])


def tagged_table(engine: OperationEngine, arn: str) -> TableSchema:
    """The table a ResourceArn names, or AWS's error for a malformed, foreign or unknown ARN."""
    if not arn.startswith("arn:"):
        raise validation(f"One or more parameter values were invalid: ARNs must start with 'arn:': {arn}")
    match = _TABLE_ARN.fullmatch(arn)
    if match is None:
        raise validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")
    if match.group(1) != engine.account:
        raise DynamoDBError("AccessDeniedException", "Access is denied")
    schema = engine.find_table(match.group(2))
    if schema is None:
        raise not_found(f"Requested resource not found: ResourcArn: {arn} not found")
    return schema


def save_tags(engine: OperationEngine, schema: TableSchema, tags: list[dict[str, str]]) -> None:
    description = copy.deepcopy(schema.description)
    description["_Tags"] = tags
    engine.storage.update_table(schema.table_id, description)
    engine.catalog_changed()
