"""How ``migrate up`` shows its progress: a rich bar on a terminal (items read of the expected total, items
written, read and write units, ETA), plain lines on stderr elsewhere (at most one every N seconds, and the
last page of each step), so a log gets a line to read without a bar's control codes."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import click

from singletable.migrate import Eta, Progress


@contextlib.contextmanager
def progress(
    total: int | None,
    every: float,
    *,
    terminal: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Callable[[Progress], None]]:
    """A callback for ``up``'s ``on_page``, drawing on stderr while the block runs."""
    eta = Eta(total, clock())
    if not (sys.stderr.isatty() if terminal is None else terminal):
        yield _plain(eta, every, clock)
        return
    with _bar(eta, clock) as on_page:
        yield on_page


def _plain(eta: Eta, every: float, clock: Callable[[], float]) -> Callable[[Progress], None]:
    last = [clock() - every]
    step = [-1]

    def on_page(progress: Progress) -> None:
        now = clock()
        if now - last[0] >= every or progress.step != step[0] or progress.pages == 0:
            last[0], step[0] = now, progress.step
            click.echo(eta.line(progress, now), err=True)

    return on_page


@contextlib.contextmanager
def _bar(eta: Eta, clock: Callable[[], float]) -> Iterator[Callable[[Progress], None]]:
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn
    from rich.progress import Progress as Bar

    columns: list[Any] = [
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[counts]}"),
        TextColumn("{task.fields[eta]}"),
    ]
    with Bar(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("starting", total=eta.total, counts="", eta="")

        def on_page(progress: Progress) -> None:
            left = eta.remaining(progress, clock())
            bar.update(
                task,
                completed=progress.examined,
                description=f"{progress.migration}: step {progress.step + 1}",
                counts=f"{progress.examined:,} items read, {progress.written:,} written, "
                f"{progress.read_units:,.0f} RCU, {progress.write_units:,.0f} WCU",
                eta="" if left is None else f"ETA {eta.clock(left)}",
            )

        yield on_page
