"""One line of recorded traffic: the fields ``Trace.save`` and ``singletable serve --record`` both write and
``singletable check --traffic`` reads (docs/design-tools.md, "Recorded traffic"). One definition, shared by
the model's ``Trace`` and the server's recorder, so the two writers cannot drift apart; each adds the
request's ``params`` its own way (the model's parameters as JSON, the server's request body spliced in as
the client sent it).
"""

from __future__ import annotations

from typing import Any


def traffic_record(
    operation: str,
    time: float | None,
    *,
    capacity: Any = None,
    count: int | None = None,
    scanned_count: int | None = None,
    error: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The record of one request: what its response reported (ConsumedCapacity, Count, ScannedCount), or the
    ``error`` (code, message) it was refused with."""
    return {
        "time": time,
        "operation": operation,
        "capacity": capacity,
        "count": count,
        "scanned_count": scanned_count,
        "error": None if error is None else {"code": error[0], "message": error[1]},
    }
