"""The pre-expression API: Expected, QueryFilter/ScanFilter, KeyConditions, AttributeUpdates, AttributesToGet.

Older SDKs and libraries still send these. Each parameter is validated with DynamoDB's own legacy texts and
then translated into the expression AST, so the legacy API shares the one evaluator (and its compile cache)
with the expression API. The legacy operators map onto existing expression forms:

* ``NULL`` / ``NOT_NULL`` are ``attribute_not_exists`` / ``attribute_exists`` (a NULL-typed attribute is
  "not null"); ``Exists: false`` is ``attribute_not_exists``; ``Value`` alone is ``=``.
* ``NE`` is ``<>``, which (like NE) holds when the attribute is missing.
* ``NOT_CONTAINS`` is false on a missing attribute, unlike ``NOT contains(...)``, so it becomes
  ``attribute_exists(a) AND NOT contains(a, v)``.
* AttributeUpdates ``ADD`` of a list appends (the expression ADD refuses lists), so it becomes
  ``SET a = list_append(if_not_exists(a, []), v)``.

Texts were measured on DynamoDB Local 1.25.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import JAVA_TYPE_NAMES, DynamoDBError, validation
from singletable.engine._expressions import Condition, KeyCondition, Projection, RequestExpressions, Update
from singletable.engine._expressions.ast import (
    AddAction,
    And,
    Between,
    Comparison,
    DeleteAction,
    FunctionCall,
    In,
    Not,
    Or,
    Path,
    ProjectionExpression,
    RemoveAction,
    SetAction,
    UpdateExpression,
    ValuePlaceholder,
)
from singletable.engine._expressions.keycondition import KeyAttrs
from singletable.engine._expressions.values import compare_key, type_of

AV = dict[str, Any]
Entry = dict[str, Any]
INVALID = "One or more parameter values were invalid: "
EMPTY_NAME = "Empty attribute name"
CO_WITHOUT = "ConditionalOperator cannot be used without Filter or Expected"
CO_SINGLE = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
TYPE_MISMATCH = "Type mismatch for attribute to update"
_BAD_OPERAND = "An operand in the update expression has an incorrect data type"
MIXED_PARAMETERS = (
    "Can not use both expression and non-expression parameters in the same request: "
    "Non-expression parameters: {{{legacy}}} Expression parameters: {{{modern}}}"
)

_ORDERED = frozenset({"S", "N", "B"})
_ANY = frozenset({"S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"})
# operator -> (minimum, maximum) number of values (None = unbounded), allowed value types.
_OPERATORS: dict[str, tuple[int, int | None, frozenset[str]]] = {
    "EQ": (1, 1, _ANY),
    "NE": (1, 1, _ANY),
    "LE": (1, 1, _ORDERED),
    "LT": (1, 1, _ORDERED),
    "GE": (1, 1, _ORDERED),
    "GT": (1, 1, _ORDERED),
    "NULL": (0, 0, _ANY),
    "NOT_NULL": (0, 0, _ANY),
    "CONTAINS": (1, 1, frozenset({"S", "N", "B", "BOOL", "NULL"})),
    "NOT_CONTAINS": (1, 1, frozenset({"S", "N", "B", "BOOL", "NULL"})),
    "BEGINS_WITH": (1, 1, frozenset({"S", "B"})),
    "IN": (1, None, _ORDERED),
    "BETWEEN": (2, 2, _ORDERED),
}
_COMPARISONS = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}
_SETS = frozenset({"SS", "NS", "BS"})


class _Values:
    """Collects the literal values of a translation as ``:vN`` placeholders for RequestExpressions."""

    def __init__(self) -> None:
        self.values: dict[str, AV] = {}

    def add(self, av: AV) -> ValuePlaceholder:
        name = f":v{len(self.values)}"
        self.values[name] = av
        return ValuePlaceholder(name)

    def expressions(self) -> RequestExpressions:
        return RequestExpressions(None, self.values or None, uses_expressions=True)


def _value(av: Any, name: str) -> AV:
    """Legacy values get the item-attribute texts, not the ExpressionAttributeValues ones."""
    return codec.validate_value(av, context=codec.ValueContext.ITEM, name=name)


def _check_name(name: Any) -> str:
    if name == "":
        raise validation(EMPTY_NAME)
    return name


def _check_operands(op: str, values: list[AV]) -> None:
    """Arity, then each value's type, then same-type and range order: the order DynamoDB reports them in."""
    low, high, allowed = _OPERATORS[op]
    if len(values) < low or (high is not None and len(values) > high):
        raise validation(f"{INVALID}Invalid number of argument(s) for the {op} ComparisonOperator")
    for av in values:
        tag = type_of(av)
        if tag not in allowed:
            raise validation(f"{INVALID}ComparisonOperator {op} is not valid for {tag} AttributeValue type")
    if len({type_of(av) for av in values}) > 1:
        raise validation(f"{INVALID}AttributeValues inside AttributeValueList must be of same type")
    if op == "BETWEEN" and compare_key(values[0]) > compare_key(values[1]):  # type: ignore[operator]  # N, S or B: ordered
        raise validation(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
        )


