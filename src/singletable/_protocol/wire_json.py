"""DynamoDB's JSON 1.0 wire format <-> the engine's Python shapes, one conversion for both transports.

The engine speaks boto3's *parsed* shapes (``B`` as ``bytes``, timestamps as aware ``datetime``); the wire
carries base64 strings and epoch seconds. Both transports -- the HTTP server and the in-process boto3
client -- go through this module, so a difference between them can only come from transport, not encoding.

Requests are walked guided by botocore's service model rather than a hand list of member names: every place
a blob or timestamp can occur (``Item``, ``Key``, ``RequestItems``, ``TransactItems``, ``Expected``, PartiQL
``Parameters``...) is found once per operation and compiled into a small *plan*; decoding then touches only
those members, in place, so a request with no binary values costs one ``orjson.loads`` and a few dict
lookups. Responses need no walk at all: orjson calls :func:`_encode_default` only for ``bytes`` and
``datetime``, and writes the ``orjson.Fragment`` items of a read answered for the wire (their stored JSON,
already the wire's form; see ``Engine.execute``'s ``for_wire``) as they are.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import os
import re
from datetime import UTC, datetime
from typing import Any

import orjson

from singletable.engine import DynamoDBError

DYNAMODB_PREFIX = "com.amazonaws.dynamodb.v20120810#"
CORAL_PREFIX = "com.amazon.coral.service#"

# Plan markers. A plan is one of these strings, or a tuple:
#   ("S", {member: plan}) structure, ("L", plan) list, ("M", plan) map values.
_AV = "AV"
_BLOB = "B"
_TIMESTAMP = "T"
Plan = str | tuple


def _model_files() -> Any:
    """botocore's JSON file loader, reading with orjson: the files it would (``NAME.json``, else
    ``NAME.json.gz``), in a third of its time (it builds OrderedDicts)."""
    from botocore.loaders import JSONFileLoader

    class ModelFiles(JSONFileLoader):
        SUFFIXES = ((".json", open), (".json.gz", gzip.open))

        def exists(self, file_path: str) -> bool:
            return any(os.path.isfile(file_path + suffix) for suffix, _ in self.SUFFIXES)

        def load_file(self, file_path: str) -> Any:
            for suffix, opener in self.SUFFIXES:
                if os.path.isfile(file_path + suffix):
                    with opener(file_path + suffix, "rb") as data:
                        return orjson.loads(data.read())
            return None

    return ModelFiles()


@functools.cache
def service_model() -> dict[str, Any]:
    """botocore's DynamoDB model, loaded once by botocore's loader (its search paths, the latest API
    version): the source of truth for where blobs live. Read by its path rather than through
    ``load_service_model``, which first lists every service botocore knows (~400 directories, 40 ms; the
    DynamoDB model has no extras files for it to merge), and with orjson: the first in-process request of a
    test run pays ~10 ms for the model instead of ~60."""
    from botocore.loaders import Loader

    loader = Loader(file_loader=_model_files())
    version = loader.determine_latest_version("dynamodb", "service-2")
    model, _ = loader.load_data_with_path(f"dynamodb/{version}/service-2")
    return model


def operation_names() -> frozenset[str]:
    return frozenset(service_model()["operations"])


def _compile(shape_name: str, shapes: dict[str, Any], visiting: set[str]) -> Plan | None:
    """The decoding plan for one shape, or None when nothing under it needs decoding."""
    if shape_name == "AttributeValue":
        return _AV
    shape = shapes[shape_name]
    kind = shape["type"]
    if kind == "blob":
        return _BLOB
    if kind == "timestamp":
        return _TIMESTAMP
    if shape_name in visiting:
        return None
    visiting = visiting | {shape_name}
    if kind == "structure":
        members = {}
        for member, ref in shape.get("members", {}).items():
            plan = _compile(ref["shape"], shapes, visiting)
            if plan is not None:
                members[member] = plan
        return ("S", members) if members else None
    if kind == "list":
        plan = _compile(shape["member"]["shape"], shapes, visiting)
        return None if plan is None else ("L", plan)
    if kind == "map":
        plan = _compile(shape["value"]["shape"], shapes, visiting)
        return None if plan is None else ("M", plan)
    return None


# A body in which this finds nothing has no B or BS attribute value: no key "B"/"BS", and no \u escape
# that could spell one.
_MAY_HOLD_BLOBS = re.compile(rb'"BS?"\s*:|\\u')


def _no_blobs(body: bytes) -> bool:
    """True when ``body`` cannot hold a B or BS value (a substring test first: most bodies have no '"B')."""
    if b'"B' not in body and b"\\u" not in body:
        return True
    return _MAY_HOLD_BLOBS.search(body) is None


def _only_attribute_values(plan: Plan) -> bool:
    """True when every leaf of ``plan`` is an AttributeValue (no blob or timestamp members of its own)."""
    if isinstance(plan, str):
        return plan == _AV
    kind, inner = plan
    if kind == "S":
        return all(_only_attribute_values(member) for member in inner.values())
    return _only_attribute_values(inner)


@functools.cache
def body_plan(operation: str) -> tuple[Plan | None, bool]:
    """The operation's plan, and whether a body without blob-shaped keys can skip it (see decode_request)."""
    plan = request_plan(operation)
    return plan, plan is not None and _only_attribute_values(plan)


