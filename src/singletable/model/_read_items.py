"""Building entities from stored items without a second validation pass: the hot path of every read.

Reads decode each AttributeValue with the field's codec, which already yields the declared Python type (an
``int`` field an ``int``, datetimes timezone-aware, enums as members). Handing that to ``model_validate``
checks it again and, for nested models, builds them from dicts -- about half of a query's per-item cost
(docs/architecture.md). For a plain model the validated result is exactly what the codecs produced, so
this module builds the instance directly, with one generated function per model class (nested models get
their own and are built as instances, not dicts).

"Plain" is decided per class, once, and conservatively: no validators of any kind, no private attributes,
no ``model_post_init``, no config that transforms values, and only field types whose codec output is what
validation would return (str, numbers, bool, Decimal, datetime, date, bytes, UUID, enums, Literals, ``Any``,
and lists/sets/dicts/nested models of those). Anything else -- and any item that lacks a required field, or
one a key could supply -- goes through ``model_validate`` as before, so results and errors never differ.
"""

from __future__ import annotations

import datetime as dt
import enum
import types
import typing
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from singletable.model._errors import ModelError, StoredItemError
from singletable.model._field_values import AV, Codec

_SCALARS = (str, int, float, bool, Decimal, dt.datetime, dt.date, bytes, uuid.UUID)
_IMMUTABLE = (type(None), str, int, float, bool, bytes, Decimal, dt.datetime, dt.date, uuid.UUID, enum.Enum)
# Config that makes validation change or reject values the codecs return as they are.
_TRANSFORMING = (
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "use_enum_values",
    "validate_default",
    "str_min_length",
    "str_max_length",
)
_new = object.__new__
# BaseModel keeps an instance's state in four slots; setting them through their descriptors is what
# model_construct does, minus its per-field loop (and a third of object.__setattr__'s cost).
_SLOTS = {
    name: BaseModel.__dict__[name].__set__
    for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
}


_MISSING = object()


# What decoding raises on a stored item that does not fit its entity (pydantic's ValidationError is a
# ValueError). Reads catch these around whole pages, so good items pay nothing for the check.
BAD_ITEM = (KeyError, TypeError, ValueError, ArithmeticError, AttributeError)
ON_BAD_ITEM = ("raise", "skip", "raw")
# The DynamoDB type each codec kind is stored as, for messages.
_STORED_AS = {"DT": "S", "TTL": "N", "MODEL": "M", "ANY": "any type"}


class Fallback(Exception):
    """This item needs ``model_validate`` (a required field is missing, or a key could supply one, or a
    value is not one of its ``Literal`` choices: validation then says why, naming the field)."""


class FieldRefused(ValueError):
    """A field read with a projection that its declared validation refuses (``field``, and pydantic's
    ``error``); the read reports it as :class:`StoredItemError`."""

    def __init__(self, field: str, error: BaseException) -> None:
        super().__init__(f"{field}: {error}")
        self.field = field
        self.error = error


def _plain_model(cls: type[BaseModel]) -> bool:
    decorators = cls.__pydantic_decorators__
    config = cls.model_config
    return (
        not (
            decorators.validators
            or decorators.field_validators
            or decorators.root_validators
            or decorators.model_validators
        )
        and not cls.__private_attributes__
        and cls.__pydantic_post_init__ is None
        and config.get("extra") != "allow"
        and not any(config.get(name) for name in _TRANSFORMING)
        and not getattr(cls, "__pydantic_generic_metadata__", {}).get("origin")
    )


