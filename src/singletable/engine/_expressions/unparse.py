"""AST back to canonical expression text.

The output re-parses to the same AST, so it uses the fewest parentheses that keep the tree's shape:
DynamoDB rejects ``((x))`` as redundant, and a minimal rendering can never produce a doubled group.
Keywords are upper-case and operators single-spaced, so equal trees always print identically.
"""

from __future__ import annotations

from .ast import (
    AddAction,
    And,
    Arithmetic,
    Between,
    Comparison,
    Condition,
    DeleteAction,
    FunctionCall,
    In,
    NamePlaceholder,
    Not,
    Operand,
    Or,
    Path,
    ProjectionExpression,
    RemoveAction,
    SetAction,
    UpdateExpression,
    ValuePlaceholder,
)

# Binding strength of condition nodes; anything not listed is a primary.
_OR, _AND, _NOT, _PRIMARY = 1, 2, 3, 4


def unparse_path(path: Path) -> str:
    parts: list[str] = []
    for element in path.elements:
        if isinstance(element, int):
            parts.append(f"[{element}]")
        else:
            name = element.name if isinstance(element, NamePlaceholder) else element
            parts.append(f".{name}" if parts else name)
    return "".join(parts)


def unparse_operand(operand: Operand) -> str:
    if isinstance(operand, Path):
        return unparse_path(operand)
    if isinstance(operand, ValuePlaceholder):
        return operand.name
    if isinstance(operand, FunctionCall):
        return f"{operand.name}({', '.join(unparse_operand(arg) for arg in operand.args)})"
    if isinstance(operand, Arithmetic):
        return f"{unparse_operand(operand.left)} {operand.op} {unparse_operand(operand.right)}"
    raise TypeError(f"not an operand: {operand!r}")


def _strength(node: Condition) -> int:
    if isinstance(node, Or):
        return _OR
    if isinstance(node, And):
        return _AND
    if isinstance(node, Not):
        return _NOT
    return _PRIMARY


def _wrapped(node: Condition, minimum: int) -> str:
    text = unparse_condition(node)
    return f"({text})" if _strength(node) < minimum else text


def unparse_condition(node: Condition) -> str:
    """Render a condition; AND and OR associate to the left, as the parser builds them."""
    if isinstance(node, Or):
        return f"{_wrapped(node.left, _OR)} OR {_wrapped(node.right, _AND)}"
    if isinstance(node, And):
        return f"{_wrapped(node.left, _AND)} AND {_wrapped(node.right, _NOT)}"
    if isinstance(node, Not):
        return f"NOT {_wrapped(node.operand, _NOT)}"
    if isinstance(node, Comparison):
        return f"{unparse_operand(node.left)} {node.op} {unparse_operand(node.right)}"
    if isinstance(node, Between):
        low, high = unparse_operand(node.low), unparse_operand(node.high)
        return f"{unparse_operand(node.operand)} BETWEEN {low} AND {high}"
    if isinstance(node, In):
        choices = ", ".join(unparse_operand(choice) for choice in node.choices)
        return f"{unparse_operand(node.operand)} IN ({choices})"
    if isinstance(node, FunctionCall):
        return unparse_operand(node)
    raise TypeError(f"not a condition: {node!r}")


def _action(action: SetAction | RemoveAction | AddAction | DeleteAction) -> str:
    path = unparse_path(action.path)
    if isinstance(action, SetAction):
        return f"{path} = {unparse_operand(action.value)}"
    if isinstance(action, RemoveAction):
        return path
    return f"{path} {unparse_operand(action.value)}"


def unparse_update(update: UpdateExpression) -> str:
    """Clauses in the fixed order SET, REMOVE, ADD, DELETE; empty clauses are left out."""
    clauses = (
        ("SET", update.set_actions),
        ("REMOVE", update.remove_actions),
        ("ADD", update.add_actions),
        ("DELETE", update.delete_actions),
    )
    return " ".join(
        f"{name} {', '.join(_action(action) for action in actions)}" for name, actions in clauses if actions
    )


def unparse_projection(projection: ProjectionExpression) -> str:
    return ", ".join(unparse_path(path) for path in projection.paths)


def unparse(node: Condition | UpdateExpression | ProjectionExpression) -> str:
    """Render any parsed expression."""
    if isinstance(node, UpdateExpression):
        return unparse_update(node)
    if isinstance(node, ProjectionExpression):
        return unparse_projection(node)
    return unparse_condition(node)