@functools.cache
def request_plan(operation: str) -> Plan | None:
    model = service_model()
    spec = model["operations"].get(operation)
    if spec is None or "input" not in spec:
        return None
    return _compile(spec["input"]["shape"], model["shapes"], set())


# A base64 character's 6-bit value; the last one before padding must leave no stray bits.
_B64_VALUES = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
BASE64_LENGTH = "Base64 encoded length is expected a multiple of 4 bytes but found: {length}"
BASE64_INVALID = "Invalid last non-pad Base64 character dectected"  # sic: AWS's own text


def _b64(text: str) -> bytes:
    """Strict, canonical base64 as AWS accepts it: padded to a multiple of 4, only the base64 alphabet (no
    whitespace), ``=`` only at the end, and no stray bits before it -- so whatever is accepted re-encodes
    to exactly the same text. Anything else is a SerializationException, never a silently shorter blob."""
    if len(text) % 4:
        raise serialization_error(BASE64_LENGTH.format(length=len(text)))
    try:
        data = binascii.a2b_base64(text, strict_mode=True)
    except ValueError:  # binascii.Error, or a str with non-ASCII characters
        raise serialization_error(BASE64_INVALID) from None
    if text.endswith("="):
        pads = 2 if text.endswith("==") else 1
        if _B64_VALUES[text[-pads - 1]] & (0b1111 if pads == 2 else 0b11):
            raise serialization_error(BASE64_INVALID)
    return data


def _decode_av(value: Any) -> None:
    """Base64-decode every B/BS inside one AttributeValue, in place (M and L recurse)."""
    if type(value) is not dict:
        return
    if "B" in value:
        blob = value["B"]
        if type(blob) is str:
            value["B"] = _b64(blob)
    if "BS" in value:
        blobs = value["BS"]
        if type(blobs) is list:
            value["BS"] = [_b64(b) if type(b) is str else b for b in blobs]
    if "M" in value:
        members = value["M"]
        if type(members) is dict:
            for member in members.values():
                _decode_av(member)
    if "L" in value:
        elements = value["L"]
        if type(elements) is list:
            for element in elements:
                _decode_av(element)


def _decode_leaf(plan: str, value: Any) -> Any:
    if plan == _BLOB:
        return _b64(value) if type(value) is str else value
    if type(value) in (int, float):  # _TIMESTAMP: epoch seconds on the wire
        return datetime.fromtimestamp(value, tz=UTC)
    return value


def _apply(plan: Plan, value: Any) -> Any:
    """Decode ``value`` along ``plan``; containers are changed in place, leaves returned."""
    if plan == _AV:
        _decode_av(value)
        return value
    if isinstance(plan, str):
        return _decode_leaf(plan, value)
    kind, inner = plan
    if kind == "S":
        if type(value) is dict:
            for member, member_plan in inner.items():
                if member in value:
                    value[member] = _apply(member_plan, value[member])
    elif kind == "L":
        if type(value) is list:
            for index, element in enumerate(value):
                value[index] = _apply(inner, element)
    elif type(value) is dict:
        for key, element in value.items():
            value[key] = _apply(inner, element)
    return value


def serialization_error(message: str | None = None) -> DynamoDBError:
    """Coral's SerializationException: the body was not a JSON object (AWS sends no message then)."""
    error = DynamoDBError("SerializationException", message or "")
    error.extra["_prefix"] = CORAL_PREFIX
    return error


def decode_request(operation: str, body: bytes) -> dict[str, Any]:
    """Wire JSON request body -> engine parameters (B/BS as bytes, timestamps as datetime)."""
    try:
        params = orjson.loads(body) if body else {}
    except orjson.JSONDecodeError:
        raise serialization_error() from None
    if type(params) is not dict:
        raise serialization_error()
    plan, skippable = body_plan(operation)
    # Most requests carry no binary values; for operations whose only blobs are inside AttributeValues,
    # one regex search over the raw body proves it and saves walking every attribute value.
    if plan is not None and not (skippable and _no_blobs(body)):
        _apply(plan, params)
    return params


def _encode_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"cannot put {type(value).__name__} on the wire")


_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def encode_response(response: dict[str, Any]) -> bytes:
    """Engine response -> wire JSON bytes."""
    return orjson.dumps(response, default=_encode_default, option=_OPTIONS)


@functools.cache
def _message_member(code: str) -> str:
    """``message`` or ``Message``: DynamoDB's modeled errors disagree, and SDKs read the modeled one."""
    shape = service_model()["shapes"].get(code)
    if shape is not None and "Message" in shape.get("members", {}):
        return "Message"
    return "message"


def error_body(error: DynamoDBError) -> dict[str, Any]:
    """The JSON error document DynamoDB sends for ``error`` (``__type``, message, modeled extras)."""
    prefix = error.extra.get("_prefix", DYNAMODB_PREFIX)
    body: dict[str, Any] = {"__type": prefix + error.code}
    if error.message:
        body[_message_member(error.code)] = error.message
    if error.item is not None:
        body["Item"] = error.item
    for key, value in error.extra.items():
        if not key.startswith("_"):
            body[key] = value
    return body


def encode_error(error: DynamoDBError) -> bytes:
    return orjson.dumps(error_body(error), default=_encode_default, option=_OPTIONS)
