"""A clock a test moves by hand: TTL expiry, ``created_at`` stamps and token windows follow it.

The engine reads the time through one callable, ``Engine(path, clock=...)`` (epoch seconds, as
``time.time`` gives them): the TTL sweep compares items' TTL attributes with it, CreateTable and UpdateTable
stamp their dates with it, TransactWriteItems keeps a ClientRequestToken for ten minutes of it. The modeling
layer stamps ``created_at``-style fields from its own callable, ``connect(..., clock=)`` (an aware
``datetime``). A :class:`Clock` is both: call it for epoch seconds, pass its :meth:`Clock.now` to the model.

A Clock stands still until moved (:meth:`Clock.advance`, :meth:`Clock.set`), so a test says exactly when
things happen; ``ticking=True`` makes it run at wall-clock speed from wherever it was set.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any


def _epoch(when: datetime | float | int) -> float:
    """Epoch seconds of ``when`` (an aware datetime, or seconds); a naive datetime is refused."""
    if isinstance(when, datetime):
        if when.tzinfo is None or when.utcoffset() is None:
            raise ValueError(
                f"Clock needs a timezone-aware datetime (e.g. datetime(2030, 1, 1, tzinfo=UTC)), got {when!r}"
            )
        return when.timestamp()
    if isinstance(when, bool) or not isinstance(when, int | float):
        raise TypeError(f"Clock needs an aware datetime or epoch seconds, got {type(when).__name__}")
    return float(when)


class Clock:
    """A settable clock: ``clock()`` is epoch seconds (the Engine's clock), ``clock.now()`` an aware UTC
    datetime (the model's).

    ``start``: an aware datetime or epoch seconds (default: the current time). ``ticking``: False (the
    default) holds the time still between moves; True lets it run with the wall clock from each setting.
    Safe to read and move from any thread.
    """

    def __init__(self, start: datetime | float | None = None, *, ticking: bool = False) -> None:
        self.ticking = ticking
        self._lock = threading.Lock()
        self._at = time.time() if start is None else _epoch(start)
        self._since = time.monotonic()  # when _at was last set: a ticking clock adds the time gone by
        self._engines: list[tuple[Any, Any]] = []  # (engine, its clock before attach), for detach

    def __call__(self) -> float:
        """The time, in epoch seconds (what ``Engine(clock=...)`` calls)."""
        if not self.ticking:
            return self._at
        with self._lock:
            return self._at + (time.monotonic() - self._since)

    def now(self) -> datetime:
        """The time as an aware UTC datetime (what ``connect(..., clock=)`` calls)."""
        return datetime.fromtimestamp(self(), tz=UTC)

    def set(self, when: datetime | float) -> datetime:
        """Move to ``when`` (an aware datetime or epoch seconds), forwards or back; returns the new time."""
        at = _epoch(when)
        with self._lock:
            self._at = at
            self._since = time.monotonic()
        return self.now()

    def advance(
        self,
        delta: timedelta | float | None = None,
        *,
        seconds: float = 0,
        minutes: float = 0,
        hours: float = 0,
        days: float = 0,
    ) -> datetime:
        """Move forwards by ``delta`` (a timedelta or seconds) and/or the named amounts; returns the new
        time. Going back is :meth:`set`'s job: a negative total is a ValueError."""
        step = seconds + 60 * minutes + 3600 * hours + 86400 * days
        if isinstance(delta, timedelta):
            step += delta.total_seconds()
        elif delta is not None:
            step += _epoch(delta)
        if step < 0:
            raise ValueError(
                f"Clock.advance() moves forwards only (got {step} seconds); use set() to go back"
            )
        with self._lock:
            now = time.monotonic()
            if self.ticking:
                self._at += now - self._since
            self._at += step
            self._since = now
        return self.now()

    # -- engines ----------------------------------------------------------------------------------------

    def attach(self, engine: Any) -> Clock:
        """Make this the clock of ``engine`` (an Engine, or a client from ``singletable.client()``, or
        anything with an ``engine``) until :meth:`detach`; returns the clock."""
        from singletable.testing.faults import engine_of

        target = engine_of(engine)
        with self._lock:
            self._engines.append((target, target.clock))
            target.clock = self
        return self

    def detach(self) -> None:
        """Give every engine attached to its clock from before :meth:`attach`."""
        with self._lock:
            engines, self._engines = self._engines, []
        for target, previous in reversed(engines):
            if target.clock is self:
                target.clock = previous

    def __enter__(self) -> Clock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.detach()

    def __repr__(self) -> str:
        return f"Clock({self.now().isoformat()}{', ticking' if self.ticking else ''})"
