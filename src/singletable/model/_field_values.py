"""Python values <-> DynamoDB AttributeValues, driven by each field's declared type.

Conversion is done here rather than with boto3's TypeSerializer so the same code serves the native engine
(which has no boto3 in its path) and boto3 clients, and so reads come back as the *declared* type: an ``int``
field is an ``int``, a ``float`` a ``float``, a datetime timezone-aware -- never a surprise ``Decimal``. Each
field gets a :class:`Codec` built once at class creation; the hot path is a couple of closure calls.
"""

from __future__ import annotations

import enum
import types
import typing
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from singletable.model._errors import DeclarationError, KeyTemplateError, ModelError

AV = dict[str, Any]
PRECISIONS = {"seconds": "seconds", "milliseconds": "milliseconds", "microseconds": "microseconds"}


def format_datetime(value: datetime, precision: str = "milliseconds") -> str:
    """Fixed-width UTC ISO-8601, so stored timestamps sort as strings in time order.

    Naive datetimes are taken as UTC. The width never varies (no dropped fraction), because a key like
    ``...10:30:00Z`` sorts *after* ``...10:30:00.5Z`` and would break newest-first queries.
    """
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(timespec=precision) + "Z"


def parse_datetime(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


class NumberRefused(KeyTemplateError):
    """A float DynamoDB cannot store (NaN, an infinity, or a magnitude outside 1e-130..1e126): a value of the
    right type that no item may hold, so the entity's writer names the field it came from."""


def _number_text(value: Any) -> str:
    if isinstance(value, bool):
        raise KeyTemplateError("booleans are not numbers in DynamoDB")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise NumberRefused(f"DynamoDB cannot store the number {value!r}")
        if not (1e-130 <= abs(value) < 1e126) and value != 0.0:
            raise NumberRefused(f"DynamoDB cannot store the number {value!r}: not within 1e-130..1e126")
        return repr(value)
    return str(value)


def _load_int(av: AV) -> int:
    text = av["N"]
    try:
        return int(text)
    except ValueError:
        return int(Decimal(text))


def _load_number_any(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _order(element: Any) -> Any:
    return element.value if isinstance(element, enum.Enum) else element


class CanonicalSet(set):
    """A set read from DynamoDB (SS, NS, BS): a plain ``set`` that iterates, prints and serialises its
    elements in sorted order, so the same stored set looks the same on every run (a ``set`` of strings
    iterates in an order that changes with ``PYTHONHASHSEED``) and on every backend. Equality, membership
    and every set operation are ``set``'s; operations return plain sets."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        elements = list(set.__iter__(self))
        try:
            elements.sort(key=_order)
        except TypeError:  # elements of no common order (a set of Any): by their text, still canonical
            elements.sort(key=repr)
        return iter(elements)

    def __repr__(self) -> str:
        return "{" + ", ".join(repr(e) for e in self) + "}" if self else "set()"

    def __reduce__(self) -> tuple[Any, ...]:
        return (CanonicalSet, (list(set.__iter__(self)),))


def dump_any(value: Any) -> AV | None:
    """Untyped values (``Any``, ``dict`` fields): the natural DynamoDB type; None -> NULL."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float | Decimal):
        return {"N": _number_text(value)}
    if isinstance(value, datetime):
        return {"S": format_datetime(value)}
    if isinstance(value, date):
        return {"S": value.isoformat()}
    if isinstance(value, enum.Enum):
        return dump_any(value.value)
    if isinstance(value, bytes | bytearray):
        return {"B": bytes(value)}
    if isinstance(value, BaseModel):
        return {"M": {k: dump_any(v) for k, v in value.model_dump(by_alias=True).items()}}
    if isinstance(value, Mapping):
        return {"M": {str(k): dump_any(v) for k, v in value.items()}}
    if isinstance(value, set | frozenset):
        if not value:
            return None
        first = next(iter(value))
        if isinstance(first, str):
            return {"SS": sorted(value)}
        if isinstance(first, bytes):
            return {"BS": sorted(value)}
        return {"NS": [_number_text(v) for v in value]}
    if isinstance(value, list | tuple):
        return {"L": [dump_any(v) for v in value]}
    if isinstance(value, uuid.UUID):
        return {"S": str(value)}
    raise KeyTemplateError(f"cannot store a {type(value).__name__} in DynamoDB")


def load_any(av: AV) -> Any:
    ((kind, raw),) = av.items()
    if kind == "S":
        return raw
    if kind == "N":
        return _load_number_any(raw)
    if kind == "BOOL":
        return raw
    if kind == "NULL":
        return None
    if kind == "M":
        return {k: load_any(v) for k, v in raw.items()}
    if kind == "L":
        return [load_any(v) for v in raw]
    if kind == "SS":
        return CanonicalSet(raw)
    if kind == "NS":
        return CanonicalSet(_load_number_any(v) for v in raw)
    if kind == "B":
        return raw
    if kind == "BS":
        return CanonicalSet(raw)
    raise KeyTemplateError(f"unknown AttributeValue type {kind}")


@dataclass(eq=False)
class Codec:
    """How one declared type travels: to an AttributeValue, back, and into/out of a key template slot."""

    kind: str  # S N B BOOL DT TTL L M SS NS BS MODEL ANY
    dump: Callable[[Any], AV | None]
    load: Callable[[AV], Any]
    key: Callable[[Any, str], str]
    parse: Callable[[str], Any]
    python: Any = None
    item: Codec | None = None  # element codec for lists, sets and dict values
    fields: dict[str, tuple[str, Codec]] = field(default_factory=dict)  # nested model: name -> (attr, codec)
    expected: str = "Any"  # the declared type, as error messages name it

    def child(self, step: str | int) -> Codec:
        """The codec of a nested path step, for typed references like ``Listing.f.analytics.views``."""
        if isinstance(step, int) or self.kind in ("L", "M"):
            return self.item or ANY
        if self.kind == "MODEL" and step in self.fields:
            return self.fields[step][1]
        return ANY


def _key_str(value: Any, spec: str) -> str:
    return format(value, spec) if spec else str(value)


def _key_text(value: Any, spec: str) -> str:
    if value.__class__ is str:  # the common case first: keys are rendered on every request
        return format(value, spec) if spec else value
    if not isinstance(value, str):
        raise TypeError(value)
    return format(value, spec) if spec else value


def _key_number(value: Any, spec: str) -> str:
    if value.__class__ is int:
        return format(value, spec) if spec else str(value)
    if isinstance(value, bool):
        raise KeyTemplateError("a boolean cannot fill a numeric key slot")
    if not _is_number(value):
        raise TypeError(value)
    return format(value, spec) if spec else _number_text(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _dump_int(value: Any) -> AV:
    """An int field's value; a float or Decimal only when it is a whole number (never silently truncated)."""
    if value.__class__ is int:
        text = str(value)
        return {"N": text if len(text) <= MAX_DIGITS else _storable_int(text)}
    if not _is_number(value):
        raise TypeError(value)
    try:
        whole = int(value)  # an infinity raises OverflowError, a NaN ValueError
    except (OverflowError, ValueError):
        raise TypeError(value) from None
    if whole != value:
        raise TypeError(value)
    return {"N": _storable_int(str(whole))}


# DynamoDB's numbers: at most 38 significant digits, the leading one at most 10**125 (any int of 38 digits
# or fewer is storable as it is).
MAX_DIGITS = 38


def _storable_int(text: str) -> str:
    """``text`` (an int's) if DynamoDB can store it; a larger one is refused before any request, as its
    field's value (:class:`FieldTypeError`), where DynamoDB would refuse the write."""
    digits = text.lstrip("-")
    if len(digits.rstrip("0")) > MAX_DIGITS or len(digits) > 126:
        raise ValueError(f"DynamoDB stores at most 38 significant digits, up to 10**125: {text}")
    return text


def _dump_float(value: Any) -> AV:
    if value.__class__ is float:
        return {"N": _number_text(value)}
    if not _is_number(value):
        raise TypeError(value)
    return {"N": _number_text(float(value))}


def _dump_decimal(value: Any) -> AV:
    if not _is_number(value):
        raise TypeError(value)
    return {"N": str(value)}


def _dump_text(value: Any) -> AV:
    if value.__class__ is str:
        return {"S": value}
    if not isinstance(value, str):
        raise TypeError(value)
    return {"S": value}


def _dump_bool(value: Any) -> AV:
    if not isinstance(value, bool):
        raise TypeError(value)
    return {"BOOL": value}


def _dump_date(value: Any) -> AV:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise TypeError(value)
    return {"S": value.isoformat()}


def _dump_bytes(value: Any) -> AV:
    if not isinstance(value, bytes | bytearray):
        raise TypeError(value)
    return {"B": bytes(value)}


def _dump_uuid(value: Any) -> AV:
    if isinstance(value, str):
        uuid.UUID(value)  # a UUID's text is fine; anything else is refused (ValueError)
    elif not isinstance(value, uuid.UUID):
        raise TypeError(value)
    return {"S": str(value)}


ANY = Codec("ANY", dump_any, load_any, _key_str, str)


def _make_datetime(precision: str) -> Codec:
    def dump(value: datetime) -> AV:
        if not isinstance(value, datetime):
            raise TypeError(value)
        return {"S": format_datetime(value, precision)}

    def load(av: AV) -> datetime:
        return parse_datetime(av["S"])

    def key(value: datetime, spec: str) -> str:
        if spec == "date":
            return format_datetime(value, "seconds")[:10]
        return format_datetime(value, PRECISIONS.get(spec, precision))

    return Codec("DT", dump, load, key, parse_datetime, python=datetime)


def ttl_codec() -> Codec:
    """TTL fields: DynamoDB expires items by a Number of epoch seconds; Python sees an aware datetime."""

    def dump(value: datetime | int) -> AV:
        if isinstance(value, datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=UTC)
            return {"N": str(int(value.timestamp()))}
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(value)
        return {"N": str(int(value))}

    def load(av: AV) -> datetime:
        return datetime.fromtimestamp(int(Decimal(av["N"])), UTC)

    return Codec(
        "TTL",
        dump,
        load,
        lambda v, s: dump(v)["N"],
        lambda t: load({"N": t}),
        python=datetime,
        expected="datetime",
    )


def _scalar(python: Any, precision: str) -> Codec | None:
    """The codec of a single-valued type (text, number, bool, time, bytes, UUID, enum); None otherwise."""
    if python is datetime:
        return _make_datetime(precision)
    if isinstance(python, type) and issubclass(python, enum.Enum):
        return _enum_codec(python, precision)
    return _number_codec(python) or _plain_codec(python)


def _number_codec(python: Any) -> Codec | None:
    """``int``, ``float`` and ``Decimal``: stored as N, read back as the declared type."""
    if python is int:
        return Codec("N", _dump_int, _load_int, _key_number, int, python=int)
    if python is float:
        return Codec(
            "N",
            _dump_float,
            lambda av: float(av["N"]),
            _key_number,
            float,
            python=float,
        )
    if python is Decimal:
        return Codec("N", _dump_decimal, lambda av: Decimal(av["N"]), _key_number, Decimal, python=Decimal)
    return None


def _plain_codec(python: Any) -> Codec | None:
    """``str``, ``bool``, ``date``, ``bytes`` and ``UUID``: each as its natural DynamoDB type."""
    if python is str:
        return Codec("S", _dump_text, lambda av: av["S"], _key_text, str, python=str)
    if python is bool:
        return Codec(
            "BOOL",
            _dump_bool,
            lambda av: av["BOOL"],
            lambda v, s: "true" if v else "false",
            lambda t: t == "true",
            python=bool,
        )
    if python is date:
        return Codec(
            "S",
            _dump_date,
            lambda av: date.fromisoformat(av["S"]),
            lambda v, s: v.isoformat(),
            date.fromisoformat,
            python=date,
        )
    if python is bytes:
        return Codec(
            "B",
            _dump_bytes,
            lambda av: av["B"],
            lambda v, s: v.hex(),
            bytes.fromhex,
            python=bytes,
        )
    if python is uuid.UUID:
        return Codec("S", _dump_uuid, lambda av: uuid.UUID(av["S"]), _key_str, uuid.UUID, python=uuid.UUID)
    return None


def _enum_codec(python: type[enum.Enum], precision: str) -> Codec:
    """An enum travels as its members' value type; Python sees the member."""
    inner = _scalar(type(next(iter(python)).value), precision) or ANY
    return Codec(
        inner.kind,
        lambda v: inner.dump(python(v).value),
        lambda av: python(inner.load(av)),
        lambda v, s: inner.key(python(v).value, s),
        lambda t: python(inner.parse(t)),
        python=python,
    )


def build_codec(annotation: Any, precision: str = "milliseconds") -> Codec:
    """The codec for a field's annotation; ``X | None`` is X (None values are simply not stored)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return build_codec(typing.get_args(annotation)[0], precision)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return build_codec(options[0], precision) if len(options) == 1 else ANY
    codec = _typed_codec(annotation, origin, precision)
    if codec is not ANY:
        codec.expected = _type_name(annotation)
    return codec


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _typed_codec(annotation: Any, origin: Any, precision: str) -> Codec:
    if origin is typing.Literal:
        values = typing.get_args(annotation)
        return _scalar(type(values[0]), precision) or ANY
    scalar = _scalar(annotation, precision)
    if scalar is not None:
        return scalar
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_codec(annotation, precision)
    if origin in (list, tuple, typing.Sequence) or annotation in (list, tuple):
        return _list_codec(annotation, precision)
    if origin in (set, frozenset) or annotation in (set, frozenset):
        return _set_codec(annotation, precision)
    if origin in (dict, typing.Mapping) or annotation is dict:
        return _dict_codec(annotation, precision)
    if annotation is Any or annotation is object:
        return ANY
    raise DeclarationError(f"singletable cannot store fields of type {annotation!r}")


def _list_codec(annotation: Any, precision: str) -> Codec:
    """Lists and tuples: an L of the element type (None elements as NULL)."""
    args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
    item = build_codec(args[0], precision) if args else ANY
    return Codec(
        "L",
        lambda v: {"L": [_dump_nested(item, x) for x in _sequence(v)]},
        lambda av: [_load_nested(item, x) for x in av["L"]],
        _key_str,
        str,
        python=list,
        item=item,
    )


def _set_codec(annotation: Any, precision: str) -> Codec:
    """Sets: SS, NS or BS by the element type; an empty set is not stored (DynamoDB has no empty sets)."""
    args = typing.get_args(annotation)
    item = build_codec(args[0], precision) if args else ANY
    kind = {"S": "SS", "N": "NS", "B": "BS"}.get(item.kind, "SS")

    def elements(v: Any) -> Any:
        """The set's elements, each checked against the element type (a string is not a set of letters)."""
        if not isinstance(v, set | frozenset | list | tuple):
            raise TypeError(v)
        if item is not ANY:
            for x in v:
                item.dump(x)
        return v

    if kind == "NS":

        def dump(v: Any) -> AV | None:
            return {"NS": [_number_text(x) for x in elements(v)]} if v else None
    else:

        def dump(v: Any) -> AV | None:
            return {kind: sorted(elements(v))} if v else None

    return Codec(
        kind,
        dump,
        lambda av: CanonicalSet(item.load({item.kind if kind == "NS" else kind[0]: x}) for x in av[kind]),
        _key_str,
        str,
        python=set,
        item=item,
    )


def _dict_codec(annotation: Any, precision: str) -> Codec:
    """Dicts: an M whose member values have the declared value type."""
    args = typing.get_args(annotation)
    item = build_codec(args[1], precision) if len(args) == 2 else ANY
    return Codec(
        "M",
        lambda v: {"M": {str(k): _dump_nested(item, x) for k, x in _mapping(v).items()}},
        lambda av: {k: _load_nested(item, x) for k, x in av["M"].items()},
        _key_str,
        str,
        python=dict,
        item=item,
    )


def _sequence(value: Any) -> list[Any] | tuple[Any, ...]:
    if value.__class__ is not list and not isinstance(value, list | tuple):
        raise TypeError(value)  # a string or a set is not a list (a string would become its characters)
    return value


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(value)
    return value


def _dump_nested(codec: Codec, value: Any) -> AV:
    if value is None:
        return {"NULL": True}
    dumped = codec.dump(value)
    return {"NULL": True} if dumped is None else dumped


def _load_nested(codec: Codec, av: AV) -> Any:
    return None if "NULL" in av else codec.load(av)


def _model_codec(model: type[BaseModel], precision: str) -> Codec:
    fields = {
        name: (info.alias or name, build_codec(info.annotation, precision))
        for name, info in model.model_fields.items()
    }
    # Members whose declared type refuses None: a None there (set after the model was built) would be stored
    # as an absent member that a read of the item then refuses.
    required = frozenset(n for n, info in model.model_fields.items() if not admits_none(info.annotation))

    def dump(value: Any) -> AV:
        if isinstance(value, Mapping):
            value = model.model_validate(value)
        elif not isinstance(value, model):
            raise TypeError(value)  # another object with the same attribute names is not this model
        out = {}
        for name, (attr, codec) in fields.items():
            v = getattr(value, name)
            if v is not None:
                dumped = codec.dump(v)
                if dumped is not None:
                    out[attr] = dumped
            elif name in required:
                raise TypeError(value)
        return {"M": out}

    def load(av: AV) -> Any:
        # A dict, not a model: the entity's own validation builds nested models in one pass (in Rust),
        # which is several times faster than validating each nested model here.
        raw = av["M"]
        return {name: _load_nested(codec, raw[attr]) for name, (attr, codec) in fields.items() if attr in raw}

    return Codec("MODEL", dump, load, _key_str, str, python=model, fields=fields)


def dump_value(codec: Codec, value: Any) -> AV:
    """A value for an expression placeholder: typed by the path it is compared with or assigned to.

    A value the declared type refuses raises (TypeError, ValueError or AttributeError, which the expression
    compiler reports as :class:`~singletable.model.FieldTypeError`): it is never stored as some other type.
    """
    if value is None:
        return {"NULL": True}
    if codec.kind in ("SS", "NS", "BS") and not isinstance(value, set | frozenset | list | tuple):
        # one element (not None, not a set), for contains(): its dump is never None
        return codec.item.dump(value) if codec.item else dump_any(value)  # type: ignore[return-value]
    dumped = codec.dump(value)
    if dumped is None:
        raise KeyTemplateError("DynamoDB cannot store an empty set")
    return dumped


def admits_none(annotation: Any) -> bool:
    """Whether a declared type takes None: ``X | None``, ``Optional[X]``, ``Any`` (also in ``Annotated``)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is Any or annotation is object or annotation is None or annotation is type(None):
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(admits_none(option) for option in typing.get_args(annotation))
    return False


def refused(error: BaseException) -> bool:
    """Whether ``error`` is a codec refusing a value (not a model error of its own, like a NaN number)."""
    return isinstance(error, TypeError | ValueError | AttributeError) and not isinstance(error, ModelError)
