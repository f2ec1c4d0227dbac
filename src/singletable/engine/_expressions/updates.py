"""Update expressions: validation, then copy-on-write application to an item.

Everything DynamoDB rejects without looking at the item (overlapping paths, misplaced functions, a string
given to ``+``) is raised while compiling or binding; what depends on the item (a missing operand, a
number where a list was expected, a parent path that does not exist) is raised by ``apply``. All SET values
are evaluated against the item as it was before the update, which is what DynamoDB does
(``SET a = :v, b = a`` stores the old ``a`` in ``b``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .._errors import JAVA_TYPE_NAMES, validation
from .._set_order import ordered_members
from .ast import AddAction, Arithmetic, DeleteAction, FunctionCall, Path, UpdateExpression, ValuePlaceholder
from .conditions import (
    CONDITION_FUNCTIONS,
    NOT_THIS_WAY,
    OPERAND_FUNCTIONS,
    arity,
    operand_type_error,
    require_path,
)
from .paths import AV, Binder, Resolved, check_disjoint, getter
from .values import EXACT, number_result, type_of

if TYPE_CHECKING:
    from .projection import PathPicker

Item = dict[str, AV]
Values = dict[str, AV]
Eval = Callable[[Item, Values], AV]
Check = Callable[[Values], None]

_CLAUSE = re.compile(r"(?<![#:\w])(SET|REMOVE|ADD|DELETE)(?!\w)", re.IGNORECASE)
_ADDABLE = frozenset({"N", "SS", "NS", "BS"})
_DELETABLE = frozenset({"SS", "NS", "BS"})


UPDATE_COST, SET_ACTION_COST, REMOVE_ACTION_COST = 3, 19, 2


def missing_operand() -> Exception:
    return validation("The provided expression refers to an attribute that does not exist in the item")


def bad_type() -> Exception:
    return validation("An operand in the update expression has an incorrect data type")


def bad_path() -> Exception:
    return validation("The document path provided in the update expression is invalid for update")


def clause_order(text: str) -> list[str]:
    """Clause keywords in written order; they are reserved words, so any bare occurrence is a keyword."""
    return [m.group(1).upper() for m in _CLAUSE.finditer(text)]


class UpdateCompiler:
    def __init__(self, binder: Binder) -> None:
        self.binder = binder
        self.checks: list[Check] = binder.checks

    def _value_type(
        self, node: ValuePlaceholder, message: Callable[[str], Exception], allowed: frozenset[str]
    ) -> None:
        name = self.binder.value(node.name)

        def check(values: Values) -> None:
            tag = type_of(values[name])
            if tag not in allowed:
                raise message(tag)

        self.checks.append(check)

    def value(self, node: Any, top: bool = True) -> Eval:
        """Compile a SET value; ``top`` is False inside ``+``/``-`` and function arguments."""
        b = self.binder
        if isinstance(node, Path):
            get = getter(b.path(node))

            def read(item: Item, values: Values) -> AV:
                av = get(item)
                if av is None:
                    raise missing_operand()
                return av

            return read
        if isinstance(node, ValuePlaceholder):
            name = b.value(node.name)
            return lambda item, values: values[name]
        if isinstance(node, Arithmetic):
            return self.arithmetic(node)
        if isinstance(node, FunctionCall):
            return self.function(node, top)
        raise b.error('Syntax error; token: "<EOF>"')

    def arithmetic(self, node: Arithmetic) -> Eval:
        op = node.op

        def message(tag: str) -> Exception:
            return operand_type_error(self.binder, op, tag)

        for side in (node.left, node.right):
            if isinstance(side, ValuePlaceholder):
                self._value_type(side, message, frozenset({"N"}))
        left, right = self.value(node.left, False), self.value(node.right, False)
        sign = 1 if node.op == "+" else -1

        def arithmetic(item: Item, values: Values) -> AV:
            a, b = left(item, values), right(item, values)
            if "N" not in a or "N" not in b:
                raise bad_type()
            return number_result(EXACT.add(Decimal(a["N"]), EXACT.multiply(sign, Decimal(b["N"]))))

        return arithmetic

    def function(self, call: FunctionCall, top: bool) -> Eval:
        b = self.binder
        name = call.name
        if name in CONDITION_FUNCTIONS or name in OPERAND_FUNCTIONS:
            raise b.error(f"The function is not allowed in an update expression; function: {name}")
        if name == "if_not_exists":
            arity(b, call, 2)
            get = getter(require_path(b, call, call.args[0]))
            fallback = self.value(call.args[1], False)

            def if_not_exists(item: Item, values: Values) -> AV:
                av = get(item)
                return av if av is not None else fallback(item, values)

            return if_not_exists
        if name == "list_append":
            if not top:
                raise b.error(NOT_THIS_WAY + name)
            arity(b, call, 2)
            for arg in call.args:
                if isinstance(arg, ValuePlaceholder):
                    self._value_type(
                        arg, lambda tag: operand_type_error(self.binder, "list_append", tag), frozenset({"L"})
                    )
            first, second = self.value(call.args[0], False), self.value(call.args[1], False)

            def list_append(item: Item, values: Values) -> AV:
                a, c = first(item, values), second(item, values)
                if "L" not in a or "L" not in c:
                    raise bad_type()
                return {"L": a["L"] + c["L"]}

            return list_append
        raise b.error(f"Invalid function name; function: {name}")

    def set_operand(self, action: AddAction | DeleteAction, allowed: frozenset[str], operator: str) -> str:
        node = action.value
        if not isinstance(node, ValuePlaceholder):
            raise self.binder.error('Syntax error; token: "<EOF>"')

        def message(tag: str) -> Exception:
            return self.binder.error(
                f"Incorrect operand type for operator or function; operator: {operator}, operand type: "
                f"{JAVA_TYPE_NAMES.get(tag, tag)}, typeSet: ALLOWED_FOR_{operator}_OPERAND"
            )

        self._value_type(node, message, allowed)
        return node.name


class CompiledUpdate:
    """The request-independent part of an update: resolved paths and closures."""

    def __init__(self, expression: UpdateExpression, text: str, binder: Binder) -> None:
        compiler = UpdateCompiler(binder)
        self.sets = [(binder.path(a.path), compiler.value(a.value)) for a in expression.set_actions]
        self.removes = [binder.path(a.path) for a in expression.remove_actions]
        self.adds = [
            (binder.path(a.path), compiler.set_operand(a, _ADDABLE, "ADD")) for a in expression.add_actions
        ]
        self.deletes = [
            (binder.path(a.path), compiler.set_operand(a, _DELETABLE, "DELETE"))
            for a in expression.delete_actions
        ]
        by_clause: dict[str, list[Resolved]] = {
            "SET": [p for p, _ in self.sets],
            "REMOVE": list(self.removes),
            "ADD": [p for p, _ in self.adds],
            "DELETE": [p for p, _ in self.deletes],
        }
        order = [c for c in dict.fromkeys(clause_order(text)) if by_clause[c]]
        order += [c for c in by_clause if c not in order]
        self.paths: tuple[Resolved, ...] = tuple(p for clause in order for p in by_clause[clause])
        check_disjoint(self.paths, binder.prefix)
        # Removing from the highest index down keeps the original indexes valid, as DynamoDB does.
        self.removes.sort(reverse=True)
        # Several SETs past a list's end append in index order, whatever order they were written in (the
        # paths are disjoint, so sorting them changes nothing else; values are computed before any SET).
        if any(isinstance(step, int) for path, _ in self.sets for step in path):
            self.sets.sort(key=lambda action: action[0])
        self.checks = compiler.checks
        self.top_level_names = frozenset(p[0] for p in self.paths)
        # Only REMOVE and DELETE: on a missing item there is nothing to take away, and no item is created.
        self.creates_nothing = not self.sets and not self.adds
        # What standalone UpdateItem measures against the item size limit besides the finished item (AWS,
        # the Parity Suite's bisections): the attributes the statement writes, plus 3 bytes for the update,
        # 19 per SET or ADD action (one more through a list index) and 2 per REMOVE or DELETE action.
        self.written_names = frozenset(p[0] for p, _ in self.sets) | frozenset(p[0] for p, _ in self.adds)
        self.write_cost = (
            UPDATE_COST
            + SET_ACTION_COST * (len(self.sets) + len(self.adds))
            + sum(1 for path, _ in self.sets if any(isinstance(step, int) for step in path))
            + REMOVE_ACTION_COST * (len(self.removes) + len(self.deletes))
        )
        # Picks the updated paths out of an item (UPDATED_OLD / UPDATED_NEW); built on first use.
        self.picker: PathPicker | None = None

    def apply(self, item: Item, values: Values) -> Item:
        results = [(path, value(item, values)) for path, value in self.sets]
        new = dict(item)
        fresh: set[int] = set()
        for path, av in results:
            parent = _parent(new, path, fresh)
            if parent is None:
                raise bad_path()
            _put(parent, path[-1], av)
        for path in self.removes:
            parent = _parent(new, path, fresh)
            if parent is None:
                if len(path) > 1:
                    raise bad_path()
                continue
            _drop(parent, path[-1])
        for path, name in self.adds:
            _add(new, path, values[name], fresh)
        for path, name in self.deletes:
            _delete(new, path, values[name], fresh)
        return new


def _parent(root: Item, path: Resolved, fresh: set[int]) -> Any:
    """The container holding ``path``'s last step, copied on the way down so ``root``'s input is untouched.

    Returns None when an intermediate step is missing or is not the container type the next step needs.
    """
    container: Any = root
    for i, step in enumerate(path[:-1]):
        if isinstance(step, int):
            if step >= len(container):
                return None
            av = container[step]
        else:
            av = container.get(step)
            if av is None:
                return None
        tag = "L" if isinstance(path[i + 1], int) else "M"
        inner = av.get(tag)
        if inner is None:
            return None
        if id(inner) not in fresh:
            inner = list(inner) if tag == "L" else dict(inner)
            fresh.add(id(inner))
            container[step] = {tag: inner}
        container = inner
    return container


def _put(container: Any, step: str | int, av: AV) -> None:
    if isinstance(step, int) and step >= len(container):
        container.append(av)
    else:
        container[step] = av


def _drop(container: Any, step: str | int) -> None:
    if isinstance(step, int):
        if step < len(container):
            del container[step]
    else:
        container.pop(step, None)


def _get(container: Any, step: str | int) -> AV | None:
    if isinstance(step, int):
        return container[step] if step < len(container) else None
    return container.get(step)


def _add(root: Item, path: Resolved, operand: AV, fresh: set[int]) -> None:
    parent = _parent(root, path, fresh)
    if parent is None:
        raise bad_path()
    existing = _get(parent, path[-1])
    tag = type_of(operand)
    if existing is None:
        _put(parent, path[-1], operand)
        return
    if tag not in existing:
        raise bad_type()
    if tag == "N":
        _put(parent, path[-1], number_result(EXACT.add(Decimal(existing["N"]), Decimal(operand["N"]))))
        return
    merged = list(existing[tag])
    seen = {_member_key(tag, m) for m in merged}
    for member in operand[tag]:
        key = _member_key(tag, member)
        if key not in seen:
            seen.add(key)
            merged.append(member)
    _put(parent, path[-1], {tag: ordered_members(tag, merged)})


def _delete(root: Item, path: Resolved, operand: AV, fresh: set[int]) -> None:
    parent = _parent(root, path, fresh)
    if parent is None:
        if len(path) > 1:
            raise bad_path()
        return
    existing = _get(parent, path[-1])
    if existing is None:
        return
    tag = type_of(operand)
    if tag not in existing:
        raise bad_type()
    doomed = {_member_key(tag, m) for m in operand[tag]}
    kept = [m for m in existing[tag] if _member_key(tag, m) not in doomed]
    if kept:
        _put(parent, path[-1], {tag: kept})
    else:
        _drop(parent, path[-1])


def _member_key(tag: str, member: Any) -> Any:
    if tag == "NS":
        return Decimal(member)
    if tag == "BS":
        return bytes(member)
    return member
