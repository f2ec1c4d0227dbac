"""DescribeLimits: the default per-account and per-table capacity quotas AWS reports for a region.

A local engine enforces none of them; returning AWS's defaults lets capacity-planning code run unchanged.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }
