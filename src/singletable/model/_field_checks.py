"""Every value a write stores passes the field's declared validation first, so the model never writes what
it cannot read back.

The field codecs (:mod:`._field_values`) check a value's *type*; an entity declares more: constraints
(``Field(ge=0)``, ``max_length``, ``pattern``), ``Literal`` choices, enums, ``Annotated`` validators and
``@field_validator`` methods. Those are checked here with pydantic's own machinery, never re-implemented:

- a whole entity (create, put, batch_write, and their transaction twins) is validated as a whole, model
  validators included (:func:`check_entity`);
- each value a partial update gives (``set``, ``if_not_exists``, the elements of ``append``/``add``) is
  validated by a ``TypeAdapter`` of the field's annotation with its ``FieldInfo`` metadata and the
  entity's field validators for it, built once per field (:func:`checked_actions`). A model validator
  needs the whole entity, which a partial update does not hold: an entity that declares one has its
  updates planned from the stored item (read first, the update conditioned on every field it did not set
  being stored as read), and the entity the update leaves is validated whole (:func:`updated_entity`).
- an update that computes a number on the server (``add``, ``subtract``) cannot know the result before the
  request: each numeric bound (``ge``, ``gt``, ``le``, ``lt``) becomes a condition on the stored value, so
  DynamoDB refuses a result out of bounds and nothing is written; a field with any other validation
  (choices, validators, other constraints) refuses such actions before sending, naming the field.

Reads validate the same way (:meth:`EntityMeta.from_item`): an item breaking a rule raises
:class:`StoredItemError` on every read path.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

import annotated_types
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    WrapValidator,
)

from singletable.model._errors import FieldValueError
from singletable.model._expr import Action, Cond, Path, typed_value

if typing.TYPE_CHECKING:
    from singletable.model._entity_meta import EntityMeta

_MODES = {"after": AfterValidator, "before": BeforeValidator, "wrap": WrapValidator, "plain": PlainValidator}
_BOUNDS = (annotated_types.Ge, annotated_types.Gt, annotated_types.Le, annotated_types.Lt)
# Plain types whose codec check is all their validation needs (when nothing else is declared on them).
_PLAIN = (str, int, float, bool, bytes, Decimal)


@dataclass(slots=True, eq=False)
class FieldCheck:
    """What one field (or nested member) declares beyond its type, ready to check values with.

    ``adapter`` validates a value (None: the codec's type check is all there is); ``element`` validates one
    element of a list or set; ``bounds`` are the numeric bounds a server-side ``add`` is conditioned on;
    ``computed_ok`` says whether an action computed on the server (add, subtract, append, delete) can be
    kept valid by those conditions alone."""

    entity: str
    field: str
    expected: str
    adapter: TypeAdapter[Any] | None
    element: TypeAdapter[Any] | None
    bounds: tuple[Any, ...]
    computed_ok: bool

    def validate(self, value: Any, shown: str | None = None) -> Any:
        """``value`` as validation returns it; :class:`FieldValueError` naming the field if refused."""
        if self.adapter is None or value is None:
            return value
        return _run(self.adapter, value, self.entity, shown or self.field, self.expected)

    def validate_elements(self, values: Any, shown: str) -> Any:
        if self.element is None:
            return values
        checked = [_run(self.element, v, self.entity, shown, self.expected) for v in values]
        return type(values)(checked) if isinstance(values, set | frozenset) else checked


def _run(adapter: TypeAdapter[Any], value: Any, entity: str, field: str, expected: str) -> Any:
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        raise FieldValueError(entity, field, expected, value, _reason(error)) from None
    except (TypeError, AttributeError, KeyError) as error:  # a validator that needed more than one value
        raise FieldValueError(entity, field, expected, value, f"{type(error).__name__}: {error}") from None


def _reason(error: ValidationError) -> str:
    problem = error.errors()[0]
    return str(problem["msg"])


def _unwrapped(annotation: Any) -> tuple[Any, list[Any]]:
    """``Annotated[X | None, m...]`` -> (X, [m...]): the type a value must have, and its metadata."""
    metadata: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = typing.get_args(annotation)
            metadata += extra
        elif origin in (typing.Union, types.UnionType):
            options = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation, metadata
            annotation = options[0]
        else:
            return annotation, metadata


def _decorators(model: type[BaseModel], name: str) -> list[Any]:
    """The model's ``@field_validator`` methods for field ``name``, as ``Annotated`` validators, in the
    order pydantic applies them."""
    out = []
    for decorator in model.__pydantic_decorators__.field_validators.values():
        if name in decorator.info.fields or "*" in decorator.info.fields:
            out.append(_MODES[decorator.info.mode](decorator.func))
    return out


def _adapter(annotation: Any, metadata: list[Any], model: type[BaseModel] | None) -> TypeAdapter[Any]:
    target = Annotated[(annotation, *metadata)] if metadata else annotation
    module = model.__module__ if model is not None else None  # forward references resolve there
    config = dict(model.model_config) if model is not None else None
    if config is not None:
        for own in ("ignored_types", "extra", "populate_by_name", "title"):
            config.pop(own, None)
        try:
            return TypeAdapter(target, config=config, module=module)  # type: ignore[arg-type]
        except Exception:  # a type with its own config (a nested model) takes none
            pass
    return TypeAdapter(target, module=module)


def _build(entity: str, shown: str, annotation: Any, metadata: list[Any], model: type[BaseModel] | None,
           validators: list[Any], expected: str) -> FieldCheck:  # fmt: skip
    inner, inner_meta = _unwrapped(annotation)
    declared = [*metadata, *inner_meta]
    bounds = tuple(m for m in declared if isinstance(m, _BOUNDS))
    other = [m for m in declared if not isinstance(m, _BOUNDS)]
    choices = typing.get_origin(inner) is typing.Literal or (
        isinstance(inner, type) and issubclass(inner, enum.Enum)
    )
    config_rules = bool(model is not None and _config_rules(model))
    plain = inner in _PLAIN and not declared and not validators and not config_rules
    adapter = None if plain else _adapter(annotation, [*metadata, *validators], model)
    element = None
    origin = typing.get_origin(inner)
    if origin in (list, set, frozenset, tuple) and typing.get_args(inner):
        element_type = typing.get_args(inner)[0]
        element = _adapter(element_type, [], model)
    computed_ok = not (other or validators or choices or config_rules)
    return FieldCheck(entity, shown, expected, adapter, element, bounds, computed_ok)


def _config_rules(model: type[BaseModel]) -> bool:
    config = model.model_config
    return any(
        config.get(name)
        for name in (
            "str_strip_whitespace",
            "str_to_lower",
            "str_to_upper",
            "str_min_length",
            "str_max_length",
        )
    )


def field_check(meta: EntityMeta, name: str) -> FieldCheck:
    """The check of a top-level field, built once per entity and field."""
    checks = meta.__dict__.setdefault("_checks", {})
    check = checks.get(name)
    if check is None:
        info = meta.cls.model_fields[name]
        check = checks[name] = _build(
            meta.type,
            name,
            info.annotation,
            list(info.metadata),
            meta.cls,
            _decorators(meta.cls, name),
            meta.fields[name].codec.expected,
        )
    return check


def path_check(meta: EntityMeta, path: Path) -> FieldCheck:
    """The check of a (possibly nested) path: a nested model's field with its own metadata and field
    validators, a list element or a dict member with the declared element type."""
    if path.top_level:
        return field_check(meta, path.field)
    checks = meta.__dict__.setdefault("_checks", {})
    shown = repr(path).split(".f.", 1)[1]
    check = checks.get(shown)
    if check is not None:
        return check
    info = meta.cls.model_fields[path.field]
    annotation, metadata, model, validators = info.annotation, list(info.metadata), None, []
    for step in path.steps[1:]:
        inner, _ = _unwrapped(annotation)
        args = typing.get_args(inner)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            name = _model_field(inner, step)
            if name is None:
                annotation = Any
                break
            sub = inner.model_fields[name]
            annotation, metadata, model, validators = (
                sub.annotation,
                list(sub.metadata),
                inner,
                _decorators(inner, name),
            )
        elif typing.get_origin(inner) in (list, tuple) and args:
            annotation, metadata, model, validators = args[0], [], None, []
        elif typing.get_origin(inner) is dict and len(args) == 2:
            annotation, metadata, model, validators = args[1], [], None, []
        else:
            annotation, metadata, model, validators = Any, [], None, []
            break
    check = checks[shown] = _build(
        meta.type, shown, annotation, metadata, model, validators, path.codec.expected
    )
    return check


def _model_field(model: type[BaseModel], step: str | int) -> str | None:
    for name, info in model.model_fields.items():
        if step in (name, info.alias):
            return name
    return None


# -- partial updates -------------------------------------------------------------------------------------


def checked_actions(meta: EntityMeta, actions: Iterable[Action]) -> tuple[list[Action], list[BoundCheck]]:
    """The update's actions with each value validated (as validation returns it), and the bound checks
    that keep numbers computed on the server inside their declared bounds."""
    out: list[Action] = []
    bounds: list[BoundCheck] = []
    for action in actions:
        check = path_check(meta, action.path)
        kind, value = action.kind, action.value
        removes = kind == "remove" or (kind == "set" and (value is None or _empty_set(action)))
        if removes and action.path.top_level and meta.fields[action.path.field].required:
            raise FieldValueError(meta.type, check.field, check.expected, value, _REQUIRED)
        if kind in ("set", "if_not_exists"):
            if value is not None and not _empty_set(action) and check.adapter is not None:
                typed_value(action.path, action.path.codec, value)  # its type first: FieldTypeError
                value = check.validate(value, check.field)
        elif kind in ("add", "subtract", "append", "prepend", "delete"):
            if not check.computed_ok:
                raise FieldValueError(
                    meta.type,
                    check.field,
                    check.expected,
                    value,
                    f"{kind}() computes the new value on the server, so the field's declared validation "
                    "cannot be checked before writing; set it to its new value instead",
                )
            if isinstance(value, list | set | frozenset | tuple) and check.element is not None:
                typed_value(action.path, action.path.codec, value)
                value = check.validate_elements(value, check.field)
            elif check.bounds and _is_number(value):
                bounds.append(BoundCheck(meta.type, check.field, action.path, kind, value, check.bounds))
        if value is not action.value:
            action = Action(kind, action.path, value)
        out.append(action)
    return out, bounds


# Why a partial update may not remove a required field: the item would lack it, and every read refuses that.
_REQUIRED = (
    "the field is required (no default), and removing it (None, an empty set, remove()) would leave an item "
    "its reads refuse"
)


def _empty_set(action: Action) -> bool:
    return isinstance(action.value, set | frozenset) and not action.value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


@dataclass(slots=True, eq=False)
class BoundCheck:
    """A number the update computes on the server (``add``/``subtract``) and the field's declared bounds:
    the update is conditioned on the stored value leaving the result inside them."""

    entity: str
    field: str
    path: Path
    kind: str
    delta: Any
    bounds: tuple[Any, ...]

    def _change(self) -> Any:
        return -self.delta if self.kind == "subtract" else self.delta

    def condition(self) -> Cond | None:
        """The stored value that keeps ``stored + change`` in bounds; a missing attribute counts as 0 for
        ``add`` (DynamoDB's ADD starts there) and fails ``subtract``."""
        change = self._change()
        conds: list[Cond] = []
        fresh_ok = self.kind == "add" and _inside(change, self.bounds)
        for bound in self.bounds:
            conds.append(_stored_bound(self.path, bound, change))
        cond = conds[0]
        for more in conds[1:]:
            cond = cond & more
        return self.path.not_exists() | cond if fresh_ok else cond

    def violated(self, stored: Any) -> str | None:
        """Why the result of this update on ``stored`` (None: absent) breaks a bound, or None."""
        change = self._change()
        if stored is None:
            if self.kind == "subtract":
                return None
            result = change
        else:
            result = _plus(stored, change)
        for bound in self.bounds:
            if not _inside(result, (bound,)):
                return f"{self.kind}({self.delta!r}) would make it {result!r}, {_bound_text(bound)}"
        return None


def _stored_bound(path: Path, bound: Any, change: Any) -> Cond:
    if isinstance(bound, annotated_types.Ge):
        return path >= _plus(bound.ge, -change)
    if isinstance(bound, annotated_types.Gt):
        return path > _plus(bound.gt, -change)
    if isinstance(bound, annotated_types.Le):
        return path <= _plus(bound.le, -change)
    return path < _plus(bound.lt, -change)


def _plus(a: Any, b: Any) -> Any:
    """``a + b`` for numbers of any two kinds (a Decimal and a float are added as decimals, as DynamoDB
    adds them)."""
    if isinstance(a, Decimal) != isinstance(b, Decimal):
        return Decimal(str(a)) + Decimal(str(b))
    return a + b


def _inside(value: Any, bounds: Iterable[Any]) -> bool:
    for bound in bounds:
        if isinstance(bound, annotated_types.Ge) and not value >= bound.ge:
            return False
        if isinstance(bound, annotated_types.Gt) and not value > bound.gt:
            return False
        if isinstance(bound, annotated_types.Le) and not value <= bound.le:
            return False
        if isinstance(bound, annotated_types.Lt) and not value < bound.lt:
            return False
    return True


def _bound_text(bound: Any) -> str:
    for attr, words in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if hasattr(bound, attr):
            return f"which must be {words} {getattr(bound, attr)!r}"
    return str(bound)


# -- whole entities --------------------------------------------------------------------------------------


def check_entity(meta: EntityMeta, values: dict[str, Any]) -> None:
    """Validate a whole entity's values as the entity declares them, model validators included:
    :class:`FieldValueError` naming the first field refused (or the entity, for a model validator)."""
    plain = meta.__dict__.get("_plain_values")
    if plain is None:
        decorators = meta.cls.__pydantic_decorators__
        plain = meta.__dict__["_plain_values"] = not (
            decorators.model_validators or decorators.root_validators or decorators.validators
        ) and all(field_check(meta, name).adapter is None for name in meta.fields)
    if plain:
        return
    try:
        meta.cls.model_validate(values)
    except ValidationError as error:
        problem = error.errors()[0]
        loc = problem["loc"]
        name = _field_named(meta, loc[0]) if loc else None
        reason = str(problem["msg"])
        if name is None:
            raise FieldValueError(meta.type, None, meta.type, values, reason) from None
        check = field_check(meta, name)
        raise FieldValueError(meta.type, name, check.expected, values.get(name), reason) from None


def _field_named(meta: EntityMeta, loc: Any) -> str | None:
    if loc in meta.fields:
        return loc  # type: ignore[no-any-return]
    for name, info in meta.cls.model_fields.items():
        if info.alias == loc:
            return name
    return None


def bound_refusal(bounds: list[BoundCheck] | None, item: Any, plain: bool) -> FieldValueError | None:
    """After an update's condition failed (``plain``: not a version conflict), with the stored item it
    returned: the :class:`FieldValueError` of the first number whose result would break its bounds, or None
    when the failure is something else (the caller's condition, a concurrent change)."""
    if not bounds or not plain:
        return None
    for bound in bounds:
        stored = _stored_number(item, bound.path)
        why = bound.violated(stored)
        if why is not None:
            return FieldValueError(bound.entity, bound.field, bound.path.codec.expected, bound.delta, why)
    return None


def _stored_number(item: Any, path: Path) -> Any:
    """The number stored at ``path`` in a raw item (AttributeValues), or None if absent."""
    av: Any = {"M": item} if item else None
    for step in path.steps:
        if av is None:
            return None
        if "M" in av:
            av = av["M"].get(step) if isinstance(step, str) else None
        elif "L" in av and isinstance(step, int):
            av = av["L"][step] if 0 <= step < len(av["L"]) else None
        else:
            return None
    if av is None or "N" not in av:
        return None
    return path.codec.load(av) if path.codec.kind == "N" else Decimal(av["N"])


# -- partial updates of entities with model validators ---------------------------------------------------


def has_entity_rules(meta: EntityMeta) -> bool:
    """Whether the entity declares validation of the whole object (``@model_validator``), which a partial
    update can only satisfy by planning from the stored item."""
    rules = meta.__dict__.get("_entity_rules")
    if rules is None:
        decorators = meta.cls.__pydantic_decorators__
        rules = meta.__dict__["_entity_rules"] = bool(
            decorators.model_validators or decorators.root_validators
        )
    return rules  # type: ignore[no-any-return]


def fields_not_set(meta: EntityMeta, known: Mapping[str, Any]) -> list[str]:
    """The stored fields an update does not set: what it reads, validates with and is conditioned on."""
    return [n for n, spec in meta.fields.items() if spec.stored and n not in known]


def updated_entity(meta: EntityMeta, stored: Mapping[str, Any], actions: Iterable[Action]) -> dict[str, Any]:
    """The entity's values after the update's top-level actions apply to ``stored`` (the item as read,
    which the update is conditioned on, so the server computes the same). A nested action changes a member
    whose own rules were checked; the whole is validated with the rest as stored."""
    values = dict(stored)
    for action in actions:
        if not action.path.top_level:
            continue
        name, kind, value = action.path.field, action.kind, action.value
        current = values.get(name)
        if kind == "set":
            values[name] = value
        elif kind == "remove":
            values[name] = None
        elif kind == "if_not_exists":
            values[name] = value if current is None else current
        elif kind == "add":
            if isinstance(value, set | frozenset):
                values[name] = set(current or ()) | set(value)
            else:
                values[name] = (current or 0) + value
        elif kind == "subtract":
            values[name] = (current or 0) - value
        elif kind == "append":
            values[name] = [*(current or ()), *value]
        elif kind == "prepend":
            values[name] = [*value, *(current or ())]
        elif kind == "delete":
            values[name] = set(current or ()) - set(value)
    return {k: v for k, v in values.items() if v is not None}
