"""SearchVectors: the TopK items of a vector index nearest a search vector, best first, with their scores.

Checked in DynamoDB's order: TopK's range, the expressions' syntax, the table and the index, the search
vector (its values, then its length), then the SearchConditionExpression against the index's SearchSchema
(every attribute in it, top-level only, one condition each, the HASH attribute given by equality with a
value of its type). The search itself is exact (see ``_vector_search``): COSINE and EUCLIDEAN scores
smallest first, DOT_PRODUCT largest first, equal scores in key order. Results show the item as the index
projects it, without the vector unless the ProjectionExpression names it (then as the index's float32
copy). ConsumedCapacity is ``VectorSearchRequestBytes`` alone, the same under TOTAL and INDEXES.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from singletable.engine import _attribute_values as codec
from singletable.engine._errors import validation
from singletable.engine._expressions import Projection, RequestExpressions, SearchEquality
from singletable.engine._interfaces import OperationEngine
from singletable.engine._numbers import normalize_number
from singletable.engine._schema import VectorIndexSchema
from singletable.engine._vector_definitions import require_numpy
from singletable.engine._vector_entries import F32_MAX, MIN_WRITE_BYTES, filter_text, projected_entry
from singletable.engine._vector_search import Hit, filter_mask, float32_text, search

MAX_TOP_K = 100
# What the service's search figure grows by a dimension (published measurements, 16 to 512 dimensions).
SEARCH_BYTES_PER_DIMENSION = 30.6875
_PREFIX = "Invalid SearchConditionExpression: "
INVALID_VECTOR = (
    "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point "
    "number attribute"
)


def run(engine: OperationEngine, params: dict[str, Any]) -> dict[str, Any]:
    top_k = params["TopK"]
    if top_k > MAX_TOP_K:
        raise validation(
            f"Provided TopK value '{top_k}' is out of valid range. The value must be between 1 and "
            f"{MAX_TOP_K} inclusive"
        )
    condition_text = params.get("SearchConditionExpression")
    projection_text = params.get("ProjectionExpression")
    expressions = RequestExpressions(
        params.get("ExpressionAttributeNames"),
        params.get("ExpressionAttributeValues"),
        uses_expressions=condition_text is not None or projection_text is not None,
        absent="SearchConditionExpression is null",
    )
    equalities = expressions.search_condition(condition_text) if condition_text is not None else None
    projection = expressions.projection(projection_text) if projection_text is not None else None
    schema = engine.table(params["TableName"])
    vindex = schema.vector_indexes.get(params["IndexName"])
    if vindex is None:
        raise validation(f"The table does not have the specified index: {params['IndexName']}")
    require_numpy()
    import numpy

    query = numpy.array(_query_vector(params["SearchVector"], vindex), dtype=numpy.float32)
    part, filters = _scope(vindex, equalities, expressions.values)
    expressions.finish()

    matrix = engine.vectors.matrix(schema.table_id, vindex)
    mask = filter_mask(matrix, part, filters)
    hits = search(matrix, part, query, top_k, mask)
    shown = [_result(engine, schema, vindex, hit, projection, numpy) for hit in hits]
    results = [result for result in shown if result is not None]
    response: dict[str, Any] = {"SearchResults": [result.answer for result in results]}
    if params.get("ReturnConsumedCapacity") in ("TOTAL", "INDEXES"):
        response["ConsumedCapacity"] = {"VectorSearchRequestBytes": _request_bytes(vindex, results)}
    return response


class _Shown(NamedTuple):
    """One result as answered, with the stored size of its item without the vector (for capacity)."""

    answer: dict[str, Any]
    size: int
    with_vector: bool


def _request_bytes(vindex: VectorIndexSchema, results: list[_Shown]) -> float:
    """VectorSearchRequestBytes, modelled on published measurements of the service (which does not repeat
    its own figure exactly): ~30.7 bytes a dimension for the search, each result's item without its vector,
    and 4 bytes a dimension for each vector returned; at least 1,024."""
    total = vindex.dimensions * SEARCH_BYTES_PER_DIMENSION
    total += sum(result.size + (4 * vindex.dimensions if result.with_vector else 0) for result in results)
    return float(max(MIN_WRITE_BYTES, round(total)))


def _query_vector(values: list[Any], vindex: VectorIndexSchema) -> list[float]:
    """The search vector's numbers: every value a number within float32's range, then the right length."""
    floats: list[float] = []
    for value in values:
        text = value.get("N") if isinstance(value, dict) else None
        if text is None:
            raise validation(INVALID_VECTOR)
        number = float(text)
        if not -F32_MAX <= number <= F32_MAX:
            raise validation(INVALID_VECTOR)
        floats.append(number)
    if len(floats) != vindex.dimensions:
        raise validation(
            f"Input search vector dimension {len(floats)} does not match vector index dimension "
            f"{vindex.dimensions}"
        )
    return floats


def _scope(
    vindex: VectorIndexSchema, equalities: tuple[SearchEquality, ...] | None, values: dict[str, Any]
) -> tuple[bytes, dict[str, str]]:
    """The partition a search is confined to (its HASH value's key bytes, b"" without a HASH element) and
    the INLINE_FILTER values it must match, after DynamoDB's checks of the condition against the index."""
    equalities = equalities or ()
    schema_types = {attr.name: attr.type for attr in vindex.schema_attributes}
    for equality in equalities:
        if equality.name not in schema_types:
            raise validation(
                "SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
                f"Invalid attribute: {equality.name}"
            )
    if any(equality.nested for equality in equalities):
        raise validation(f"{_PREFIX}SearchConditionExpression cannot have conditions on nested attributes")
    names = [equality.name for equality in equalities]
    if len(set(names)) != len(names):
        raise validation(f"{_PREFIX}SearchConditionExpression must only contain one condition per attribute")
    by_name = {equality.name: values[equality.value] for equality in equalities}
    part = b""
    hash_attr = vindex.hash
    if hash_attr is not None:
        value = by_name.pop(hash_attr.name, None)
        if value is None:
            if equalities:  # an expression, but not on the HASH attribute
                raise validation(
                    "SearchConditionExpression must have all HASH attributes in configured SearchSchema"
                )
            raise validation("SearchConditionExpression must be provided when SearchSchema has a HASH key")
        kind = next(iter(value))
        if kind != hash_attr.type:
            raise validation(
                f"Type of '{hash_attr.name}' attribute in SearchConditionExpression ({kind}) does not match "
                f"type in search schema ({hash_attr.type})"
            )
        if value[kind] in ("", b""):
            raise validation(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                f"contain an empty {'string' if kind == 'S' else 'binary'} value. Key: {hash_attr.name}"
            )
        part = codec.encode_key(value, kind)
    filters: dict[str, str] = {}
    for name, value in by_name.items():
        kind = next(iter(value))
        # A value of another type than the attribute's can equal no stored value: it matches nothing.
        filters[name] = filter_text(value, kind) if kind == schema_types[name] else "\x00" + kind
    return part, filters


def _result(
    engine: OperationEngine,
    schema: Any,
    vindex: VectorIndexSchema,
    hit: Hit,
    projection: Projection | None,
    numpy: Any,
) -> _Shown | None:
    """One SearchResults entry: the item as the index projects it (the vector as its float32 copy, shown
    only when the ProjectionExpression names it), and the score."""
    stored = engine.storage.get_item(schema.table_id, *hit.key)
    if stored is None:  # the matrices follow SQLite under the same lock: cannot happen
        return None
    shown = dict(projected_entry(schema, vindex, codec.loads_item(stored[0])))
    vector = shown.pop(vindex.attribute, None)
    size = codec.item_size(shown)
    if projection is not None:
        if vector is not None:
            shown[vindex.attribute] = {
                "L": [{"N": normalize_number(float32_text(numpy, x))} for x in hit.vector.tolist()]
            }
        shown = projection.apply(shown)
    answer = {"Item": shown, "Score": hit.score}
    return _Shown(answer, size, vindex.attribute in shown)
