"""A clock for the modeling layer (``connect(..., clock=...)``) that moves on by itself: each read is one
``step`` after the last, from ``start``. Every write then has its own time, the same in every run, so a test
can say which write stamped ``created_at`` and which ``updated_at``. (``singletable.testing.Clock`` stands
still until a test moves it.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class SteppingClock:
    def __init__(
        self, start: datetime = datetime(2024, 6, 1, tzinfo=UTC), step: timedelta = timedelta(seconds=1)
    ) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now
