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
"""

from __future__ import annotations

import os
import time
from typing import Any

import orjson

from singletable._protocol import Dispatcher, wire
from singletable._traffic_record import traffic_record
from singletable.engine import DynamoDBError, Engine
from singletable.engine._validation import REPORTS_CAPACITY  # the operations that take ReturnConsumedCapacity


class RecordingDispatcher(Dispatcher):
    """A dispatcher that appends one line per DynamoDB request (not Streams) to the file ``path``."""

    def __init__(self, engine: Engine, path: str) -> None:
        super().__init__(engine)
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        try:
            params = wire.decode_request(operation, body)
        except DynamoDBError as error:
            self._write(operation, orjson.dumps(_as_json(body)), None, error)
            raise
        asked = params.get("ReturnConsumedCapacity")
        added = operation in REPORTS_CAPACITY and asked in (None, "NONE")
        if added:
            params["ReturnConsumedCapacity"] = "INDEXES"
        try:
            response = self.engine.execute(operation, params, for_wire=True)
        except DynamoDBError as error:
            self._write(operation, _one_line(body), None, error)
            raise
        self._write(operation, _one_line(body), response, None)
        if added and "ConsumedCapacity" in response:
            response = {k: v for k, v in response.items() if k != "ConsumedCapacity"}
        return response

    def _write(
        self, operation: str, params: bytes, response: dict[str, Any] | None, error: DynamoDBError | None
    ) -> None:
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
        os.write(self.fd, head[:-1] + b',"params":' + params + b"}\n")


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
