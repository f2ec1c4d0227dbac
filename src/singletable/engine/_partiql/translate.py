"""PartiQL expressions onto the DynamoDB expression AST, with generated placeholders.

Every attribute name becomes a ``#nK`` placeholder (so reserved words and odd characters need no care) and
every literal or ``?`` parameter a ``:vK`` value; the operations then bind, validate and evaluate them as
they do any request's expressions. DynamoDB's PartiQL WHERE clause is a condition expression in another
syntax (its errors say "Condition Expression"), so this mapping loses nothing.
"""

from __future__ import annotations

from typing import Any

from .. import _attribute_values as codec
from .._errors import DynamoDBError, validation
from .._expressions import ast as ex
from .._set_order import ordered_members
from . import ast
from .errors import AND_OR_ARGS, BAG_TYPES, IN_ARGS, MISSING_COMPARE, at

AV = dict[str, Any]
CONDITION_CALLS = frozenset(
    ("attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "size")
)
UPDATE_CALLS = frozenset(("list_append", "if_not_exists"))
IS_TYPES = {"NULL": "NULL", "BOOLEAN": "BOOL", "BOOL": "BOOL", "STRING": "S"}
_BOOLEAN_NODES = (ast.Binary, ast.Unary, ast.Call, ast.BetweenExpr, ast.InExpr, ast.IsExpr)


def is_value(expr: ast.Expr) -> bool:
    """Whether ``expr`` is a constant (literal, parameter, or a collection of them)."""
    if isinstance(expr, ast.Lit | ast.Param):
        return True
    if isinstance(expr, ast.ListExpr | ast.BagExpr):
        return all(is_value(item) for item in expr.items)
    if isinstance(expr, ast.StructExpr):
        return all(is_value(value) for _, value in expr.pairs)
    return False


def conjuncts(expr: ast.Expr | None) -> list[ast.Expr]:
    """The top-level AND terms of a WHERE clause, in written order."""
    if expr is None:
        return []
    if isinstance(expr, ast.Binary) and expr.op == "AND":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def plain_name(expr: ast.Expr) -> str | None:
    return expr.name if isinstance(expr, ast.Name) else None


class Translator:
    """Translates one statement's expressions; collects the names and values they use."""

    def __init__(self, parameters: list[AV]) -> None:
        self.parameters = parameters
        self.names: dict[str, str] = {}
        self.values: dict[str, AV] = {}
        self._name_keys: dict[str, str] = {}

    # -- placeholders -------------------------------------------------------------------------------------

    def name(self, attribute: str) -> ex.NamePlaceholder:
        key = self._name_keys.get(attribute)
        if key is None:
            key = self._name_keys[attribute] = f"#n{len(self._name_keys)}"
            self.names[key] = attribute
        return ex.NamePlaceholder(key)

    def placeholder(self, value: AV) -> ex.ValuePlaceholder:
        key = f":v{len(self.values)}"
        self.values[key] = value
        return ex.ValuePlaceholder(key)

    # -- constants ----------------------------------------------------------------------------------------

    def value(self, expr: ast.Expr) -> AV:
        """A constant expression as an AttributeValue."""
        if isinstance(expr, ast.Lit):
            return expr.value
        if isinstance(expr, ast.Param):
            return self.parameters[expr.index]
        if isinstance(expr, ast.Missing):
            raise at("Unsupported data type: MISSING under key root", expr.pos)
        if isinstance(expr, ast.ListExpr):
            return {"L": [self.value(item) for item in expr.items]}
        if isinstance(expr, ast.StructExpr):
            return {"M": self.struct(expr)}
        if isinstance(expr, ast.BagExpr):
            return self.bag(expr)
        raise validation("Unsupported operation: " + type(expr).__name__)

    def struct(self, expr: ast.StructExpr) -> dict[str, AV]:
        out: dict[str, AV] = {}
        for key, value in expr.pairs:
            if not isinstance(key, ast.Lit) or "S" not in key.value:
                raise validation("Unsupported operation: struct keys must be string literals")
            name = key.value["S"]
            if name in out:
                raise at(f"Duplicate keys in tuple. Key: {name} under root", key.pos)
            out[name] = self.value(value)
        return out

    def bag(self, expr: ast.BagExpr) -> AV:
        if not expr.items:
            raise at("Empty bags are not supported", expr.pos)
        members = [self.value(item) for item in expr.items]
        kinds = {next(iter(member)) for member in members if len(member) == 1}
        if len(kinds) != 1 or kinds - {"S", "N"} or any(len(member) != 1 for member in members):
            raise validation(BAG_TYPES)
        kind = kinds.pop()
        raw = [member[kind] for member in members]
        if len(set(raw)) != len(raw):
            raise validation(codec.NS_DUPLICATES)
        return {kind + "S": ordered_members(kind + "S", raw)}

    # -- paths and operands -------------------------------------------------------------------------------

    def path(self, expr: ast.Expr) -> ex.Path:
        if isinstance(expr, ast.Name):
            return ex.Path((self.name(expr.name),))
        if isinstance(expr, ast.PathExpr):
            elements: list[ex.PathElement] = [self.name(expr.root.name)]
            for step in expr.steps:
                if isinstance(step, int):
                    elements.append(step)
                elif isinstance(step, str):
                    elements.append(self.name(step))
                else:
                    raise validation("Unsupported path expression: only names and list indexes are allowed")
            return ex.Path(tuple(elements))
        raise validation("Unsupported operation: " + type(expr).__name__)

    def operand(self, expr: ast.Expr, *, update: bool = False) -> ex.Operand:
        if isinstance(expr, ast.Missing):
            raise validation(MISSING_COMPARE)
        if isinstance(expr, ast.Name | ast.PathExpr):
            return self.path(expr)
        if is_value(expr):
            return self.placeholder(self.value(expr))
        if isinstance(expr, ast.Call):
            name = expr.name.lower()
            allowed = UPDATE_CALLS if update else CONDITION_CALLS
            if name not in allowed:
                raise validation(f"Unrecognized function: {expr.name}")
            return ex.FunctionCall(name, tuple(self.operand(arg, update=update) for arg in expr.args))
        if isinstance(expr, ast.Binary) and expr.op in ("+", "-") and update:
            left, right = self.operand(expr.left, update=True), self.operand(expr.right, update=True)
            return ex.Arithmetic(expr.op, left, right)
        if isinstance(expr, ast.Binary | ast.Unary) and expr.op not in ("AND", "OR", "NOT"):
            kind = "Update Expression" if update else "Condition Expression"
            raise validation(f"Unsupported operator in {kind}. Operator: {expr.op}")
        raise validation("Unsupported operation: " + type(expr).__name__)

    # -- conditions ---------------------------------------------------------------------------------------

    def condition(self, expr: ast.Expr) -> ex.Condition:
        if isinstance(expr, ast.Binary):
            if expr.op in ("AND", "OR"):
                if not isinstance(expr.left, _BOOLEAN_NODES) or not isinstance(expr.right, _BOOLEAN_NODES):
                    raise validation(AND_OR_ARGS)
                node = ex.And if expr.op == "AND" else ex.Or
                return node(self.condition(expr.left), self.condition(expr.right))
            if expr.op in ("=", "<>", "<", "<=", ">", ">="):
                return ex.Comparison(expr.op, self.operand(expr.left), self.operand(expr.right))
            raise validation(f"Unsupported operator in Condition Expression. Operator: {expr.op}")
        if isinstance(expr, ast.Unary):
            if expr.op != "NOT":
                raise validation(f"Unsupported operator in Condition Expression. Operator: {expr.op}")
            if not isinstance(expr.operand, _BOOLEAN_NODES):
                raise validation(AND_OR_ARGS)
            return ex.Not(self.condition(expr.operand))
        if isinstance(expr, ast.BetweenExpr):
            between = ex.Between(self.operand(expr.operand), self.operand(expr.low), self.operand(expr.high))
            return ex.Not(between) if expr.negated else between
        if isinstance(expr, ast.InExpr):
            choices = expr.choices
            if not isinstance(choices, ast.ListExpr | ast.BagExpr) or not choices.items:
                raise validation(IN_ARGS)
            in_ = ex.In(self.operand(expr.operand), tuple(self.operand(choice) for choice in choices.items))
            return ex.Not(in_) if expr.negated else in_
        if isinstance(expr, ast.IsExpr):
            path = self.path(expr.operand) if isinstance(expr.operand, ast.Name | ast.PathExpr) else None
            if path is None:
                raise validation(f"Unsupported operation: IS {expr.type_name} needs an attribute path")
            if expr.type_name == "MISSING":
                name = "attribute_exists" if expr.negated else "attribute_not_exists"
                return ex.FunctionCall(name, (path,))
            type_name = self.placeholder({"S": IS_TYPES[expr.type_name]})
            check = ex.FunctionCall("attribute_type", (path, type_name))
            return ex.Not(check) if expr.negated else check
        if isinstance(expr, ast.Call):
            operand = self.operand(expr)
            assert isinstance(operand, ex.FunctionCall)
            return operand
        raise validation(AND_OR_ARGS)

    # -- updates ------------------------------------------------------------------------------------------

    def update(self, actions: tuple[ast.UpdateAction, ...]) -> ex.UpdateExpression:
        sets: list[ex.SetAction] = []
        removes: list[ex.RemoveAction] = []
        adds: list[ex.AddAction] = []
        deletes: list[ex.DeleteAction] = []
        for action in actions:
            path = self.path(action.path)
            value = action.value
            if action.kind == "REMOVE" or value is None:
                removes.append(ex.RemoveAction(path))
            elif isinstance(value, ast.Call) and value.name.lower() in ("set_add", "set_delete"):
                if len(value.args) != 2:
                    raise validation(f"Incorrect number of arguments for function: {value.name}")
                operand = self.operand(value.args[1], update=True)
                if value.name.lower() == "set_add":
                    adds.append(ex.AddAction(path, operand))
                else:
                    deletes.append(ex.DeleteAction(path, operand))
            else:
                sets.append(ex.SetAction(path, self.operand(value, update=True)))
        return ex.UpdateExpression(tuple(sets), tuple(removes), tuple(adds), tuple(deletes))


def strip_kind(error: DynamoDBError) -> DynamoDBError:
    """PartiQL reports expression errors without the ``Invalid FilterExpression:`` prefix."""
    message = error.message
    for kind in (
        "ProjectionExpression",
        "FilterExpression",
        "ConditionExpression",
        "UpdateExpression",
        "KeyConditionExpression",
    ):
        prefix = f"Invalid {kind}: "
        if message.startswith(prefix):
            return DynamoDBError(error.code, message[len(prefix) :], item=error.item, extra=error.extra)
    return error