def _predicate(name: str, op: str, operands: list[ValuePlaceholder]) -> Any:
    path = Path((name,))
    if op in _COMPARISONS:
        return Comparison(_COMPARISONS[op], path, operands[0])
    if op == "NULL":
        return FunctionCall("attribute_not_exists", (path,))
    if op == "NOT_NULL":
        return FunctionCall("attribute_exists", (path,))
    if op == "CONTAINS":
        return FunctionCall("contains", (path, operands[0]))
    if op == "NOT_CONTAINS":
        exists = FunctionCall("attribute_exists", (path,))
        return And(exists, Not(FunctionCall("contains", (path, operands[0]))))
    if op == "BEGINS_WITH":
        return FunctionCall("begins_with", (path, operands[0]))
    if op == "IN":
        return In(path, tuple(operands))
    return Between(path, operands[0], operands[1])


def _entries(
    params: dict[str, Any], parameter: str, value_keys: tuple[str, ...]
) -> Iterator[tuple[str, Entry]]:
    """The parameter's entries in request order, each with its values validated just before its own checks
    (DynamoDB reports a bad number in one entry only after the checks of the entries before it)."""
    for name, entry in (params.get(parameter) or {}).items():
        if entry is None:  # DynamoDB Local's words (a null entry is no absent one)
            if parameter == "Expected":
                raise validation(f"{INVALID}ExpectedAttributeValue must not be null for Attribute: {name}")
            raise validation(f"The filter condition for an attribute cannot be null: {name}")
        entry = dict(entry)
        for key in value_keys:
            if entry.get(key) is None:
                continue
            if key == "AttributeValueList":
                entry[key] = [_value(av, name) for av in entry[key]]
            else:
                entry[key] = _value(entry[key], name)
        yield name, entry


def _expected_entry(name: str, entry: dict[str, Any], values: _Values) -> Any:
    exists, value = entry.get("Exists"), entry.get("Value")
    op, listed = entry.get("ComparisonOperator"), entry.get("AttributeValueList")
    suffix = f" for Attribute: {name}"
    if exists is not None and op is not None:
        raise validation(f"{INVALID}Exists and ComparisonOperator cannot be used together{suffix}")
    if value is not None and listed is not None:
        raise validation(f"{INVALID}Value and AttributeValueList cannot be used together{suffix}")
    if listed is not None and op is None:
        raise validation(f"{INVALID}AttributeValueList can only be used with a ComparisonOperator{suffix}")
    if op is None:
        if exists is False:
            if value is not None:
                raise validation(f"{INVALID}Value cannot be used when Exists is false{suffix}")
            return FunctionCall("attribute_not_exists", (Path((name,)),))
        if value is None:
            state = "true" if exists else "null"
            raise validation(f"{INVALID}Value must be provided when Exists is {state}{suffix}")
        return Comparison("=", Path((name,)), values.add(value))
    operands = listed if listed is not None else ([value] if value is not None else None)
    if operands is None and op not in ("NULL", "NOT_NULL"):
        raise validation(
            f"{INVALID}Value or AttributeValueList must be used with ComparisonOperator: {op}{suffix}"
        )
    operands = operands or []
    _check_operands(op, operands)
    return _predicate(name, op, [values.add(av) for av in operands])


def _filter_entry(name: str, entry: dict[str, Any], values: _Values) -> Any:
    op = entry["ComparisonOperator"]  # required by the Condition shape
    operands = entry.get("AttributeValueList") or []
    _check_operands(op, operands)
    return _predicate(name, op, [values.add(av) for av in operands])


