"""DynamoDB expressions for one request: bind placeholders, validate, and evaluate.

Operations create one :class:`RequestExpressions` per request, compile each of the request's expressions
through it and call :meth:`RequestExpressions.finish` to report unused placeholders. Compilation is cached
per (expression, name mapping) across requests; only the ExpressionAttributeValues are bound per request,
so a repeated expression costs a dictionary lookup plus its value checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import DynamoDBError, validation
from .binding import check_names, check_values, java_set_order
from .conditions import ConditionCompiler
from .keycondition import CompiledKeyCondition, KeyAttrs, KeyCondition
from .paths import Binder, Resolved
from .projection import CompiledProjection, PathPicker
from .searchcondition import CompiledSearchCondition, SearchEquality
from .updates import CompiledUpdate

__all__ = ["Condition", "KeyCondition", "Projection", "RequestExpressions", "SearchEquality", "Update"]

AV = dict[str, Any]
Item = dict[str, AV]
_EMPTY: Item = {}
_CACHE: dict[tuple[Any, ...], _Compiled] = {}
_CACHE_LIMIT = 4096


class _Compiled:
    """A cached compilation: the artefact, its per-request checks, or the error to raise after them."""

    __slots__ = ("artefact", "checks", "error", "names_used", "values_used")

    def __init__(self, binder: Binder, build: Callable[[Binder], Any]) -> None:
        self.error: DynamoDBError | None = None
        self.artefact: Any = None
        try:
            self.artefact = build(binder)
        except DynamoDBError as error:
            self.error = error
        self.checks = tuple(binder.checks)
        self.names_used = frozenset(binder.names_used)
        self.values_used = frozenset(binder.values_used)


class Condition:
    """A condition or filter bound to a request's values: ``condition(item)`` -> bool (None = no item)."""

    __slots__ = ("_predicate", "_values", "top_level_names")

    def __init__(
        self,
        predicate: Callable[[Item, dict[str, AV]], bool],
        values: dict[str, AV],
        top_level_names: frozenset[str],
    ) -> None:
        self._predicate = predicate
        self._values = values
        self.top_level_names = top_level_names

    def __call__(self, item: Item | None) -> bool:
        return self._predicate(item or _EMPTY, self._values)


class Projection:
    __slots__ = ("_compiled", "paths", "top_level_names")

    def __init__(self, compiled: CompiledProjection) -> None:
        self._compiled = compiled
        self.paths: tuple[Resolved, ...] = compiled.paths
        self.top_level_names = compiled.top_level_names

    def apply(self, item: Item) -> Item:
        return self._compiled.apply(item)


class Update:
    """An update bound to a request's values; ``apply`` returns a new item and never mutates its input."""

    __slots__ = (
        "_compiled",
        "_values",
        "creates_nothing",
        "paths",
        "top_level_names",
        "write_cost",
        "written_names",
    )

    def __init__(self, compiled: CompiledUpdate, values: dict[str, AV]) -> None:
        self._compiled = compiled
        self._values = values
        self.paths: tuple[Resolved, ...] = compiled.paths
        self.top_level_names = compiled.top_level_names
        self.creates_nothing: bool = compiled.creates_nothing
        self.written_names = compiled.written_names
        self.write_cost = compiled.write_cost

    def apply(self, item: Item | None) -> Item:
        return self._compiled.apply(item or _EMPTY, self._values)

    def project_updated(self, item: Item) -> Item:
        """The updated paths of ``item`` (UpdateItem's UPDATED_OLD / UPDATED_NEW)."""
        picker = self._compiled.picker
        if picker is None:  # built once per cached compilation, on first use
            picker = self._compiled.picker = PathPicker(self.paths)
        return picker.apply(item)


