"""JSON Schema checks for the tests in this directory: each distinct schema is checked against the draft
2020-12 meta-schema once, and instances are validated by the validator made from it.

``jsonschema.validate`` checks its schema against the meta-schema on every call, and that check (a walk of
the meta-schema's dynamic references) costs far more than validating a tool's result; the tests check the
same tool schemas many times over (per page, per policy, per transport). A schema's verdict depends on its
text alone, so one check per text is the same check."""

from __future__ import annotations

import functools
import json
from typing import Any

from jsonschema import Draft202012Validator


def check_schema(schema: dict[str, Any]) -> None:
    """Raise ``jsonschema.SchemaError`` unless ``schema`` is a valid draft 2020-12 schema."""
    _checked(json.dumps(schema, sort_keys=True))


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``instance`` fits ``schema`` (itself checked first)."""
    _checked(json.dumps(schema, sort_keys=True)).validate(instance)


@functools.cache
def _checked(text: str) -> Draft202012Validator:
    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)