def _combine(nodes: list[Any], operator: str | None) -> Any:
    joiner = Or if operator == "OR" else And
    node = nodes[0]
    for other in nodes[1:]:
        node = joiner(node, other)
    return node


def _check_conditional_operator(params: dict[str, Any], count: int) -> None:
    if params.get("ConditionalOperator") is None:
        return
    if count == 0:
        raise validation(CO_WITHOUT)
    if count == 1:
        raise validation(CO_SINGLE)


def none_given(params: dict[str, Any], names: tuple[str, ...]) -> bool:
    """Whether the request gives none of ``names``: a request without any condition or projection
    parameter, for which the mixing rule and the expression checks cannot fail, skips them."""
    get = params.get
    return all(get(name) is None for name in names)


def reject_mixed(params: dict[str, Any], legacy: tuple[str, ...], modern: tuple[str, ...]) -> None:
    """DynamoDB refuses a request that mixes legacy parameters with expressions."""
    used_legacy = [name for name in legacy if params.get(name) is not None]
    used_modern = [name for name in modern if params.get(name) is not None]
    if used_legacy and used_modern:
        raise validation(
            MIXED_PARAMETERS.format(legacy=", ".join(used_legacy), modern=", ".join(used_modern))
        )


def expected(params: dict[str, Any]) -> Condition | None:
    """``Expected`` (+ ``ConditionalOperator``) of PutItem, UpdateItem, DeleteItem as a condition."""
    values = _Values()
    entries = _entries(params, "Expected", ("Value", "AttributeValueList"))
    nodes = [_expected_entry(_check_name(name), entry, values) for name, entry in entries]
    _check_conditional_operator(params, len(nodes))
    if not nodes:
        return None
    return values.expressions().condition(_combine(nodes, params.get("ConditionalOperator")))


def filter_condition(
    params: dict[str, Any], parameter: str, key_names: tuple[str, ...] = ()
) -> Condition | None:
    """``QueryFilter`` / ``ScanFilter`` (+ ``ConditionalOperator``); ``key_names`` may not be filtered on."""
    if params.get(parameter) is None and params.get("ConditionalOperator") is None:
        return None  # neither given (most Queries and Scans): nothing below could find anything
    values = _Values()
    entries = _entries(params, parameter, ("AttributeValueList",))
    nodes = [_filter_entry(_check_name(name), entry, values) for name, entry in entries]
    for name in params.get(parameter) or {}:
        if name in key_names:
            raise validation(
                f"{parameter} can only contain non-primary key attributes: Primary key attribute: {name}"
            )
    _check_conditional_operator(params, len(nodes))
    if not nodes:
        return None
    node = _combine(nodes, params.get("ConditionalOperator"))
    return values.expressions().condition(node, "FilterExpression")


_RANGE_OPS = {"EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"}


def key_conditions(params: dict[str, Any], hash_keys: KeyAttrs, range_keys: KeyAttrs) -> KeyCondition:
    """Query's ``KeyConditions``: every entry checked as a condition first, then against the key schema.
    ``hash_keys``/``range_keys`` as for ``RequestExpressions.key_condition``."""
    entries: dict[str, Entry] = {}
    for name, entry in _entries(params, "KeyConditions", ("AttributeValueList",)):
        _check_name(name)
        _check_operands(entry["ComparisonOperator"], entry.get("AttributeValueList") or [])
        entries[name] = entry
    multi = len(hash_keys) > 1 or len(range_keys) > 1
    if not entries or (len(entries) > 2 and not multi):
        raise validation("Conditions can be of length 1 or 2 only")
    missed = validation("Query condition missed key schema element")
    if any(name not in entries for name, _type in hash_keys):
        raise missed
    values = _Values()
    node: Any = None
    for key in hash_keys:
        part = _key_part(key, entries[key[0]], values, is_hash=True)
        node = part if node is None else And(node, part)
    hash_names = {name for name, _type in hash_keys}
    range_types = dict(range_keys if multi else range_keys[:1])
    for name, entry in entries.items():
        if name in hash_names:
            continue
        if name not in range_types:
            raise missed
        node = And(node, _key_part((name, range_types[name]), entry, values, is_hash=False))
    return values.expressions().key_condition(node, hash_keys, range_keys)