def _optional(annotation: Any) -> Any:
    """``X | None`` -> X; other unions -> None (validation decides between their members)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return options[0] if len(options) == 1 else None
    return annotation


def _converter(annotation: Any, codec: Codec) -> Callable[[AV], Any] | None:
    """How to turn this field's AttributeValue into exactly what validation would return; None if unsure."""
    annotation = _optional(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is None or origin is typing.Annotated:
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        build = model_builder(annotation, codec)
        return None if build is None else (lambda av: build(av["M"]))
    if origin is list or annotation is list:
        if not args:
            return codec.load
        element = _converter(args[0], codec.item) if codec.item else None
        if element is None:
            return None
        return lambda av: [None if "NULL" in x else element(x) for x in av["L"]]
    if origin is dict or annotation is dict:
        if args and args[0] is not str:
            return None  # validation would convert the keys
        value = _converter(args[1], codec.item) if args and codec.item else None
        if args and value is None:
            return None
        if value is None:
            return codec.load
        return lambda av: {k: None if "NULL" in x else value(x) for k, x in av["M"].items()}
    if origin is set or annotation is set:
        return codec.load if not args or _converter(args[0], codec.item or codec) is not None else None
    if origin is typing.Literal:
        return _choice(frozenset(args), codec.load)
    if annotation in (Any, object) or annotation in _SCALARS:
        return codec.load
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return codec.load
    return None


def _choice(choices: frozenset[Any], load: Callable[[AV], Any]) -> Callable[[AV], Any]:
    """A ``Literal`` field's converter: the stored value if it is one of the choices, else validation."""

    def convert(av: AV) -> Any:
        value = load(av)
        if value not in choices:
            raise Fallback
        return value

    return convert


def _default(info: Any) -> tuple[str, Any] | None:
    """How validation fills a missing field: ("required" | "value" | "factory" | "copy", what)."""
    if info.is_required():
        return ("required", None)
    if info.validate_default or getattr(info, "default_factory_takes_data", False):
        return None
    if info.default_factory is not None:
        return ("factory", info.default_factory)
    if isinstance(info.default, _IMMUTABLE):
        return ("value", info.default)
    return ("copy", lambda: info.get_default(call_default_factory=True))


# Inline forms of the commonest conversions: the codec's result without a call per attribute. They read the
# AttributeValue's member directly; an absent attribute (TypeError), a NULL or a member of another type
# (KeyError) and a number int() refuses, like "1E+2" (ValueError), are handled off the fast path: absent and
# NULL count as missing, a scalar or a text goes to its codec (which decodes it or raises: an item that does
# not fit its entity, reported by the read as StoredItemError) and a nested model goes to validation.
_INLINE = {
    "text": "get(A{i})['S']",
    "int": "int(get(A{i})['N'])",
    "float": "float(get(A{i})['N'])",
    "bool": "get(A{i})['BOOL']",
    "model": "C{i}(get(A{i})['M'])",
    "models": "[None if 'NULL' in x else C{i}(x['M']) for x in get(A{i})['L']]",
}
_SCALAR_FORMS = ("int", "float", "bool")


def _missing(i: int, how: str, indent: str) -> list[str]:
    if how in ("required", "recover"):
        return [f"{indent}raise Fallback"]
    value = f"D{i}" if how == "value" else f"D{i}()"
    return [f"{indent}d[N{i}] = {value}", f"{indent}unset = unset or []", f"{indent}unset.append(N{i})"]


def _generate(
    cls: type[BaseModel], fields: list[tuple[str, str, str, Callable[..., Any], tuple[str, Any]]]
) -> Callable[[Mapping[str, AV]], Any]:
    """Straight-line functions: attribute map -> instance. Attribute names and defaults are passed in as
    constants; only field names (identifiers) are written into the code, as ``repr`` literals."""
    env: dict[str, Any] = {
        "cls": cls,
        "new": _new,
        "Fallback": Fallback,
        "MISSING": _MISSING,
        "set_dict": _SLOTS["__dict__"],
        "set_fields": _SLOTS["__pydantic_fields_set__"],
        "set_extra": _SLOTS["__pydantic_extra__"],
        "set_private": _SLOTS["__pydantic_private__"],
    }
    lines = ["def careful(m):", "    get = m.get", "    d = {}", "    unset = None"]
    for i, (name, attr, form, convert, (how, default)) in enumerate(fields):
        env[f"A{i}"], env[f"N{i}"], env[f"C{i}"], env[f"D{i}"] = attr, name, convert, default
        if form == "call":
            lines += [
                f"    av = get(A{i})",
                "    if av is not None and 'NULL' not in av:",
                f"        d[N{i}] = C{i}(av)",
                "    else:",
                *_missing(i, how, " " * 8),
            ]
            continue
        if form in _SCALAR_FORMS or form == "text":
            bad = [f"            d[N{i}] = C{i}(av)"]  # the codec decodes it or says it does not fit
        else:
            bad = ["            raise Fallback"]
        lines += [
            "    try:",
            f"        d[N{i}] = {_INLINE[form].format(i=i)}",
            "    except (TypeError, KeyError, ValueError):",
            f"        av = get(A{i})",
            "        if av is None or 'NULL' in av:",
            *_missing(i, how, " " * 12),
            "        else:",
            *bad,
        ]
    lines += _FINISH
    lines += _fast(fields)
    exec("\n".join(lines), env)
    return env["build"]


# How both generated builders end: the instance made as pydantic's model_construct makes it.
_FINISH = [
    "    obj = new(cls)",
    "    set_dict(obj, d)",
    "    fields_set = set(d)",
    "    if unset:",
    "        fields_set.difference_update(unset)",
    "    set_fields(obj, fields_set)",
    "    set_extra(obj, None)",
    "    set_private(obj, None)",
    "    return obj",
]


def _fast(fields: list[tuple[str, str, str, Callable[..., Any], tuple[str, Any]]]) -> list[str]:
    """The usual case in one dict display: every attribute where the inline forms expect it.

    Anything unexpected (an absent required attribute, a NULL, a member of another type) raises inside the
    display and the item is decoded again by ``careful``, which sorts each case out. Optional fields may be
    absent: they take a MISSING marker, replaced by their default afterwards (outside ``fields_set``).
    """
    lines = ["def build(m):", "    get = m.get", "    try:", "        d = {"]
    after = []
    for i, (name, _attr, form, _convert, (how, _default)) in enumerate(fields):
        key = repr(name)
        if form == "call":
            value = f"C{i}(av{i}) if (av{i} := get(A{i})) is not None and 'NULL' not in av{i} else MISSING"
        elif how in ("required", "recover"):
            lines.append(f"            {key}: {_INLINE[form].format(i=i)},")
            continue
        else:
            inline = _INLINE[form].format(i=i).replace(f"get(A{i})", f"av{i}")
            value = f"{inline} if (av{i} := get(A{i})) is not None else MISSING"
        lines.append(f"            {key}: {value},")
        after.append(f"    if d[{key}] is MISSING:")
        if how in ("required", "recover"):
            after.append("        return careful(m)")
        else:
            after += [f"        d[{key}] = D{i}" + ("" if how == "value" else "()"),
                      "        unset = unset or []", f"        unset.append({key})"]  # fmt: skip
    lines += [
        "        }",
        "    except (TypeError, KeyError, ValueError):",
        "        return careful(m)",
        "    unset = None",
        *after,
        *_FINISH,
    ]
    return lines


_builders: dict[type[BaseModel], Callable[[Mapping[str, AV]], Any] | None] = {}


def model_builder(cls: type[BaseModel], codec: Codec) -> Callable[[Mapping[str, AV]], Any] | None:
    """A builder for a nested model (its ``M`` map -> instance), or None if it must be validated."""
    if cls in _builders:
        return _builders[cls]
    _builders[cls] = None  # a model that contains itself is validated
    build = None
    if _plain_model(cls) and codec.kind == "MODEL":
        fields = []
        for name, info in cls.model_fields.items():
            attr, field_codec = codec.fields[name]
            plan = _field_plan(info, field_codec, recoverable=False)
            if plan is None:
                break
            fields.append((name, attr, *plan))
        else:
            build = _generate(cls, fields)
    _builders[cls] = build
    return build


def _field_plan(
    info: Any, codec: Codec, recoverable: bool
) -> tuple[str, Callable[..., Any], tuple[str, Any]] | None:
    """(inline form, converter, how a missing value is filled) for one field; None if it needs validation."""
    if info.metadata:  # constraints or validators in Annotated[...]
        return None
    convert = _converter(info.annotation, codec)
    default = _default(info)
    if convert is None or default is None:
        return None
    annotation = _optional(info.annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    form = "call"
    if annotation in (str, int, float, bool) and codec.python is annotation:
        form = "text" if annotation is str else annotation.__name__
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        form, convert = "model", model_builder(annotation, codec)
    elif origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
        # a list's codec has its element codec (codec.item)
        form, convert = "models", model_builder(args[0], codec.item)  # type: ignore[arg-type]
    # model_builder returned the builder _converter made above (cached), so convert is not None
    return form, convert, (("recover", None) if recoverable else default)  # type: ignore[return-value]


def entity_builder(
    cls: type[BaseModel], fields: Mapping[str, tuple[str, Codec]], recoverable: set[str]
) -> Callable[[Mapping[str, AV]], Any] | None:
    """A builder for full items of an entity class, or None if its items must be validated.

    ``fields`` maps each field to its attribute and codec; ``recoverable`` names the fields a key can
    supply when their attribute is absent (such items go to validation, which reads them from the key).
    """
    if not _plain_model(cls):
        return None
    plans = []
    for name, info in cls.model_fields.items():
        attribute, codec = fields[name]
        plan = _field_plan(info, codec, recoverable=name in recoverable)
        if plan is None:
            return None
        plans.append((name, attribute, *plan))
    return _generate(cls, plans)


def checked_on_bad_item(value: Any) -> str:
    """``value`` if it is one of :data:`ON_BAD_ITEM`; else a :class:`ModelError` naming them."""
    if value not in ON_BAD_ITEM:
        raise ModelError(f"on_bad_item must be one of {', '.join(map(repr, ON_BAD_ITEM))}, not {value!r}")
    return value


def stored_item_error(meta: Any, item: Mapping[str, AV], table: str, error: BaseException) -> StoredItemError:
    """Why ``item`` does not fit ``meta``'s entity, given what decoding it raised (``error``).

    Each stored attribute is decoded again with its field's codec; the first that fails is the one named.
    Otherwise validation's own complaint (a required field absent, a constraint) names the field. An error
    that is about neither is not the item's fault and is raised again as it was.
    """
    if isinstance(error, StoredItemError):  # already says which item and why (an UpgradeError)
        return error
    key_names = [n for n in (meta.table.pk_name, meta.table.sk_name) if n]
    key = {n: _shown(item[n]) for n in key_names if isinstance(item.get(n), Mapping)}
    for spec in meta.fields.values():
        av = item.get(spec.attribute)
        if not spec.stored or av is None or (isinstance(av, Mapping) and "NULL" in av):
            continue
        try:
            spec.codec.load(av)
        except BAD_ITEM:
            return StoredItemError(table, key, meta.type, spec.attribute, _expected(spec.codec), _stored(av))
    if isinstance(error, FieldRefused) and isinstance(error.error, ValidationError):
        spec = meta.fields[error.field]
        av = item.get(spec.attribute)
        problem = error.error.errors()[0]
        return StoredItemError(
            table, key, meta.type, spec.attribute, _expected(spec.codec), f"{_stored(av)}: {problem['msg']}"
        )
    if isinstance(error, ValidationError):
        problem = error.errors()[0]
        spec = meta.fields.get(problem["loc"][0]) if problem["loc"] else None
        if spec is None:
            return StoredItemError(table, key, meta.type, None, meta.type, problem["msg"])
        av = item.get(spec.attribute)
        found = "nothing (the attribute is absent)" if av is None or "NULL" in av else _stored(av)
        return StoredItemError(
            table, key, meta.type, spec.attribute, _expected(spec.codec), f"{found}: {problem['msg']}"
        )
    raise error


def _expected(codec: Codec) -> str:
    return f"{codec.expected} ({_STORED_AS.get(codec.kind, codec.kind)})"


def _shown(av: Any) -> Any:
    return next(iter(av.values())) if isinstance(av, Mapping) and len(av) == 1 else av


def _stored(av: Any) -> str:
    if not isinstance(av, Mapping) or len(av) != 1:
        return f"{av!r:.60} (not an AttributeValue)"
    ((kind, value),) = av.items()
    text = repr(value)
    return f"{kind} {text if len(text) <= 60 else text[:57] + '...'}"
