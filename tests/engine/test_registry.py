"""The operation registry is the one list of operations: every operation module is in it, and everything it
names exists (module, run function, request shape, Engine method)."""

from __future__ import annotations

import importlib
import pkgutil

import singletable.engine._operations as operations_package
from singletable.engine._engine import Engine, _snake
from singletable.engine._registry import (
    BY_NAME,
    DYNAMODB,
    REGISTRY,
    STREAMS,
    UNSUPPORTED_OPERATIONS,
    module_path,
)
from singletable.engine._validation import SHAPES
from singletable.engine._validation.shapes import StructureShape


def test_every_operation_module_is_registered_once() -> None:
    modules = [operation.module for operation in REGISTRY]
    assert len(modules) == len(set(modules))
    assert len(BY_NAME) == len(REGISTRY)
    for info in pkgutil.iter_modules(operations_package.__path__):
        module = importlib.import_module(f"{operations_package.__name__}.{info.name}")
        if hasattr(module, "run"):
            assert info.name in modules, f"operations/{info.name}.py is not in the registry"


def test_every_registered_operation_exists() -> None:
    for operation in REGISTRY:
        module = importlib.import_module(module_path(operation))
        assert callable(module.run), operation.name
        assert isinstance(SHAPES[operation.shape], StructureShape), operation.name
        assert callable(getattr(Engine, _snake(operation.name))), operation.name
        assert operation.api in (DYNAMODB, STREAMS)
        assert not (operation.writes and operation.cached_catalog), operation.name


def test_unsupported_names_are_not_registered() -> None:
    assert not UNSUPPORTED_OPERATIONS & BY_NAME.keys()
    for name in UNSUPPORTED_OPERATIONS:
        assert callable(getattr(Engine, _snake(name)))
