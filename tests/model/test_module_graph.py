"""The modeling layer's modules depend on each other one way only.

Read from the source with ``ast``, not by importing: every ``import`` a module of ``singletable.model`` runs
when it is loaded (top level, outside ``if TYPE_CHECKING:``) is an edge, and the graph of those edges must
have no cycle. Imports inside functions -- the usual way a cycle is hidden -- are refused, except for the
optional third-party dependencies listed below. The write pipeline's stages import only earlier stages, the
planners never see ``DB``, and patterns, derived items and item readers take an ``EntityMeta`` without
importing the ``Entity`` class's module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import singletable.model

PACKAGE = "singletable.model"
ROOT = Path(singletable.model.__file__).parent
# Function-level imports allowed inside model/, each an optional dependency loaded only when used.
LAZY_ALLOWED = {"botocore.exceptions", "aiobotocore.session"}
# The write pipeline, in the order a write passes through it.
WRITE_STAGES = [
    "_write_target",
    "_write_values",
    "_write_keys",
    "_write_requests",
    "_write_plans",
    "_write_runner",
]


def _modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in sorted(ROOT.glob("*.py"))}


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The full names a statement imports: ``from singletable.model import cursor`` names the submodule."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if base == PACKAGE:
        return [f"{base}.{alias.name}" for alias in node.names]
    return [base]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when loaded: its body, and ``if``/``try`` blocks other than TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and not _is_type_checking(node):
            found += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            found += _top_level(node.body)
    return found


def _nested(tree: ast.Module) -> list[tuple[str, int]]:
    """(imported name, line) of every import inside a function or class body."""
    out: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    out.update((name, inner.lineno) for name in _targets(inner))
    return sorted(out, key=lambda found: found[1])


def _all_imports(tree: ast.Module) -> set[str]:
    return {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in _targets(node)
    }


def _local(names: list[str] | set[str]) -> set[str]:
    """The model submodules among imported names (the package itself is not a node)."""
    prefix = PACKAGE + "."
    return {n[len(prefix) :].split(".")[0] for n in names if n.startswith(prefix)}


def runtime_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, tree in modules.items():
        if name == "__init__":
            continue
        edges = _local([t for node in _top_level(tree.body) for t in _targets(node)])
        graph[name] = edges & set(modules)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path (first node repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_runtime_import_graph_has_no_cycle() -> None:
    graph = runtime_graph()
    assert {"_db", "_entity", "_write_plans"} <= set(graph)  # the reader found the modules
    assert find_cycle(graph) is None, f"import cycle inside singletable.model: {find_cycle(graph)}"


def test_no_function_level_imports() -> None:
    found = [
        f"{name}.py:{line} imports {target}"
        for name, tree in _modules().items()
        for target, line in _nested(tree)
        if target not in LAZY_ALLOWED
    ]
    assert found == [], "imports inside functions hide cycles; import at the top of the module: " + "; ".join(
        found
    )


def test_write_stages_import_only_earlier_stages() -> None:
    modules = _modules()
    for position, stage in enumerate(WRITE_STAGES):
        later = set(WRITE_STAGES[position + 1 :])
        assert not _local(_all_imports(modules[stage])) & later, f"{stage} imports a later stage"


def test_only_the_public_face_knows_db() -> None:
    modules = _modules()
    users = sorted(name for name, tree in modules.items() if "_db" in _local(_all_imports(tree)))
    assert users == ["__init__"]


def test_patterns_derived_items_and_readers_never_import_the_entity_class() -> None:
    modules = _modules()
    for name in (
        "_entity_meta",
        "_patterns",
        "_derived",
        "_read_items",
        "_table",
        "_templates",
        "_field_values",
    ):
        assert "_entity" not in _local(_all_imports(modules[name])), f"{name} imports _entity"
