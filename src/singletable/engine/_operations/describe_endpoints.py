"""DescribeEndpoints: the regional endpoint and how long clients may cache it (AWS answers 1440 minutes).

SDKs with endpoint discovery call this; the address is AWS's regional one, as a client expects to see.
"""

from __future__ import annotations

from typing import Any

from singletable.engine._interfaces import OperationEngine


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "Endpoints": [{"Address": f"dynamodb.{engine.region}.amazonaws.com", "CachePeriodInMinutes": 1440}]
    }