def _key_part(key: tuple[str, str], entry: dict[str, Any], values: _Values, *, is_hash: bool) -> Any:
    name, key_type = key
    op = entry["ComparisonOperator"]
    operands = entry.get("AttributeValueList") or []
    if not operands:
        raise validation(f"Only scalar types can be used as {'Hash' if is_hash else 'Range'} Key values")
    if is_hash and op != "EQ":
        raise validation("Query key condition not supported")
    if not is_hash and op not in _RANGE_OPS:
        raise validation("Attempted conditional constraint is not an indexable operation")
    for av in operands:
        if type_of(av) != key_type:
            raise validation(f"{INVALID}Condition parameter type does not match schema type")
        codec.check_key_value(name, av, key_type, is_hash=is_hash, context=codec.KeyContext.KEY)
    return _predicate(name, op, [values.add(av) for av in operands])


def projection(expressions: RequestExpressions, params: dict[str, Any]) -> Projection | None:
    """A read's projection: its ``ProjectionExpression`` (with the request's names), else the older
    ``AttributesToGet``, else None (the whole item)."""
    text = params.get("ProjectionExpression")
    if text is not None:
        return expressions.projection(text)
    return attributes_to_get(params)


def attributes_to_get(params: dict[str, Any]) -> Projection | None:
    """``AttributesToGet``: top-level names only (a dot is part of the name), as a projection."""
    names = params.get("AttributesToGet")
    if names is None:
        return None
    seen: set[str] = set()
    for name in names:
        _check_name(name)
        if name in seen:
            raise validation("Cannot have two attributes with the same name")
        seen.add(name)
    return RequestExpressions(None, None, uses_expressions=True).projection(
        ProjectionExpression(tuple(Path((name,)) for name in names))
    )


class LegacyUpdate:
    """An Update whose item-dependent type errors carry the legacy text."""

    __slots__ = ("_update", "creates_nothing", "paths", "top_level_names")

    def __init__(self, update: Update) -> None:
        self._update = update
        self.paths = update.paths
        self.top_level_names = update.top_level_names
        self.creates_nothing = update.creates_nothing

    def apply(self, item: dict[str, AV] | None) -> dict[str, AV]:
        try:
            return self._update.apply(item)
        except DynamoDBError as error:
            if error.message == _BAD_OPERAND:
                raise validation(TYPE_MISMATCH) from None
            raise

    def project_updated(self, item: dict[str, AV]) -> dict[str, AV]:
        return self._update.project_updated(item)


def attribute_updates(params: dict[str, Any], key_names: tuple[str, ...]) -> LegacyUpdate | None:
    """UpdateItem's ``AttributeUpdates``: PUT, ADD (numbers, sets, lists), DELETE (attribute or members)."""
    if params.get("AttributeUpdates") is None:
        return None
    values = _Values()
    sets: list[SetAction] = []
    removes: list[RemoveAction] = []
    adds: list[AddAction] = []
    deletes: list[DeleteAction] = []
    for name, entry in _entries(params, "AttributeUpdates", ("Value",)):
        _check_name(name)
        if name in key_names:
            raise validation(f"{INVALID}Cannot update attribute {name}. This attribute is part of the key")
        action, value = entry.get("Action") or "PUT", entry.get("Value")
        path = Path((name,))
        if value is None:
            if action != "DELETE":
                raise validation(
                    INVALID + "Only DELETE action is allowed when no attribute value is specified"
                )
            removes.append(RemoveAction(path))
            continue
        tag = type_of(value)
        if action == "PUT":
            sets.append(SetAction(path, values.add(value)))
        elif action == "ADD":
            if tag == "L":
                empty = values.add({"L": []})
                appended = FunctionCall("if_not_exists", (path, empty))
                sets.append(SetAction(path, FunctionCall("list_append", (appended, values.add(value)))))
            elif tag == "N" or tag in _SETS:
                adds.append(AddAction(path, values.add(value)))
            else:
                raise validation(f"{INVALID}ADD action is not supported for the type {JAVA_TYPE_NAMES[tag]}")
        elif tag in _SETS:
            deletes.append(DeleteAction(path, values.add(value)))
        else:
            raise validation(
                f"{INVALID}DELETE action with value is not supported for the type {JAVA_TYPE_NAMES[tag]}"
            )
    node = UpdateExpression(tuple(sets), tuple(removes), tuple(adds), tuple(deletes))
    if not (sets or removes or adds or deletes):
        return None
    return LegacyUpdate(values.expressions().update(node))
