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
  request: each numeric bound (``ge``, ``gt``, ``le``, ``lt``) becomes a condition on the stored value
  (:mod:`singletable.model._bounds`), so DynamoDB refuses a result out of bounds and nothing is written; a
  field with any other validation (choices, validators, other constraints) refuses such actions before
  sending, naming the field.
- a field validator that takes pydantic's ``ValidationInfo`` (``def check(cls, value, info)``, or an
  ``Annotated`` validator taking ``info``) may read the entity's other fields in ``info.data``, which a lone
  value does not have. It counts as a rule over the whole entity, like a model validator: a partial update
  reads the stored item and validates the entity it leaves, so ``info.data`` holds the fields validated
  before it (pydantic's order: the fields declared above it). It never runs on a value alone: a projection
  read (which holds only some fields) does not run it.

Reads validate the same way (:meth:`EntityMeta.from_item`): an item breaking a rule raises
:class:`StoredItemError` on every read path.
"""

from __future__ import annotations

import enum
import inspect
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

from singletable.model._bounds import BoundCheck
from singletable.model._errors import FieldValueError
from singletable.model._expr import Action, Path, typed_value

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
    order pydantic applies them -- but those taking ``info``, which need the whole entity."""
    out = []
    for decorator in model.__pydantic_decorators__.field_validators.values():
        if name in decorator.info.fields or "*" in decorator.info.fields:
            validator = _MODES[decorator.info.mode](decorator.func)
            if not _takes_info(validator):
                out.append(validator)
    return out


def _takes_info(validator: Any) -> bool:
    """Whether a pydantic validator (``AfterValidator(f)``...) passes ``f`` a ``ValidationInfo``: one more
    positional parameter than the value (and, for a wrap validator, the handler)."""
    func = getattr(validator, "func", None)
    if func is None or not isinstance(validator, tuple(_MODES.values())):
        return False
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) > (2 if isinstance(validator, WrapValidator) else 1)


def _whole_entity_validators(model: type[BaseModel]) -> bool:
    """Whether a field of ``model`` has a validator taking ``info`` (``info.data``: the other fields)."""
    for decorator in model.__pydantic_decorators__.field_validators.values():
        if _takes_info(_MODES[decorator.info.mode](decorator.func)):
            return True
    return any(_takes_info(m) for info in model.model_fields.values() for m in info.metadata)


def _adapter(annotation: Any, metadata: list[Any], model: type[BaseModel] | None) -> TypeAdapter[Any]:
    target = Annotated[(annotation, *metadata)] if metadata else annotation
    module = model.__module__ if model is not None else None  # forward references resolve there
    config = dict(model.model_config) if model is not None else None
    if config is not None:
        for own in ("ignored_types", "extra", "populate_by_name", "title"):
            config.pop(own, None)
        try:
            # target is a type form built at run time (Annotated[...]), which no overload names
            return TypeAdapter(target, config=config, module=module)  # type: ignore[call-overload]
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
    plain = not declared and not validators and not config_rules and _codec_checks_all(inner, set())
    adapter = None if plain else _adapter(annotation, [*metadata, *validators], model)
    element = None
    origin = typing.get_origin(inner)
    if origin in (list, set, frozenset, tuple) and typing.get_args(inner):
        element_type = typing.get_args(inner)[0]
        element = _adapter(element_type, [], model)
    computed_ok = not (other or validators or choices or config_rules)
    return FieldCheck(entity, shown, expected, adapter, element, bounds, computed_ok)


def _codec_checks_all(annotation: Any, seen: set[type[BaseModel]]) -> bool:
    """Whether a value of this type needs nothing checked beyond what its codec checks when it is stored:
    a scalar, a list, set or string-keyed dict of such, or a nested model whose members are all such and
    which declares no validators, constraints or string rules. pydantic would only repeat the type checks
    there, at a cost a write pays on every call (a nested model is validated whole)."""
    inner, metadata = _unwrapped(annotation)
    if metadata:
        return False
    if inner in _PLAIN:
        return True
    origin, args = typing.get_origin(inner), typing.get_args(inner)
    if origin in (list, set, frozenset):
        return len(args) == 1 and _codec_checks_all(args[0], seen)
    if origin is dict:
        return len(args) == 2 and args[0] is str and _codec_checks_all(args[1], seen)
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return _plain_model(inner, seen)
    return False


