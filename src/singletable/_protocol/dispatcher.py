"""DynamoDB's JSON 1.0 protocol as one function: (X-Amz-Target, body) -> (status, headers, body).

This is what turns an engine into a DynamoDB endpoint, with no transport attached, so the HTTP server and
the in-process boto3 client answer byte-for-byte alike: same error documents, same ``x-amz-crc32`` and
``x-amzn-RequestId`` headers, same ``__type`` prefixes. Transport concerns (gzip, CORS, size limits,
signatures) stay in the transports.
"""

from __future__ import annotations

import logging
import zlib
from random import getrandbits
from typing import Any, Protocol

from singletable._extras import MissingExtra
from singletable._protocol import wire_json as wire
from singletable.engine import DynamoDBError, Engine
from singletable.engine.shared import STREAMS_OPERATIONS

log = logging.getLogger("singletable.server")

DYNAMODB_TARGET_PREFIX = "DynamoDB_20120810."
STREAMS_TARGET_PREFIX = "DynamoDBStreams_20120810."
CONTENT_TYPE = "application/x-amz-json-1.0"

Reply = tuple[int, list[tuple[str, str]], bytes]
# Operations whose service model has no output shape: AWS answers them with an empty body, not ``{}``.
NO_OUTPUT_OPERATIONS = frozenset({"TagResource", "UntagResource"})


def request_id() -> str:
    """52 upper-case alphanumerics, the shape of DynamoDB's own request ids. Unique, not secret: Python's
    generator (reseeded in every forked worker) is ten times cheaper than base32 of ``os.urandom``. Its 208
    bits as 26 bytes' hex: the same text as ``f"{bits:052X}"`` at less than half the cost (the format
    spec's padded writer was ~3,600 instructions, on every response)."""
    return getrandbits(208).to_bytes(26, "big").hex().upper()


def coral_error(code: str, message: str = "", status: int = 400) -> DynamoDBError:
    """A front-end (``com.amazon.coral.service#``) error: raised before DynamoDB proper sees the call."""
    error = DynamoDBError(code, message, status=status)
    error.extra["_prefix"] = wire.CORAL_PREFIX
    return error


def reply(status: int, body: bytes, rid: str | None = None) -> Reply:
    headers = [
        ("content-type", CONTENT_TYPE),
        ("x-amzn-requestid", rid or request_id()),
        ("x-amz-crc32", str(zlib.crc32(body))),
        ("content-length", str(len(body))),
    ]
    return status, headers, body


def error_reply(error: DynamoDBError) -> Reply:
    return reply(error.status, wire.encode_error(error))


class RequestHook(Protocol):
    """What answers an engine's API requests in its dispatchers' place while set as ``engine.faults``
    (:class:`singletable.testing.FaultPlan` is one): DynamoDB's faults -- throttling, partial batches,
    cancelled transactions, lagging indexes -- injected on every transport alike.

    ``call`` answers one DynamoDB API request (not Streams): it may hand it on as it is, or changed, to
    ``dispatcher.call``, change the answer, or raise :class:`DynamoDBError`, whose error document is then the
    reply. With no hook set (``engine.faults is None``, always outside tests) the dispatcher costs one
    attribute test more.
    """

    def call(self, dispatcher: Dispatcher, operation: str, body: bytes) -> dict[str, Any]: ...


class Dispatcher:
    """Routes protocol requests to one engine; never raises."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Every valid X-Amz-Target of the DynamoDB API, to its operation: one lookup per request (the key
        # looked up is None when the request has no X-Amz-Target).
        self._targets: dict[str | None, str] = {
            DYNAMODB_TARGET_PREFIX + name: name for name in wire.operation_names()
        }

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        """The engine's answer, for the wire: items returned whole may be ``orjson.Fragment`` (their stored
        JSON, which :func:`wire.encode_response` writes as it is; see ``Engine.execute``)."""
        params = wire.decode_request(operation, body)
        if operation == "SearchVectors":  # its own strict reader; loaded only by those who search
            from singletable._protocol.strict_body import check_search_vectors_body

            check_search_vectors_body(body, params)
        return self.engine.execute(operation, params, for_wire=True)

    def call_streams(self, target: str, body: bytes) -> dict[str, Any]:
        """A DynamoDB Streams API call: its requests carry no blobs, so plain JSON is the whole decoding."""
        name = target[len(STREAMS_TARGET_PREFIX) :]
        if name not in STREAMS_OPERATIONS:
            raise coral_error("UnknownOperationException")
        params = wire.decode_request("", body)
        return self.engine.execute_streams(name, params)

    def handle(self, target: str | None, body: bytes) -> Reply:
        try:
            operation = self._targets.get(target)
            if operation is None and target and target.startswith(STREAMS_TARGET_PREFIX):
                response = self.call_streams(target, body)
            else:
                if operation is None:  # unknown names and a missing header all end here, as on AWS
                    raise coral_error("UnknownOperationException")
                faults = self.engine.faults
                if faults is None:
                    response = self.call(operation, body)
                else:  # a test's fault plan (RequestHook) answers in the engine's place
                    response = faults.call(self, operation, body)
                if not response and operation in NO_OUTPUT_OPERATIONS:
                    return reply(200, b"")
        except DynamoDBError as error:
            return error_reply(error)
        except MissingExtra as error:
            # A feature whose optional dependency this server lacks (vector search without numpy): the
            # client gets the one line that says what to install, not an internal error.
            return error_reply(DynamoDBError("ValidationException", str(error)))
        except Exception:
            # A bug of ours: log it here, but never leak a traceback to the client.
            log.exception("internal error serving %s", target)
            return error_reply(DynamoDBError("InternalServerError", "Internal server error", status=500))
        return reply(200, wire.encode_response(response))
