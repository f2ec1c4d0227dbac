"""The Engine's typed method declarations name exactly the methods it makes from the registry."""

from __future__ import annotations

import inspect

from singletable.engine import Engine
from singletable.engine._operation_methods import OperationMethods
from singletable.engine._registry import REGISTRY, UNSUPPORTED_OPERATIONS


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def test_declared_methods_are_the_registry_operations() -> None:
    declared = {name for name in vars(OperationMethods) if not name.startswith("_")}
    made = {_snake(name) for name in (*(op.name for op in REGISTRY), *UNSUPPORTED_OPERATIONS)}
    assert declared == made


def test_every_declared_method_is_an_engine_method_taking_keywords() -> None:
    for name in (n for n in vars(OperationMethods) if not n.startswith("_")):
        method = getattr(Engine, name)
        assert method is not getattr(OperationMethods, name)
        kinds = [p.kind for p in inspect.signature(method).parameters.values()]
        assert kinds == [inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.VAR_KEYWORD], name


def test_a_declared_method_runs_on_the_engine() -> None:
    with Engine(":memory:") as engine:
        assert engine.list_tables()["TableNames"] == []
