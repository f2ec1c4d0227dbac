"""What Query and Scan share: Select rules, paging by Limit and 1 MB, filtering, projection, capacity.

Both read rows in key order from storage, evaluate up to Limit items or 1 MB (counted before the filter and
projection, as DynamoDB counts), and report the last key they evaluated so the caller can resume.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from singletable.engine import _attribute_values as codec
from singletable.engine._capacity import READ_UNIT, Capacity
from singletable.engine._errors import validation
from singletable.engine._schema import IndexSchema, TableSchema

PAGE_BYTES = 1024 * 1024
SELECTS = ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT", "SPECIFIC_ATTRIBUTES")


def resolve_index(schema: TableSchema, params: dict[str, Any], verb: str) -> IndexSchema | None:
    """The index named by IndexName (validated), with DynamoDB's rules on ConsistentRead and Select."""
    name = params.get("IndexName")
    index = None
    if name is not None:
        index = schema.indexes.get(name)
        if index is None:
            if name in schema.vector_indexes:  # searched by SearchVectors only
                operation = "Query" if verb == "querying" else "Scan"
                raise validation(f"{operation} operation not supported on this index type")
            raise validation(f"The table does not have the specified index: {name}")
        if index.is_global and params.get("ConsistentRead"):
            raise validation("Consistent reads are not supported on global secondary indexes")
        if index.is_global and any(
            gsi["IndexName"] == name and gsi.get("IndexStatus") == "CREATING"
            for gsi in schema.description["GlobalSecondaryIndexes"]
        ):
            # An index created by UpdateTable cannot be read until its backfill finishes.
            raise validation("Cannot read from backfilling global secondary index")
    select = params.get("Select")
    has_projection = (
        params.get("ProjectionExpression") is not None or params.get("AttributesToGet") is not None
    )
    projection_name = "ProjectionExpression" if params.get("AttributesToGet") is None else "AttributesToGet"
    if select is not None:
        if select not in SELECTS:
            raise validation(
                "Select must be ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, COUNT, or SPECIFIC_ATTRIBUTES"
            )
        if (
            select == "ALL_ATTRIBUTES"
            and index is not None
            and index.is_global
            and index.projection_type != "ALL"
        ):
            raise validation(
                "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for "
                f"global secondary index {index.name} because its projection type is not ALL"
            )
        if select == "SPECIFIC_ATTRIBUTES" and not has_projection:
            raise validation(
                "Must specify the AttributesToGet or ProjectionExpression "
                "when choosing to get SPECIFIC_ATTRIBUTES"
            )
        if select == "COUNT" and has_projection:
            raise validation(f"Cannot specify the {projection_name} when choosing to get only the Count")
        if select in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES") and has_projection:
            raise validation(f"Cannot specify the {projection_name} when choosing to get {select}")
        if select == "ALL_PROJECTED_ATTRIBUTES" and index is None:
            # After the projection conflicts, and worded for Query on a Scan too (AWS's text).
            raise validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
    limit = params.get("Limit")
    if limit is not None and limit < 1:
        raise validation("Limit must be greater than or equal to 1")
    return index


def check_index_projection(
    schema: TableSchema, index: IndexSchema | None, filter_: Any, projection: Any, *, check_filter: bool
) -> None:
    """A global index holds only its projection, so naming anything else is an error, not an empty answer.

    Query checks the filter's attributes and then the projection's; Scan only the projection (as DynamoDB
    does). Local indexes fetch missing attributes from the table, so they are never refused.
    """
    if index is None or not index.is_global or index.projected is None:
        return
    held = index.projected.union(schema.index_key_names(index))
    if check_filter and filter_ is not None:
        missing = sorted(name for name in filter_.top_level_names if name not in held)
        if missing:
            raise validation(
                "One or more parameter values were invalid: Secondary index "
                f"{index.name} does not project one or more filter attributes: [{', '.join(missing)}]"
            )
    if projection is not None:
        missing = sorted(name for name in projection.top_level_names if name not in held)
        if missing:
            raise validation(
                "One or more parameter values were invalid: Global secondary index "
                f"{index.name} does not project [{', '.join(missing)}]"
            )


def start_key_attrs(schema: TableSchema, index: IndexSchema | None) -> tuple[tuple[str, str], ...]:
    """(name, type) of every attribute an ExclusiveStartKey / LastEvaluatedKey carries."""
    attrs = [(schema.hash.name, schema.hash.type)]
    if schema.range is not None:
        attrs.append((schema.range.name, schema.range.type))
    if index is not None:
        for attr, _is_hash in index.key_attrs:
            if all(attr.name != name for name, _ in attrs):
                attrs.append((attr.name, attr.type))
    return tuple(attrs)


