"""A design module seen by the data tools: which entity an item is, and access patterns run by name.

``load_design("myapp.design")`` imports a module that declares a :class:`singletable.model.Table` and its
entities (``myapp/design.py``, or a path to a ``.py`` file; found by :mod:`singletable._designs`, the loader
every command shares), and returns a :class:`Design`: ``label(item)``
names the entity an item is by the table's type attribute, ``key_attributes`` are the table's key
attributes for display, and ``pattern_request("Post.by_author", {"author_id": "ada"})`` builds the
DynamoDB request a declared access pattern sends, with command-line text turned into each field's type by
pydantic (``"5"`` for an ``int`` field is 5). Everything goes through the model's public names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from singletable._designs import DesignError
from singletable._designs import load_design as load_design_table
from singletable.data._look import paged
from singletable.data._targets import Target


def load_design(spec: str, *, option: str = "--design") -> Design:
    """``module`` or ``module:TABLE_VARIABLE`` (when it declares several tables), or a ``.py`` path: found
    by the loader every command shares (:func:`singletable._designs.load_design`; ``option``: how the
    command spells the spec, for its messages)."""
    loaded = load_design_table(spec, option=option)
    return Design(loaded.table, loaded.module)


class Design:
    """One design's table and entities, for labelling items and running patterns by name."""

    def __init__(self, table: Any, module: ModuleType | None = None) -> None:
        self.table = table
        self.module = module  # the design module it was loaded from (its docstring, SAMPLE_ITEMS), if any
        self.type_attribute: str = table.type_attribute
        self.entities = {meta.cls.__name__: meta.cls for meta in table.entities.values()}
        self._by_type = {meta.type: meta.cls.__name__ for meta in table.entities.values()}
        # Unique-value guards (no type attribute; PK = SK = the rendered guard template), longest literal
        # text first, so a scoped STORE#{store_id}#EMAIL#{email} is tried before a bare {email}.
        self._guards = sorted(
            (
                (bound, f"{meta.cls.__name__} {name} guard")
                for meta in table.entities.values()
                for name, bound in meta.unique.items()
            ),
            key=lambda guard: -sum(len(p) for p in guard[0].template.parts if isinstance(p, str)),
        )

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
        """The entity class an item is (``Post``), its raw type value for an unknown type, what a guard item
        guards (``Customer email guard``), or ``""``."""
        value = item.get(self.type_attribute)
        if not value or "S" not in value:
            return self.guard_label(item)
        return self._by_type.get(value["S"], value["S"])

    def guard_label(self, item: Mapping[str, Any]) -> str:
        """``Customer email guard`` for the item holding a unique value of ``Customer.email`` (the model
        writes it with no type attribute, its partition and sort keys both the rendered guard template, and
        its owner's key as ``owner``), else ``""``."""
        pk_name, sk_name = self.table.pk_name, self.table.sk_name
        pk = item.get(pk_name)
        if not self._guards or not isinstance(pk, Mapping) or not isinstance(pk.get("S"), str):
            return ""
        if sk_name and item.get(sk_name) != pk:
            return ""
        owner = item.get("owner")
        if owner is not None and not (isinstance(owner, Mapping) and "M" in owner):
            return ""
        for bound, name in self._guards:
            if bound.parse(pk["S"]) is not None:
                return name
        return ""

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
