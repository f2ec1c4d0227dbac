"""Key condition expressions: reduce the AST to a hash-key value and one optional range-key test.

DynamoDB checks each condition's shape while walking the tree (operators, nesting, operand types) and the
key schema only afterwards, so the schema errors are raised last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._errors import validation
from .ast import And, Between, Comparison, FunctionCall, In, Not, Or, Path, ValuePlaceholder
from .conditions import (
    CONDITION_FUNCTIONS,
    NOT_IN_CONDITION,
    NOT_THIS_WAY,
    ORDERED,
    UPDATE_FUNCTIONS,
    arity,
    between_check,
    distinct,
    value_type_check,
)
from .paths import AV, Binder
from .values import type_of

_INVALID = "Invalid condition in KeyConditionExpression: "
_KCE = "Invalid KeyConditionExpression: "
_KEY_FIRST = " operator must have the key attribute as its first operand"
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True, slots=True)
class KeyCondition:
    """What a Query needs from its key condition: values already checked against the key's types."""

    hash_value: AV
    range_op: str | None = None  # "=", "<", "<=", ">", ">=", "BETWEEN", "BEGINS_WITH"
    range_values: tuple[AV, ...] = ()


@dataclass(frozen=True, slots=True)
class MultiKeyValues(KeyCondition):
    """A key condition on multi-attribute keys (its own class, so the usual one stays three fields): the
    values of the HASH attributes after the first, and of the RANGE attributes tested by equality before the
    one ``range_op`` tests, each in key-schema order."""

    hash_rest: tuple[AV, ...] = ()
    range_equal: tuple[AV, ...] = ()


# A key's attributes for the compiler: (name, type) of each HASH attribute, then of each RANGE attribute.
KeyAttrs = tuple[tuple[str, str], ...]


def and_terms(node: Any, out: list[Any]) -> list[Any]:
    """The terms of a chain of ANDs, left to right, appended to ``out`` (also read by SearchConditions)."""
    if isinstance(node, And):
        and_terms(node.left, out)
        and_terms(node.right, out)
    else:
        out.append(node)
    return out


class CompiledKeyCondition:
    def __init__(self, node: Any, binder: Binder, hash_keys: KeyAttrs, range_keys: KeyAttrs) -> None:
        self.binder = binder
        by_key: dict[str, tuple[str, tuple[str, ...]]] = {}
        for part in and_terms(node, []):
            name, op, operands = self._one(part)
            if name in by_key:
                raise validation(_KCE + "KeyConditionExpressions must only contain one condition per key")
            by_key[name] = (op, operands)
        self.multi: MultiKeyCondition | None = None
        if len(hash_keys) > 1 or len(range_keys) > 1:
            self.multi = MultiKeyCondition(by_key, hash_keys, range_keys)
            self.top_level_names = frozenset(by_key)
            return
        hash_key, range_key = hash_keys[0], range_keys[0] if range_keys else None
        if len(by_key) > 2:
            keys = 1 if range_key is None else 2
            raise validation(
                f"The number of query conditions ({len(by_key)}) exceeds the number of key attributes "
                f"defined in the schema ({keys})"
            )
        hash_name, self.hash_type = hash_key
        if hash_name not in by_key:
            raise validation(f"Query condition missed key schema element: {hash_name}")
        hash_op, hash_values = by_key.pop(hash_name)
        self.range_type: str | None = None
        self.range_op: str | None = None
        self.range_names: tuple[str, ...] = ()
        for name, (op, names) in by_key.items():
            if range_key is None or name != range_key[0]:
                missing = range_key[0] if range_key is not None else name
                raise validation(f"Query condition missed key schema element: {missing}")
            self.range_type, self.range_op, self.range_names = range_key[1], op, names
        if hash_op != "=":
            raise validation("Query key condition not supported")
        self.hash_name = hash_values[0]
        self.top_level_names = frozenset([hash_name, *by_key])

    def bind(self, values: dict[str, AV]) -> KeyCondition:
        if self.multi is not None:
            return self.multi.bind(values)
        hash_value = values[self.hash_name]
        if type_of(hash_value) != self.hash_type:
            raise schema_mismatch()
        if self.range_op is None:
            return KeyCondition(hash_value)
        range_values = tuple(values[name] for name in self.range_names)
        for av in range_values:
            if type_of(av) != self.range_type:
                raise schema_mismatch()
        return KeyCondition(hash_value, self.range_op, range_values)

    def _one(self, node: Any) -> tuple[str, str, tuple[str, ...]]:
        """One condition of the AND chain: (key name, operator with the key first, value placeholders)."""
        operands, op = self._operands(node)
        name, op = self._key_operand(operands, op)
        values = tuple(
            self.binder.value(side.name) for side in operands if isinstance(side, ValuePlaceholder)
        )
        return name, op, values

    def _operands(self, node: Any) -> tuple[tuple[Any, ...], str]:
        """The condition's operands and operator, with the checks DynamoDB makes while walking the tree."""
        b = self.binder
        if isinstance(node, Or):
            raise validation("Invalid operator used in KeyConditionExpression: OR")
        if isinstance(node, Not):
            raise validation("Invalid operator used in KeyConditionExpression: NOT")
        if isinstance(node, In):
            raise validation("Invalid operator used in KeyConditionExpression: IN")
        if isinstance(node, Comparison):
            if node.op == "<>":
                raise validation("Invalid operator used in KeyConditionExpression: <>")
            operands: tuple[Any, ...] = (node.left, node.right)
            op = node.op
            distinct(b, op, node.left, (node.right,))
            if op != "=":
                for side in operands:
                    b.checks.append(value_type_check(b, side, op, ORDERED) or _noop)
            return operands, op
        if isinstance(node, Between):
            operands = (node.operand, node.low, node.high)
            distinct(b, "BETWEEN", node.operand, (node.low, node.high))
            for side in operands:
                b.checks.append(value_type_check(b, side, "BETWEEN", ORDERED) or _noop)
            b.checks.append(between_check(b, node.low, node.high) or _noop)
            return operands, "BETWEEN"
        if isinstance(node, FunctionCall):
            return self._begins_with(node)
        raise b.error("Syntax error")  # pragma: no cover - the AST has no other condition kinds

    def _begins_with(self, node: FunctionCall) -> tuple[tuple[Any, ...], str]:
        """A function call: only ``begins_with`` is a key condition."""
        b = self.binder
        name = node.name
        if name in CONDITION_FUNCTIONS and name != "begins_with":
            raise validation(f"Invalid operator used in KeyConditionExpression: {name}")
        if name == "size":
            raise b.error(NOT_THIS_WAY + name)
        if name in UPDATE_FUNCTIONS:
            raise b.error(NOT_IN_CONDITION + name)
        if name != "begins_with":
            raise b.error(f"Invalid function name; function: {name}")
        arity(b, node, 2)
        distinct(b, name, node.args[0], (node.args[1],))
        for side in node.args:
            b.checks.append(value_type_check(b, side, name, frozenset({"S", "B"})) or _noop)
        return tuple(node.args), "BEGINS_WITH"

    def _key_operand(self, operands: tuple[Any, ...], op: str) -> tuple[str, str]:
        """The key attribute the condition tests, and the operator as if the key were written first."""
        b = self.binder
        for side in operands:
            if isinstance(side, FunctionCall):
                if side.name in UPDATE_FUNCTIONS:
                    raise b.error(NOT_IN_CONDITION + side.name)
                raise validation("KeyConditionExpressions cannot contain nested operations")
        paths = [i for i, side in enumerate(operands) if isinstance(side, Path)]
        if not paths:
            raise validation(_INVALID + "No key attribute specified")
        if len(paths) > 1:
            raise validation(_INVALID + "Multiple attribute names used in one condition")
        path = b.path(operands[paths[0]])
        if len(path) > 1:
            raise validation("KeyConditionExpressions cannot have conditions on nested attributes")
        if paths[0] != 0:
            if op == "BEGINS_WITH":
                raise validation(_INVALID + "begins_with" + _KEY_FIRST)
            if op == "BETWEEN":
                raise validation(_INVALID + "BETWEEN" + _KEY_FIRST)
            op = _FLIPPED[op]
        return str(path[0]), op