class RequestExpressions:
    """The expressions of one request, sharing its ExpressionAttributeNames/Values.

    ``absent`` completes DynamoDB's "can only be specified when using expressions" text for values, which
    names the request's missing expressions (e.g. ``"ConditionExpression is null"`` for PutItem).
    """

    def __init__(
        self,
        names: dict[str, str] | None,
        values: dict[str, AV] | None,
        *,
        uses_expressions: bool,
        absent: str = "",
    ) -> None:
        if not uses_expressions:
            if names is not None:
                raise validation("ExpressionAttributeNames can only be specified when using expressions")
            if values is not None:
                suffix = f": {absent}" if absent else ""
                raise validation(
                    f"ExpressionAttributeValues can only be specified when using expressions{suffix}"
                )
        if names is not None and not names:
            raise validation("ExpressionAttributeNames must not be empty")
        if values is not None and not values:
            raise validation("ExpressionAttributeValues must not be empty")
        if names:
            check_names(names)
        self.names: dict[str, str] = names or {}
        self.values: dict[str, AV] = check_values(values) if values else {}
        self._names_key = tuple(self.names.items())
        self._names_used: set[str] = set()
        self._values_used: set[str] = set()

    def _compile(self, kind: str, source: Any, extra: Any, build: Callable[[Binder, Any], Any]) -> Any:
        """Compile (or fetch) ``source``; ``source`` may be text or, for tests and tools, a parsed AST."""
        key = (kind, source, extra, self._names_key)
        compiled = _CACHE.get(key)
        if compiled is None:
            node = _parse(kind, source) if isinstance(source, str) else source
            compiled = _Compiled(Binder(self.names, f"Invalid {kind}: "), lambda binder: build(binder, node))
            if len(_CACHE) >= _CACHE_LIMIT:
                _CACHE.clear()
            _CACHE[key] = compiled
        values = self.values
        for check in compiled.checks:
            check(values)
        if compiled.error is not None:
            raise compiled.error
        self._names_used |= compiled.names_used
        self._values_used |= compiled.values_used
        return compiled.artefact

    def condition(self, text: Any, kind: str = "ConditionExpression") -> Condition:
        def build(binder: Binder, node: Any) -> tuple[Any, frozenset[str]]:
            compiler = ConditionCompiler(binder)
            predicate = compiler.condition(node)
            return predicate, frozenset(compiler.top_level)

        predicate, top = self._compile(kind, text, None, build)
        return Condition(predicate, self.values, top)

    def projection(self, text: Any) -> Projection:
        compiled = self._compile(
            "ProjectionExpression", text, None, lambda binder, node: CompiledProjection(node, binder)
        )
        return Projection(compiled)

    def update(self, text: Any) -> Update:
        source_text = text if isinstance(text, str) else ""
        compiled = self._compile(
            "UpdateExpression", text, None, lambda binder, node: CompiledUpdate(node, source_text, binder)
        )
        return Update(compiled, self.values)

    def key_condition(self, text: Any, hash_keys: KeyAttrs, range_keys: KeyAttrs) -> KeyCondition:
        """``hash_keys``/``range_keys``: (name, type) of the key's HASH and RANGE attributes, in key-schema
        order (one and at most one, unless the index has multi-attribute keys)."""
        compiled = self._compile(
            "KeyConditionExpression",
            text,
            (hash_keys, range_keys),
            lambda binder, node: CompiledKeyCondition(node, binder, hash_keys, range_keys),
        )
        return compiled.bind(self.values)

    def search_condition(self, text: Any) -> tuple[SearchEquality, ...]:
        """SearchVectors' SearchConditionExpression: its equalities (values still as placeholders)."""
        compiled = self._compile(
            "SearchConditionExpression",
            text,
            None,
            lambda binder, node: CompiledSearchCondition(node, binder),
        )
        return compiled.equalities

    def finish(self) -> None:
        unused = [name for name in self.names if name not in self._names_used]
        if unused:
            raise _unused("ExpressionAttributeNames", java_set_order(unused, len(self.names)))
        unused = [name for name in self.values if name not in self._values_used]
        if unused:
            raise _unused("ExpressionAttributeValues", java_set_order(unused, len(self.values)))


def _unused(parameter: str, keys: list[str]) -> DynamoDBError:
    return validation(f"Value provided in {parameter} unused in expressions: keys: {{{', '.join(keys)}}}")


def _parse(kind: str, text: str) -> Any:
    from . import parser

    if kind == "UpdateExpression":
        return parser.parse_update(text)
    if kind == "ProjectionExpression":
        return parser.parse_projection(text)
    return parser.parse_condition(text, kind)
