"""The model's requests as steps: what to send is decided here once, how to send it by two small drivers.

Everything the model does that talks to DynamoDB -- a read, a write with its retries, a page of a query, a
batch with its backoff, a sequence's race for the next number -- is written once as a generator that
*yields* a :class:`Request` (or a :class:`Sleep`) and receives the response (or has the request's error
raised at the ``yield``). It never sends anything itself. :func:`run` drives such a generator with a
synchronous ``call`` (``DB``); its twin ``run_async`` (:mod:`singletable.model._async_db`, which keeps
asyncio out of the synchronous import) with an awaited one (``AsyncDB``). The planning, validation, key
templates, expressions, error mapping and paging between the yields are the same code for both.

Why generators rather than a ``send`` callable passed down: an ``await`` cannot happen inside a plain function
the planner calls, so a callable would have to be written twice (one awaiting, one not) at every place that
sends -- the very duplication this avoids. A generator suspends at the ``yield`` whichever driver resumes it,
and ``yield from`` composes the stages (a put's read, then its send) the way plain calls did.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Generator
from typing import Any, NamedTuple, TypeVar, final

T = TypeVar("T")


@final  # the drivers tell a step's kind by ``type(step) is Request``
class Request(NamedTuple):
    """Send ``operation`` with ``params``; the step receives the response dict."""

    operation: str
    params: dict[str, Any]


@final
class Sleep(NamedTuple):
    """Wait ``seconds`` before the next step (backoff between retries); the step receives None."""

    seconds: float


# A generator of requests and sleeps that returns a T when done.
Steps = Generator[Request | Sleep, Any, T]
Call = Callable[[str, dict[str, Any]], dict[str, Any]]
AsyncCall = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def run(steps: Steps[T], call: Call) -> T:
    """Drive ``steps`` to the end with a synchronous ``call``; its result, or the error it raised."""
    send, throw = steps.send, steps.throw
    try:
        step = send(None)
        while True:
            if type(step) is Request:
                try:
                    response = call(step.operation, step.params)
                except Exception as error:
                    step = throw(error)
                    continue
                step = send(response)
            else:
                time.sleep(step.seconds)
                step = send(None)
    except StopIteration as done:
        return done.value