class MultiKeyCondition:
    """A key condition on an index with multi-attribute keys: every HASH attribute by equality, then RANGE
    attributes from the first, each by equality but the last one given, which may be any key test."""

    def __init__(
        self, by_key: dict[str, tuple[str, tuple[str, ...]]], hash_keys: KeyAttrs, range_keys: KeyAttrs
    ) -> None:
        for name, _type in hash_keys:
            if name not in by_key:
                raise validation(f"Query condition missed key schema element: {name}")
        if any(by_key[name][0] != "=" for name, _type in hash_keys):
            raise validation("Query key condition not supported")
        known = {name for name, _type in hash_keys + range_keys}
        if any(name not in known for name in by_key):
            raise validation("Query key condition not supported")
        range_names = [name for name, _type in range_keys]
        for position, later in enumerate(range_names):
            if later not in by_key:
                continue
            for prior in range_names[:position]:
                if prior not in by_key or by_key[prior][0] != "=":
                    raise validation(
                        f"RANGE key attributes {prior} must have equality conditions specified in the query "
                        f"because a condition is present on key attribute {later}"
                    )
        # (value placeholder, type) of each HASH attribute; (operator, placeholders, type) of each RANGE
        # attribute tested, a prefix of the RANGE attributes now.
        self.hash_parts = [(by_key[name][1][0], key_type) for name, key_type in hash_keys]
        self.range_parts = [(*by_key[name], key_type) for name, key_type in range_keys if name in by_key]

    def bind(self, values: dict[str, AV]) -> MultiKeyValues:
        hash_values = []
        for name, key_type in self.hash_parts:
            av = values[name]
            if type_of(av) != key_type:
                raise schema_mismatch()
            hash_values.append(av)
        tested: list[tuple[str, tuple[AV, ...]]] = []
        for op, names, key_type in self.range_parts:
            avs = tuple(values[name] for name in names)
            if any(type_of(av) != key_type for av in avs):
                raise schema_mismatch()
            tested.append((op, avs))
        if not tested:
            return MultiKeyValues(hash_values[0], hash_rest=tuple(hash_values[1:]))
        last_op, last_values = tested[-1]
        return MultiKeyValues(
            hash_values[0],
            last_op,
            last_values,
            hash_rest=tuple(hash_values[1:]),
            range_equal=tuple(avs[0] for _op, avs in tested[:-1]),
        )


def _noop(values: dict[str, AV]) -> None:
    return None


def schema_mismatch() -> Exception:
    return validation(
        "One or more parameter values were invalid: Condition parameter type does not match schema type"
    )