# AWS's answer to an ExclusiveStartKey of the wrong attributes, whether too few, too many or other ones
# (DynamoDB Local 1.25.1 says "Exclusive Start Key must have same size as table's key schema" when the count
# differs).
INVALID_START_KEY = "The provided starting key is invalid"


def check_start_key(schema: TableSchema, index: IndexSchema | None, start: Any) -> dict[str, Any]:
    attrs = start_key_attrs(schema, index)
    if not isinstance(start, dict) or len(start) != len(attrs):
        raise validation(INVALID_START_KEY)
    for name, av in start.items():  # a malformed value first, as in any other key
        if av is not None:
            codec.validate_value(av, context=codec.ValueContext.KEY, name=name)
    for name, kind in attrs:
        av = start.get(name)
        if av is None:
            raise validation(INVALID_START_KEY)
        if not isinstance(av, dict) or kind not in av or len(av) != 1:
            raise validation("Type mismatch for attribute to update")
        if av[kind] is None:  # {"S": null}: no value of any type, as a key given so is refused
            raise validation(codec.EMPTY)
    return start


def last_key(schema: TableSchema, index: IndexSchema | None, item: dict[str, Any]) -> dict[str, Any]:
    return {name: item[name] for name, _ in start_key_attrs(schema, index) if name in item}


class Page:
    """One page of a Query or Scan being assembled."""

    def __init__(
        self,
        schema: TableSchema,
        index: IndexSchema | None,
        params: dict[str, Any],
        filter_: Callable[[dict[str, Any]], bool] | None,
        projection: Any,
        for_wire: bool = False,
    ) -> None:
        self.schema = schema
        self.index = index
        self.limit = params.get("Limit")
        self.count_only = params.get("Select") == "COUNT"
        self.consistent = bool(params.get("ConsistentRead"))
        self.filter = filter_
        self.projection = projection
        # An index entry holds the item as the index projects it. A local index asked for all attributes,
        # or for a projection, fetches the whole items from the table instead (as DynamoDB's LSIs do).
        self.fetch = (
            index is not None
            and index.projected is not None
            and not index.is_global
            and (params.get("Select") == "ALL_ATTRIBUTES" or projection is not None)
        )
        # Answering for the wire codec, a page that returns its items whole passes them on undecoded.
        self.pass_through = for_wire and filter_ is None and projection is None and not self.count_only
        self.items: list[Any] = []
        self.count = 0
        self.scanned = 0
        self.bytes_read = 0
        self.last: dict[str, Any] | None = None

    def consume(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Evaluate rows until Limit or 1 MB; sets ``last`` when the page stopped early."""
        if self.pass_through:
            self._pass_through(rows)
            return
        limit = self.limit
        for row in rows:
            item = codec.loads_item(row[0])
            self.scanned += 1
            self.bytes_read += row[1]
            if self.filter is None or self.filter(item):
                self.count += 1
                if not self.count_only:
                    self.items.append(self.projection.apply(item) if self.projection is not None else item)
            if (limit is not None and self.scanned >= limit) or self.bytes_read >= PAGE_BYTES:
                self.last = last_key(self.schema, self.index, item)
                break

    def _pass_through(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """:meth:`consume` for a page answered for the wire with nothing to evaluate: every row is an item
        returned whole, as its stored JSON (``orjson.Fragment``). Only the last item of a page that stops
        early is decoded, for its LastEvaluatedKey."""
        limit = self.limit
        items = self.items
        fragment = codec.wire_fragment
        for row in rows:
            items.append(fragment(row[0]))
            self.bytes_read += row[1]
            if (limit is not None and len(items) >= limit) or self.bytes_read >= PAGE_BYTES:
                self.last = last_key(self.schema, self.index, codec.loads_item(row[0]))
                break
        self.count = self.scanned = len(items)

    def response(self, mode: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not self.count_only:
            out["Items"] = self.items
        out["Count"] = self.count
        out["ScannedCount"] = self.scanned
        if self.last is not None:
            out["LastEvaluatedKey"] = self.last
        if mode is not None and mode != "NONE":
            units = float(-(-self.bytes_read // READ_UNIT))
            if not self.consistent:
                units /= 2
            capacity = Capacity(self.schema.name)
            if self.index is None:
                capacity.table = units
            else:
                capacity.add_index(self.index.name, self.index.is_global, units)
            out["ConsumedCapacity"] = capacity.render(mode)
        return out
