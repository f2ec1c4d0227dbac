"""A test's application thread, shared by the tests that write while a migration runs: it runs a loop until
told to stop, and what it raised is raised again where the test stops it, so a failing writer fails the test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Background:
    """``work(stopping)`` in a thread, from ``start()`` until ``stop()``; ``stopping`` is set by ``stop``
    (wait on it between writes). ``stop`` joins the thread and raises the first error it raised."""

    def __init__(self, work: Callable[[threading.Event], None], name: str) -> None:
        self.stopping = threading.Event()
        self.errors: list[BaseException] = []
        self._work = work
        self._thread = threading.Thread(target=self._run, name=name)

    def start(self) -> Background:
        self._thread.start()
        return self

    def stop(self, timeout: float = 120) -> None:
        self.stopping.set()
        self._thread.join(timeout=timeout)
        assert not self._thread.is_alive(), f"{self._thread.name} did not stop within {timeout:g}s"
        if self.errors:
            raise self.errors[0]

    def _run(self) -> None:
        try:
            self._work(self.stopping)
        except BaseException as error:  # raised again by stop()
            self.errors.append(error)
