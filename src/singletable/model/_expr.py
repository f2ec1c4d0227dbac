"""Typed attribute references and the expressions built from them.

``Post.f.title == "x"``, ``Listing.f.analytics["views"] > 1000``, ``Post.f.views.add(1)``: references carry
the field's codec, so comparison values are stored exactly as the field is (a datetime compares as the same
fixed-width string it was written as), and they compile to expression text with ``:v`` values and, for any
name that is reserved, a function name or not a plain identifier, a ``#n`` placeholder -- so such names
never reach the expression text, and plain ones cost the engine no name resolution.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from singletable.engine.shared import DOCUMENTED_RESERVED_WORDS
from singletable.model._errors import FieldTypeError, FieldValueError
from singletable.model._field_values import ANY, AV, Codec, NumberRefused, dump_value, refused
from singletable.model._vectors import VectorRefused

_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Words an expression could read as something other than an attribute name.
_FUNCTION_NAMES = frozenset(
    (
        "attribute_exists",
        "attribute_not_exists",
        "attribute_type",
        "begins_with",
        "contains",
        "size",
        "if_not_exists",
        "list_append",
    )
)


def _needs_placeholder(attribute: str) -> bool:
    """Whether ``attribute`` must go through ExpressionAttributeNames to be read as itself."""
    return (
        _PLAIN_NAME.fullmatch(attribute) is None
        or attribute.upper() in DOCUMENTED_RESERVED_WORDS
        or attribute.lower() in _FUNCTION_NAMES
    )


class Compiler:
    """Allocates placeholders for one request; key condition, filter, projection and update share it."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def name(self, attribute: str) -> str:
        """The attribute as written when that is unambiguous, else a ``#n`` placeholder (cheaper requests)."""
        token = self.names.get(attribute)
        if token is None:
            if not _needs_placeholder(attribute):
                return attribute
            token = self.names[attribute] = f"#n{len(self.names)}"
        return token

    def path(self, path: Path) -> str:
        out = ""
        for step in path.steps:
            out += f"[{step}]" if isinstance(step, int) else (("." if out else "") + self.name(step))
        return out

    def value(self, av: Any) -> str:
        token = f":v{len(self.values)}"
        self.values[token] = av
        return token

    def into(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.names:
            params["ExpressionAttributeNames"] = {v: k for k, v in self.names.items()}
        if self.values:
            params["ExpressionAttributeValues"] = dict(self.values)
        return params


class Cond:
    """A condition; combine with ``&``, ``|`` and ``~``."""

    __slots__ = ("args", "op")

    def __init__(self, op: str, *args: Any) -> None:
        self.op = op
        self.args = args

    def __and__(self, other: Cond) -> Cond:
        return Cond("AND", self, other)

    def __or__(self, other: Cond) -> Cond:
        return Cond("OR", self, other)

    def __invert__(self) -> Cond:
        return Cond("NOT", self)

    def __bool__(self) -> bool:
        raise TypeError("a condition has no truth value; combine conditions with &, | and ~")

    def paths(self) -> list[Path]:
        out = []
        for arg in self.args:
            if isinstance(arg, Path):
                out.append(arg)
            elif isinstance(arg, Cond):
                out += arg.paths()
            elif isinstance(arg, Size):
                out.append(arg.path)
        return out

    def compile(self, c: Compiler) -> str:
        op, args = self.op, self.args
        if op in ("AND", "OR"):
            return f"({args[0].compile(c)}) {op} ({args[1].compile(c)})"
        if op == "NOT":
            return f"NOT ({args[0].compile(c)})"
        if op == "CMP":
            left, sign, right = args
            return f"{_operand(c, left)} {sign} {_operand(c, right, left)}"
        if op == "BETWEEN":
            path, low, high = args
            return f"{_operand(c, path)} BETWEEN {_operand(c, low, path)} AND {_operand(c, high, path)}"
        if op == "IN":
            path, options = args
            return f"{c.path(path)} IN ({', '.join(_operand(c, o, path) for o in options)})"
        if op == "EXISTS":
            return f"attribute_exists({c.path(args[0])})"
        if op == "NOT_EXISTS":
            return f"attribute_not_exists({c.path(args[0])})"
        if op == "BEGINS_WITH":
            if not isinstance(args[1], str):
                raise FieldTypeError(args[0].entity, _field_name(args[0]), "str (a prefix)", args[1])
            return f"begins_with({c.path(args[0])}, {c.value({'S': args[1]})})"
        if op == "CONTAINS":
            path, value = args
            codec = path.codec.item or ANY if path.codec.kind in ("L", "SS", "NS", "BS") else path.codec
            return f"contains({c.path(path)}, {c.value(typed_value(path, codec, value))})"
        if op == "TYPE":
            return f"attribute_type({c.path(args[0])}, {c.value({'S': args[1]})})"
        raise AssertionError(op)


def _operand(c: Compiler, value: Any, like: Any = None) -> str:
    if isinstance(value, Path):
        return c.path(value)
    if isinstance(value, Size):
        return f"size({c.path(value.path)})"
    if isinstance(like, Size):
        if not isinstance(value, int) or isinstance(value, bool):
            raise FieldTypeError(like.path.entity, f"{_field_name(like.path)}.size()", "int", value)
        return c.value({"N": str(value)})
    if isinstance(like, Path):
        return c.value(typed_value(like, like.codec, value))
    return c.value(dump_value(ANY, value))


def _field_name(path: Path) -> str:
    """The field with its nested steps, as error messages name it: ``analytics['views']``."""
    return path.field + "".join(f"[{s!r}]" for s in path.steps[1:])


def typed_value(path: Path, codec: Codec, value: Any) -> AV:
    """``value`` as the AttributeValue ``path``'s declared type gives it; a value of another type raises
    :class:`FieldTypeError` (it would be stored as that other type, or a condition would never hold)."""
    try:
        return dump_value(codec, value)
    except Exception as error:
        if isinstance(error, VectorRefused | NumberRefused):  # the right type, a value no item may hold
            raise FieldValueError(path.entity, _field_name(path), codec.expected, value, str(error)) from None
        if refused(error):
            raise FieldTypeError(path.entity, _field_name(path), codec.expected, value) from None
        raise


class _Comparable:
    # ``Post.f.slug == "x"`` builds a condition, not a bool: the point of the expression language
    def __eq__(self, other: Any) -> Cond:  # type: ignore[override]
        return Cond("CMP", self, "=", other)

    def __ne__(self, other: Any) -> Cond:  # type: ignore[override]  # as __eq__
        return Cond("CMP", self, "<>", other)

    def __lt__(self, other: Any) -> Cond:
        return Cond("CMP", self, "<", other)

    def __le__(self, other: Any) -> Cond:
        return Cond("CMP", self, "<=", other)

    def __gt__(self, other: Any) -> Cond:
        return Cond("CMP", self, ">", other)

    def __ge__(self, other: Any) -> Cond:
        return Cond("CMP", self, ">=", other)

    def between(self, low: Any, high: Any) -> Cond:
        return Cond("BETWEEN", self, low, high)

    __hash__ = object.__hash__


class Size(_Comparable):
    """``size(path)`` in a condition: ``Post.f.tags.size() > 2``."""

    def __init__(self, path: Path) -> None:
        self.path = path


class Path(_Comparable):
    """A typed reference to an attribute, possibly nested: ``Listing.f.analytics.views``."""

    __slots__ = ("codec", "entity", "field", "steps")

    def __init__(self, entity: str, field: str, steps: tuple[str | int, ...], codec: Codec) -> None:
        self.entity = entity
        self.field = field  # the top-level Python field, for key maintenance
        self.steps = steps
        self.codec = codec

    def __repr__(self) -> str:
        return f"{self.entity}.f.{self.field}" + "".join(f"[{s!r}]" for s in self.steps[1:])

    @property
    def top_level(self) -> bool:
        return len(self.steps) == 1

    def __getitem__(self, step: str | int) -> Path:
        codec = self.codec.child(step)
        if isinstance(step, str) and self.codec.kind == "MODEL" and step in self.codec.fields:
            step = self.codec.fields[step][0]
        return Path(self.entity, self.field, (*self.steps, step), codec)

    def __getattr__(self, name: str) -> Path:
        if name.startswith("_"):
            raise AttributeError(name)
        if self.codec.kind == "MODEL" and name not in self.codec.fields:
            raise AttributeError(f"{self!r} has no field {name!r}")
        return self[name]

    # -- conditions -------------------------------------------------------------------------------------

    def exists(self) -> Cond:
        return Cond("EXISTS", self)

    def not_exists(self) -> Cond:
        return Cond("NOT_EXISTS", self)

    def begins_with(self, prefix: str) -> Cond:
        return Cond("BEGINS_WITH", self, prefix)

    def contains(self, value: Any) -> Cond:
        return Cond("CONTAINS", self, value)

    def is_in(self, *options: Any) -> Cond:
        if len(options) == 1 and isinstance(options[0], list | tuple | set | frozenset):
            options = tuple(options[0])
        return Cond("IN", self, options)

    def type_is(self, dynamodb_type: str) -> Cond:
        return Cond("TYPE", self, dynamodb_type)

    def size(self) -> Size:
        return Size(self)

    # -- update actions ---------------------------------------------------------------------------------

    def set(self, value: Any) -> Action:
        return Action("set", self, value)

    def remove(self) -> Action:
        return Action("remove", self)

    def add(self, value: Any) -> Action:
        """Atomic ADD: a number to a number (starting from 0), or elements to a set."""
        return Action("add", self, value)

    def subtract(self, value: Any) -> Action:
        return Action("subtract", self, value)

    def append(self, values: Iterable[Any]) -> Action:
        return Action("append", self, list(values))

    def prepend(self, values: Iterable[Any]) -> Action:
        return Action("prepend", self, list(values))

    def delete(self, values: Iterable[Any]) -> Action:
        """Remove elements from a set."""
        return Action("delete", self, set(values))

    def if_not_exists(self, value: Any) -> Action:
        """Set the value only if the attribute is absent (counters' first value, a first-seen time)."""
        return Action("if_not_exists", self, value)


class Action:
    """One clause of an UpdateExpression."""

    __slots__ = ("kind", "path", "value")

    def __init__(self, kind: str, path: Path, value: Any = None) -> None:
        self.kind = kind
        self.path = path
        self.value = value

    @property
    def known(self) -> bool:
        """Whether the field's new value is known without reading the item (key maintenance needs it)."""
        return self.path.top_level and self.kind in ("set", "remove")

    def __repr__(self) -> str:
        return f"{self.path!r}.{self.kind}({self.value!r})"


def _empty_set(codec: Any, value: Any) -> bool:
    """Whether ``value`` is an empty set for a set field: DynamoDB cannot store one, and a put leaves the
    attribute out (it reads back as the empty default), so setting it means removing the attribute."""
    return codec.kind in ("SS", "NS", "BS") and isinstance(value, set | frozenset) and not value


def compile_update(
    actions: Iterable[Action], c: Compiler, extra_set: Iterable[str] = (), extra_remove: Iterable[str] = ()
) -> str:
    sets, removes, adds, deletes = list(extra_set), list(extra_remove), [], []
    for action in actions:
        try:
            path, kind, codec = c.path(action.path), action.kind, action.path.codec
            if kind == "set":
                if action.value is None or _empty_set(codec, action.value):
                    removes.append(path)  # what a put stores for it: nothing
                else:
                    sets.append(f"{path} = {c.value(dump_value(codec, action.value))}")
            elif kind == "remove":
                removes.append(path)
            elif kind == "add":
                adds.append(f"{path} {c.value(dump_value(codec, action.value))}")
            elif kind == "subtract":
                sets.append(f"{path} = {path} - {c.value(dump_value(codec, action.value))}")
            elif kind in ("append", "prepend"):
                value = c.value(dump_value(codec, action.value))
                empty = c.value({"L": []})
                current = f"if_not_exists({path}, {empty})"
                combined = (
                    f"list_append({current}, {value})"
                    if kind == "append"
                    else f"list_append({value}, {current})"
                )
                sets.append(f"{path} = {combined}")
            elif kind == "delete":
                deletes.append(f"{path} {c.value(dump_value(codec, action.value))}")
            elif kind == "if_not_exists":
                value = c.value(dump_value(codec, action.value))
                sets.append(f"{path} = if_not_exists({path}, {value})")
            else:
                raise AssertionError(kind)
        except Exception as error:
            if refused(error):
                raise FieldTypeError(
                    action.path.entity, _field_name(action.path), action.path.codec.expected, action.value
                ) from None
            raise
    out = []
    if sets:
        out.append("SET " + ", ".join(sets))
    if removes:
        out.append("REMOVE " + ", ".join(removes))
    if adds:
        out.append("ADD " + ", ".join(adds))
    if deletes:
        out.append("DELETE " + ", ".join(deletes))
    return " ".join(out)