def _plain_model(model: type[BaseModel], seen: set[type[BaseModel]]) -> bool:
    if model in seen:
        return False  # a model that contains itself is validated
    seen.add(model)
    decorators = model.__pydantic_decorators__
    if (
        decorators.validators
        or decorators.field_validators
        or decorators.model_validators
        or decorators.root_validators
        or _config_rules(model)
        or model.model_config.get("strict")
    ):
        return False
    return all(
        not info.metadata and _codec_checks_all(info.annotation, seen) for info in model.model_fields.values()
    )


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
            [m for m in info.metadata if not _takes_info(m)],  # those run with the whole entity
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
        # What may leave the field absent or NULL: remove(), and set()/if_not_exists() of None or an empty
        # set (if_not_exists stores its value when the attribute is missing: a NULL, or nothing).
        empty = value is None or _empty_set(action)
        removes = kind == "remove" or (kind in ("set", "if_not_exists") and empty)
        required = action.path.top_level and meta.fields[action.path.field].required
        if removes and required:
            raise FieldValueError(meta.type, check.field, check.expected, value, _REQUIRED)
        if kind == "delete" and required:
            raise FieldValueError(meta.type, check.field, check.expected, value, _REQUIRED_DELETE)
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
    "the field is required (no default), and removing it (None, an empty set, remove(), if_not_exists() of "
    "None or an empty set) would leave an item its reads refuse"
)


# Why delete() may not take elements from a required set: taking the last one removes the attribute (DynamoDB
# stores no empty set), and no condition can tell beforehand whether the elements named are all there are.
_REQUIRED_DELETE = (
    "the field is required (no default), and delete() could take its last element, which removes the "
    "attribute and leaves an item its reads refuse; set it to its new value instead"
)


def _empty_set(action: Action) -> bool:
    return isinstance(action.value, set | frozenset) and not action.value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


# -- whole entities --------------------------------------------------------------------------------------


def check_entity(meta: EntityMeta, values: Mapping[str, Any]) -> None:
    """Validate a whole entity's values as the entity declares them, model validators included:
    :class:`FieldValueError` naming the first field refused (or the entity, for a model validator)."""
    if not needs_entity_check(meta):
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


def needs_entity_check(meta: EntityMeta) -> bool:
    """Whether the entity declares anything its codecs do not check (constraints, choices, validators):
    else :func:`check_entity` has nothing to do (worked out once per entity: every write asks)."""
    plain = meta.__dict__.get("_plain_values")
    if plain is None:
        decorators = meta.cls.__pydantic_decorators__
        plain = meta.__dict__["_plain_values"] = not (
            has_entity_rules(meta) or decorators.validators
        ) and all(field_check(meta, name).adapter is None for name in meta.fields)
    return not plain


def _field_named(meta: EntityMeta, loc: Any) -> str | None:
    if loc in meta.fields:
        return loc
    for name, info in meta.cls.model_fields.items():
        if info.alias == loc:
            return name
    return None


# -- partial updates of entities with model validators ---------------------------------------------------


def has_entity_rules(meta: EntityMeta) -> bool:
    """Whether the entity declares validation of the whole object (``@model_validator``, or a field
    validator reading the other fields through ``info``), which a partial update can only satisfy by
    planning from the stored item."""
    rules = meta.__dict__.get("_entity_rules")
    if rules is None:
        decorators = meta.cls.__pydantic_decorators__
        rules = meta.__dict__["_entity_rules"] = bool(
            decorators.model_validators or decorators.root_validators or _whole_entity_validators(meta.cls)
        )
    return rules


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
