"""ExecuteStatement: one PartiQL statement, run through the ordinary item operations."""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine
from singletable.engine._partiql import run as partiql


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    statement, parameters = partiql.parse(params.get("Statement"), params.get("Parameters"))
    return partiql.execute(engine, statement, parameters, params)
