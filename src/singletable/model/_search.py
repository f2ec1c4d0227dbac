"""The requests of ``db.similar``: one SearchVectors built from typed arguments, and for a narrow projection
one BatchGetItem of the whole items.

Every argument is checked before anything is sent -- the vector (length, finite numbers), ``top_k``, and
``where``: each field it names must be in the index's search schema, the partition field given by equality,
as DynamoDB requires -- so a search that could not work is refused naming the entity and field instead of
coming back as a ValidationException. What the declaration checks is in :mod:`singletable.model._similar`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from singletable.model._batches import batch_get
from singletable.model._entity_meta import EntityMeta
from singletable.model._errors import FieldValueError, RequestRefused
from singletable.model._expr import Compiler, Cond, Path
from singletable.model._field_values import AV
from singletable.model._read_items import BAD_ITEM, stored_item_error
from singletable.model._similar import Scored, Similar
from singletable.model._steps import Request, Steps
from singletable.model._vector_index import MAX_TOP_K, VectorIndex
from singletable.model._vectors import query_vector


def similar_steps(
    table_name: str,
    search: Any,
    vector: Any,
    top_k: int,
    where: Cond | None,
    with_vector: bool,
) -> Steps[list[Scored[Any]]]:
    """The SearchVectors of ``db.similar``, then (for a narrow projection) the BatchGetItem of whole items."""
    bound = _bound(search)
    meta = bound.meta
    assert meta is not None
    params = search_params(table_name, bound, vector, top_k, where, with_vector)
    response = yield Request("SearchVectors", params)
    results = [
        (r["Item"], float(r["Score"])) for r in response.get("SearchResults", []) if meta.matches(r["Item"])
    ]
    if bound.hydrate and results:
        keys = [{k: item[k] for k in meta.table.key_attributes() if k in item} for item, _ in results]
        found = yield from batch_get(table_name, keys, raw=True)
        whole = {_key_of(meta, item): item for item in found}
        results = [(whole[k], s) for item, s in results if (k := _key_of(meta, item)) in whole]
        return [Scored(_decoded(meta, item, table_name, False), score) for item, score in results]
    partial = not with_vector
    return [Scored(_decoded(meta, item, table_name, partial), score) for item, score in results]


def search_params(
    table_name: str, search: Similar, vector: Any, top_k: int, where: Cond | None, with_vector: bool
) -> dict[str, Any]:
    """SearchVectors' request for a search, every argument checked before anything is sent."""
    meta = search.meta
    assert meta is not None
    vi: VectorIndex = search.vector_index
    label = f"{meta.cls.__name__}.{search.name}"
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise RequestRefused(
            f"{label}: top_k must be an int from 1 to {MAX_TOP_K} (DynamoDB's TopK), not {top_k!r}"
        )
    try:
        search_vector = query_vector(vector, vi.dimensions)
    except ValueError as error:
        spec = meta.fields[search.vector_field]
        expected = spec.codec.expected
        raise FieldValueError(meta.type, search.vector_field, expected, vector, str(error)) from None
    params: dict[str, Any] = {
        "TableName": table_name,
        "IndexName": vi.name,
        "SearchVector": search_vector,
        "TopK": top_k,
    }
    condition = _condition(search, where, label)
    compiler = Compiler()
    if condition is not None:
        params["SearchConditionExpression"] = condition.compile(compiler)
    if with_vector:
        attributes = dict.fromkeys(
            [*meta.table.key_attributes(), meta.table.type_attribute]
            + [f.attribute for f in meta.fields.values() if f.stored]
        )
        params["ProjectionExpression"] = ", ".join(compiler.name(a) for a in attributes)
    return compiler.into(params)


def _bound(search: Any) -> Similar:
    if not isinstance(search, Similar) or search.meta is None:
        raise TypeError(
            f"db.similar() takes a search declared in an entity (by_meaning = Similar('IndexName'), then "
            f"db.similar(Doc.by_meaning, vector)), not {search!r}"
        )
    return search


def _condition(search: Similar, where: Cond | None, label: str) -> Cond | None:
    """``where`` checked against the index's search schema, and the type filter added when the index has
    the table's type attribute as an inline filter."""
    meta = search.meta
    assert meta is not None
    vi = search.vector_index
    if where is not None and not isinstance(where, Cond):
        raise TypeError(
            f"{label}: where= takes a condition on {meta.type}'s fields ({meta.cls.__name__}.f.x == v), "
            f"not {where!r}"
        )
    if where is not None:
        for path in where.paths():
            _check_path(search, path, label)
    if search.partition_field is not None:
        given = _equalities(where)
        if search.partition_field not in given:
            raise RequestRefused(
                f"{label}: {vi.name} is partitioned by {search.partition_field} ({vi.partition_attribute}); "
                f"every search gives it by equality, where={meta.cls.__name__}.f.{search.partition_field} == "
                "... (alone or joined to other conditions with &)"
            )
    if search.by_type:
        typed = meta.table.attribute(meta.table.type_attribute) == meta.type
        where = typed if where is None else where & typed
    return where


def _check_path(search: Similar, path: Path, label: str) -> None:
    meta = search.meta
    assert meta is not None
    vi = search.vector_index
    if not path.top_level:
        raise RequestRefused(f"{label}: a search filters on top-level attributes only, not {path!r}")
    if path.entity != meta.type:
        raise RequestRefused(f"{label}: where= names {path!r}, a field of another entity")
    if path.field not in search.schema_fields:
        schema = ", ".join(f"{f} ({a})" for f, a in search.schema_fields.items()) or "none"
        raise RequestRefused(
            f"{label}: {vi.name} can filter only on its search schema's attributes -- {schema}; "
            f"{path.field} ({path.steps[0]}) is not one of them (declare it in VectorIndex(filters=[...]))"
        )


def _equalities(where: Cond | None) -> set[str]:
    """The fields ``where`` pins by equality in its top-level AND chain (what a HASH attribute needs)."""
    if where is None:
        return set()
    if where.op == "AND":
        return _equalities(where.args[0]) | _equalities(where.args[1])
    if where.op == "CMP":
        left, sign, right = where.args
        if sign == "=" and isinstance(left, Path) and not isinstance(right, Path):
            return {left.field}
    return set()


def _key_of(meta: EntityMeta, item: Mapping[str, AV]) -> tuple[Any, ...]:
    return tuple(repr(item.get(k)) for k in meta.table.key_attributes())


def _decoded(meta: EntityMeta, item: dict[str, AV], table_name: str, partial: bool) -> Any:
    try:
        return meta.from_item(item, partial=partial)
    except BAD_ITEM as error:
        raise stored_item_error(meta, item, table_name, error) from None
