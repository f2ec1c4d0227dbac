"""A design module seen by the data tools: which entity an item is, and access patterns run by name.

``load_design("myapp.design")`` imports a module that declares a :class:`singletable.model.Table` and its
entities (``myapp/design.py``, or a path to a ``.py`` file), and returns a :class:`Design`: ``label(item)``
names the entity an item is by the table's type attribute, ``key_attributes`` are the table's key
attributes for display, and ``pattern_request("Post.by_author", {"author_id": "ada"})`` builds the
DynamoDB request a declared access pattern sends, with command-line text turned into each field's type by
pydantic (``"5"`` for an ``int`` field is 5). Everything goes through the model's public names.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from singletable._extras import require
from singletable.data._look import paged
from singletable.data._targets import Target


class DesignError(ValueError):
    """A design module that cannot be loaded, or a pattern or argument it does not declare."""


def load_design(spec: str) -> Design:
    """``module`` or ``module:TABLE_VARIABLE`` (when it declares several tables), or a ``.py`` path."""
    require("model", ("pydantic",), "--design")
    from singletable.model import Table

    module_name, _, variable = spec.partition(":")
    module = _import(module_name)
    found = {name: value for name, value in vars(module).items() if isinstance(value, Table)}
    if variable:
        if variable not in found:
            raise DesignError(f"design module {module_name} has no Table named {variable}")
        return Design(found[variable], module)
    tables = list({id(t): t for t in found.values()}.values())
    if len(tables) != 1:
        names = ", ".join(sorted(found)) or "none"
        raise DesignError(
            f"design module {module_name} must declare one singletable.model Table, not {len(tables)} "
            f"({names}); name one: --design {module_name}:NAME"
        )
    return Design(tables[0], module)


def _import(name: str) -> ModuleType:
    try:
        if name.endswith(".py"):
            module_name = os.path.basename(name)[:-3]
            if module_name in sys.modules:  # never shadow an imported module of the same name
                module_name = f"_singletable_design_{len(sys.modules)}_{module_name}"
            spec = importlib.util.spec_from_file_location(module_name, name)
            if spec is None or spec.loader is None or not os.path.isfile(name):
                raise ImportError(f"no such file: {name}")
            module = importlib.util.module_from_spec(spec)
            # Registered as imports are: pydantic resolves a model's postponed annotations (`from __future__
            # import annotations`) through sys.modules[cls.__module__].
            sys.modules[module_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[module_name]
                raise
            return module
        if os.getcwd() not in sys.path:  # as `python -m` does: a design beside the user imports
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(name)
    except Exception as error:  # the module's own failure, whatever it is, in one line
        raise DesignError(f"cannot import design module {name}: {type(error).__name__}: {error}") from None


class Design:
    """One design's table and entities, for labelling items and running patterns by name."""

    def __init__(self, table: Any, module: ModuleType | None = None) -> None:
        self.table = table
        self.module = module  # the design module it was loaded from (its docstring, SAMPLE_ITEMS), if any
        self.type_attribute: str = table.type_attribute
        self.entities = {meta.cls.__name__: meta.cls for meta in table.entities.values()}
        self._by_type = {meta.type: meta.cls.__name__ for meta in table.entities.values()}

    @property
    def table_name(self) -> str:
        return self.table.resolved_name()

    def key_attributes(self, index: str | None = None) -> list[str]:
        """The table's key attributes, then those of ``index`` (which the design must declare)."""
        from singletable.model import ModelError

        try:
            return self.table.key_attributes(self.table.index(index) if index else None)
        except ModelError as error:
            raise DesignError(f"the design: {error}") from None

    def label(self, item: Mapping[str, Any]) -> str:
        """The entity class an item is (``Post``), its raw type value for an unknown type, or ``""``."""
        value = item.get(self.type_attribute)
        if not value or "S" not in value:
            return ""
        return self._by_type.get(value["S"], value["S"])

    def patterns(self) -> list[tuple[str, Any]]:
        """Every declared access pattern (``Entity.pattern``) and collection (its own name), by name:
        what the web console lists, each with a form built from its arguments."""
        found = [
            (f"{cls.__name__}.{pattern}", getattr(cls, pattern))
            for cls in self.entities.values()
            for pattern in cls.model_entity().patterns
        ]
        return found + sorted(self.table.collections.items())

    def pattern_fields(self, name: str) -> dict[str, Any]:
        """The fields pattern or collection ``name`` takes, by name, with their pydantic FieldInfo: the
        partition key's first (required), then the sort key's (optional)."""
        found = self.pattern(name)
        fields = self._member_fields(name, found)
        takes = found.takes if hasattr(found, "takes") else found.arguments
        return {field: fields[field] for field in takes if field in fields}

    def _members(self, name: str, found: Any) -> list[type[Any]]:
        """The entity classes whose fields a pattern (its entity) or a collection (its members) takes."""
        if name in self.table.collections:
            return list(found.entities)
        return [self.entities[name.partition(".")[0]]]

    def _member_fields(self, name: str, found: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for cls in self._members(name, found):
            fields = {**cls.model_fields, **fields}
        return fields

    def pattern(self, name: str) -> Any:
        """The declared :class:`~singletable.model.Pattern` called ``Entity.pattern``, or the
        :class:`~singletable.model.Collection` called ``name``."""
        from singletable.model import Pattern

        entity_name, dot, pattern_name = name.partition(".")
        if not dot and name in self.table.collections:
            return self.table.collections[name]
        if not dot or entity_name not in self.entities:
            known = ", ".join(sorted(self.entities))
            raise DesignError(f"{name!r} is not ENTITY.PATTERN with an entity of this design ({known})")
        cls = self.entities[entity_name]
        patterns = cls.model_entity().patterns
        found = getattr(cls, pattern_name, None)
        if not isinstance(found, Pattern):
            known = ", ".join(sorted(patterns)) or "none"
            raise DesignError(f"{entity_name} has no pattern {pattern_name} (its patterns: {known})")
        return found

    def pattern_request(
        self,
        name: str,
        arguments: Mapping[str, str],
        *,
        positional: Sequence[str] = (),
        newest_first: bool = False,
        table: str | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """(operation, parameters) of pattern ``name`` called with ``field=text`` arguments (and, as in
        Python, its partition-key fields in order as ``positional`` ones)."""
        from pydantic import TypeAdapter, ValidationError

        from singletable.model import ModelError

        pattern = self.pattern(name)
        fields = self._member_fields(name, pattern)
        owner = "/".join(cls.__name__ for cls in self._members(name, pattern))
        if len(positional) > len(pattern.arguments):
            takes = ", ".join(pattern.arguments) or "none"
            raise DesignError(f"{name} takes {len(pattern.arguments)} positional arguments ({takes})")
        given = dict(zip(pattern.arguments, positional, strict=False))
        twice = sorted(set(given) & set(arguments))
        if twice:
            raise DesignError(f"{name}: {twice[0]} is given twice")
        values: dict[str, Any] = {}
        for field, text in {**given, **arguments}.items():
            if field not in fields:
                takes = ", ".join(pattern.arguments) or "no arguments"
                raise DesignError(f"{owner} has no field {field} ({name} takes {takes})")
            try:
                values[field] = TypeAdapter(fields[field].annotation).validate_python(text)
            except ValidationError as error:
                reason = error.errors()[0]["msg"]
                raise DesignError(f"{field}={text!r}: {reason}") from None
        try:
            query = pattern(**values)
        except ModelError as error:
            raise DesignError(str(error)) from None
        if newest_first:
            query = query.newest_first()
        return query.request(table or self.table_name)


def run_pattern(
    target: Target,
    design: Design,
    name: str,
    arguments: Mapping[str, str],
    *,
    positional: Sequence[str] = (),
    limit: int | None = None,
    newest_first: bool = False,
    table: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The items access pattern ``name`` reads on ``target``, page after page (at most ``limit``)."""
    operation, params = design.pattern_request(
        name, arguments, positional=positional, newest_first=newest_first, table=table
    )
    return paged(target, operation, params, limit)
