"""``singletable serve --record FILE``: every DynamoDB request served, as one JSON line, for
``singletable check --traffic FILE`` (docs/design-tools.md, "Recorded traffic").

A line holds ``time`` (seconds since the epoch, when the answer was ready), ``operation``, ``params`` (the
request body as the client sent it: DynamoDB's JSON wire format, binary values as base64), ``capacity``
(the ConsumedCapacity the engine charged), ``count`` and ``scanned_count`` (Query and Scan) and ``error``
(``{"code", "message"}`` of a refused request) -- the format ``Trace.save`` writes.

Capacity is recorded even when the client did not ask for it: the recorder asks the engine for it and
removes it from the response again, so the client sees exactly what it would without recording. Without
``--record`` none of this runs (the app uses the plain dispatcher). Each line is one ``os.write`` on a file
opened for appending, so worker processes sharing the file never interleave inside a line, and a line is on
disk (in the page cache) once its response is sent.

The file is private (0600) from its creation, whatever the umask: it holds item values. An existing file that
others could read is made private, with a notice (:func:`open_record`).

Recording never changes an answer. The request has been executed (and committed) by the time its line is
written, so a line that cannot be written -- a full disk, a file size limit, an I/O error -- must not turn the
answer into an error: the recorder reports it once on the server's log, stops recording (in that worker
process), and the client gets the answer of what was done. The file may then end in a cut-short line.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import time
from typing import Any, NamedTuple

import orjson

from singletable._protocol import Dispatcher
from singletable._protocol import wire_json as wire
from singletable._traffic_record import traffic_record
from singletable.engine import DynamoDBError, Engine
from singletable.engine.shared import REPORTS_CAPACITY  # the operations that take ReturnConsumedCapacity

log = logging.getLogger("singletable.server")

PRIVATE = 0o600


class RecordFile(NamedTuple):
    """An open record file: its descriptor (append-only), and the mode it had if it was made private."""

    fd: int
    was_mode: int | None  # the permissions before they were narrowed to 0600; None: already private or new


def open_record(path: str) -> RecordFile:
    """Open ``path`` for appending, created 0600 whatever the umask. A regular file that group or others can
    read or write is narrowed to 0600 (``was_mode`` says from what); a device (``/dev/full``) is left as it
    is. Raises OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE)
    try:
        info = os.fstat(fd)
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISREG(info.st_mode) and mode != PRIVATE and (mode & 0o077 or info.st_size == 0):
            os.fchmod(fd, PRIVATE)  # new (a umask like 0277 may have left it 0400) or open to others
            return RecordFile(fd, mode if info.st_size else None)
    except OSError:
        os.close(fd)
        raise
    return RecordFile(fd, None)


class RecordingDispatcher(Dispatcher):
    """A dispatcher that appends one line per DynamoDB request (not Streams) to the file ``path``."""

    def __init__(self, engine: Engine, path: str) -> None:
        super().__init__(engine)
        self.path = path
        self.fd = open_record(path).fd

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            try:
                os.close(fd)
            except OSError as error:  # the last lines' write-back failed: say so, the server stops anyway
                log.error("singletable serve: closing the record file %s failed: %s", self.path, error)

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        if self.fd < 0:  # recording stopped (or closed): serve as the plain dispatcher does
            return super().call(operation, body)
        try:
            params = wire.decode_request(operation, body)
        except DynamoDBError as error:
            self._write(operation, body, None, error, decoded=False)
            raise
        asked = params.get("ReturnConsumedCapacity")
        added = operation in REPORTS_CAPACITY and asked in (None, "NONE")
        if added:
            params["ReturnConsumedCapacity"] = "INDEXES"
        try:
            response = self.engine.execute(operation, params, for_wire=True)
        except DynamoDBError as error:
            self._write(operation, body, None, error)
            raise
        self._write(operation, body, response, None)
        if added and "ConsumedCapacity" in response:
            response = {k: v for k, v in response.items() if k != "ConsumedCapacity"}
        return response

    def _write(
        self,
        operation: str,
        body: bytes,
        response: dict[str, Any] | None,
        error: DynamoDBError | None,
        *,
        decoded: bool = True,
    ) -> None:
        """Appends the request's line (``decoded``: its body was valid JSON); never raises. A line that
        cannot be built or written stops recording."""
        try:
            params = _one_line(body) if decoded else orjson.dumps(_as_json(body))
            line = self._line(operation, params, response, error)
            while line:  # os.write may write less than asked (a disk filling up): the rest, or its error
                written = os.write(self.fd, line)
                if written <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                line = line[written:]
        except Exception as problem:  # OSError mostly; whatever it is, the answer stands
            self._stop(problem)

    def _stop(self, problem: BaseException) -> None:
        """Recording ends for this process, said once on the server's log (stderr)."""
        reason = problem.strerror if isinstance(problem, OSError) and problem.strerror else repr(problem)
        log.error(
            "singletable serve: cannot write to the record file %s (%s); recording stopped, requests are "
            "still served",
            self.path,
            reason,
        )
        self.close()

    @staticmethod
    def _line(
        operation: str, params: bytes, response: dict[str, Any] | None, error: DynamoDBError | None
    ) -> bytes:
        """One line: the record's fields, then ``params`` (JSON text on one line) spliced in as is."""
        if response is not None:
            record = traffic_record(
                operation,
                time.time(),
                capacity=response.get("ConsumedCapacity"),
                count=response.get("Count"),
                scanned_count=response.get("ScannedCount"),
            )
        else:
            assert error is not None
            record = traffic_record(operation, time.time(), error=(error.code, error.message))
        head = orjson.dumps(record)
        return head[:-1] + b',"params":' + params + b"}\n"


def _one_line(body: bytes) -> bytes:
    """A body that decoded as a request is JSON: kept as sent when it is one line (the SDKs' way)."""
    body = body.strip()
    return body if b"\n" not in body and b"\r" not in body else orjson.dumps(orjson.loads(body))


def _as_json(body: bytes) -> Any:
    """A body that is not one line of JSON: parsed and re-written compactly, or kept as text."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace")
