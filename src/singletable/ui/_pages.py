"""The console's pages that only read: tables, a table's description, item collections, one item, raw Query
and Scan, the design's access patterns. Each is ``handler(console, request, form) -> Response``, run by
:meth:`Console.handle <singletable.ui._app.Console.handle>` in a worker thread; ``form`` is the query string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from singletable import data
from singletable.data import DesignError, TargetError, item_from_json, item_to_json, key_schema, read_json
from singletable.data.shared import dumps
from singletable.ui._app import Console, Refused
from singletable.ui._editor_json import to_editor
from singletable.ui._entity_edits import fields_json
from singletable.ui._images import image_of
from singletable.ui._present import document, label, one_line, show
from singletable.ui._reads import (
    SORT_OPERATORS,
    ReadForm,
    browse_request,
    limit_of,
    raw_request,
    read_page,
    scope_of,
    typed,
)
from singletable.ui._writes import FORMATS

# How many tables the first page lists (each one is described for its size and item count).
TABLES_SHOWN = 100


def tables(console: Console, request: Request, form: dict[str, str]) -> Response:
    names = list(_first(data.tables(console.target), TABLES_SHOWN + 1))
    rows: list[tuple[str, dict[str, Any] | None, str]] = []
    for name in names[:TABLES_SHOWN]:
        try:
            rows.append((name, data.describe(console.target, name), ""))
        except TargetError as error:  # deleted meanwhile, or refused: the row says so
            rows.append((name, None, f"{error.code}: {error.message}"))
    missing = console.design is not None and console.design_table not in names
    return console.render(
        request,
        "tables.html",
        rows=rows,
        more=len(names) > TABLES_SHOWN,
        design_missing=missing,
        done=_done(form),
    )


def _first(values: Any, count: int) -> Any:
    for number, value in enumerate(values):
        if number == count:
            return
        yield value


def table(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    try:
        ttl = console.target.call("DescribeTimeToLive", TableName=name).get("TimeToLiveDescription", {})
    except TargetError as error:
        ttl = {"TimeToLiveStatus": f"unknown ({error.code})"}
    indexes = [("global", index) for index in description.get("GlobalSecondaryIndexes", ())] + [
        ("local", index) for index in description.get("LocalSecondaryIndexes", ())
    ]
    return console.render(
        request,
        "table.html",
        name=name,
        description=description,
        indexes=indexes,
        vector_indexes=description.get("VectorIndexes", []),
        ttl=ttl,
        streams=description.get("StreamSpecification"),
        has_design=console.design_for(name) is not None,
        raw=document(_jsonable(description)),
        done=_done(form),
    )


def _jsonable(value: Any) -> Any:
    """A DescribeTable answer for a JSON dump: datetimes and other values as text."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _indexes(description: dict[str, Any]) -> list[str]:
    return [
        index["IndexName"]
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
        for index in description.get(kind, ())
    ]


def items(console: Console, request: Request, form: dict[str, str]) -> Response:
    """Item collections: the table or an index by partition, paged; jump to a partition; filter by entity."""
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    design = console.design_for(name)
    choices = {
        key: form.get(key, "") for key in ("index", "partition", "sort_prefix", "partition_prefix", "entity")
    }
    operation, params = browse_request(
        description,
        design,
        index=choices["index"] or None,
        partition=choices["partition"],
        sort_prefix=choices["sort_prefix"],
        partition_prefix=choices["partition_prefix"],
        entity=choices["entity"],
    )
    limit = limit_of(form.get("limit"))
    page = read_page(
        console.target,
        description,
        design,
        console.secret,
        operation,
        params,
        scope=scope_of("browse", name, **choices),
        cursor=form.get("page") or None,
        limit=limit,
    )
    return console.render(
        request,
        "items.html",
        name=name,
        page=page,
        choices=choices,
        limit=form.get("limit", ""),
        indexes=_indexes(description),
        entities=sorted(design.entities) if design else [],
        request_doc=document(page.request),
        done=_done(form),
    )


def _key_param(text: str) -> dict[str, Any]:
    try:
        return item_from_json(read_json(text))
    except ValueError as error:
        raise Refused(400, f"the item key in the address is not a DynamoDB JSON key: {error}") from None


def item(console: Console, request: Request, form: dict[str, str]) -> Response:
    """One item: all of it (collapsed when large), its editor and its delete form."""
    name = request.path_params["table"]
    key = _key_param(form.get("key", ""))
    stored = data.get(console.target, name, key, consistent=True)
    if stored is None:
        raise Refused(404, f"no item in {name} has the key {data.render_item(key)}")
    return item_page(console, request, name, key, stored, form.get("format", ""), form)


def item_page(
    console: Console,
    request: Request,
    name: str,
    key: dict[str, Any],
    stored: dict[str, Any],
    fmt: str,
    form: dict[str, str],
    error: str = "",
    status: int = 200,
) -> Response:
    """The item page: the item as stored, its editor (holding ``form``'s text when shown again after a
    refusal) and its delete form, both carrying the image of ``stored`` the page shows."""
    description = data.describe(console.target, name)
    design = console.design_for(name)
    editor = editor_of(design, stored, fmt)
    text = form.get("body") or editor.text
    table_key = key_schema(description).names
    return console.render(
        request,
        "item.html",
        status,
        name=name,
        shown=show(stored, table_key, table_key, design),
        entity=editor.entity,
        undeclared=editor.undeclared,
        key_param=dumps(item_to_json(key)),
        # shown again after a refusal, the editor still holds an edit of the item as first loaded
        loaded=form.get("loaded", "") if form.get("body") else image_of(stored),
        stored=document(item_to_json(stored)),
        fmt=editor.fmt,
        body=text,
        form=form,
        error=error,
        done=_done(form),
    )


@dataclass(slots=True)
class Editor:
    """What an item's editor starts with: its format, its text, the entity it edits through the model (""
    for a raw item), and the attributes the design does not declare (kept by the entity-fields editor)."""

    fmt: str
    text: str
    entity: str
    undeclared: list[str]


def editor_of(design: Any, stored: dict[str, Any], fmt: str) -> Editor:
    """The editor for ``stored`` in ``fmt`` (when unset: the entity's fields for an entity, else DynamoDB
    JSON). An item that does not fit its entity is edited raw; one whose fields cannot be shown as JSON is
    edited as DynamoDB JSON."""
    entity = label(design, stored)
    cls = design.entities.get(entity) if design is not None and entity else None
    values = None
    if cls is not None:
        try:
            values = cls.model_entity().from_item(stored)
        except Exception:  # an item that does not fit its entity: edit it as stored instead
            cls = None
    fmt = fmt if fmt in FORMATS else ("plain" if cls is not None else "dynamodb")
    if cls is None:
        body = to_editor(stored) if fmt == "plain" else item_to_json(stored)
        return Editor(fmt, document(body).text, "", [])
    meta = cls.model_entity()
    declared = {spec.attribute for spec in meta.fields.values()} | set(meta.keys)
    undeclared = [a for a in stored if a not in declared and a != meta.table.type_attribute]
    if fmt == "plain":
        try:
            return Editor(fmt, document(fields_json(values)).text, entity, undeclared)
        except ValueError:  # a field pydantic cannot write as JSON (bytes that are not UTF-8): the item
            fmt = "dynamodb"
    return Editor(fmt, document(item_to_json(stored)).text, entity, undeclared)


def new_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    return new_item_page(console, request, name, form)


def new_item_page(
    console: Console, request: Request, name: str, form: dict[str, str], error: str = "", status: int = 200
) -> Response:
    design = console.design_for(name)
    entity = form.get("entity", "")
    if entity and (design is None or entity not in design.entities):
        raise Refused(400, f"no entity {entity!r} in the design of {name}")
    fields = list(design.entities[entity].model_fields) if entity and design else []
    fmt = form.get("format") if form.get("format") in FORMATS else "plain"
    return console.render(
        request,
        "new_item.html",
        status,
        name=name,
        entity=entity,
        entities=sorted(design.entities) if design else [],
        fields=fields,
        fmt=fmt,
        body=form.get("body", ""),
        form=form,
        error=error,
    )


def query(console: Console, request: Request, form: dict[str, str]) -> Response:
    """The raw Query and Scan forms, and a page of results once the form is sent."""
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    page = error = None
    if form.get("operation"):
        try:
            operation, params = raw_request(description, form)
        except ReadForm as refused:  # the form again, with what it lacks (a chosen index's other attributes)
            return console.render(
                request, "query.html", 400, **_query_context(description, name, form, None, str(refused))
            )
        choices = {k: v for k, v in form.items() if k not in ("page", "limit")}
        page = read_page(
            console.target,
            description,
            console.design_for(name),
            console.secret,
            operation,
            params,
            scope=scope_of("raw", name, **choices),
            cursor=form.get("page") or None,
            limit=limit_of(form.get("limit")),
        )
    return console.render(request, "query.html", **_query_context(description, name, form, page, error))


def _query_context(
    description: dict[str, Any], name: str, form: dict[str, str], page: Any, error: str | None
) -> dict[str, Any]:
    return {
        "name": name,
        "form": form,
        "page": page,
        "error": error,
        "indexes": _indexes(description),
        "schema": _form_schema(description, form.get("index") or None),
        "operators": [*SORT_OPERATORS, "between"],
        "request_doc": document(page.request) if page else None,
    }


def _form_schema(description: dict[str, Any], index: str | None) -> Any:
    """The key the raw form asks for: the chosen index's (every attribute of a key of several), else the
    table's (an unknown index is reported when the form runs)."""
    try:
        return key_schema(description, index)
    except ValueError:
        return key_schema(description)


def patterns(console: Console, request: Request, form: dict[str, str]) -> Response:
    """Every access pattern and collection of the design, each with a form from its arguments."""
    name = request.path_params["table"]
    design = console.design_for(name)
    if design is None:
        raise Refused(404, f"{name} has no design: start the console with --design MODULE for its table")
    listed = []
    for pattern_name, declared in design.patterns():
        fields = design.pattern_fields(pattern_name)
        required = set(declared.arguments if hasattr(declared, "takes") else _pk_fields(declared))
        listed.append(
            (
                pattern_name,
                declared.describe(),
                [(f, _type_name(info.annotation), f in required) for f, info in fields.items()],
            )
        )
    return console.render(request, "patterns.html", name=name, patterns=listed)


def _pk_fields(collection: Any) -> tuple[str, ...]:
    return collection.pk_key.template.fields


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def run_pattern(console: Console, request: Request, form: dict[str, str]) -> Response:
    """One page of a pattern: typed results, the exact request, the cursor and the ConsumedCapacity."""
    name = request.path_params["table"]
    design = console.design_for(name)
    if design is None:
        raise Refused(404, f"{name} has no design: start the console with --design MODULE for its table")
    pattern = form.get("pattern", "")
    arguments = {k[2:]: v for k, v in form.items() if k.startswith("f.") and v != ""}
    newest = form.get("newest") == "1"
    try:
        operation, params = design.pattern_request(pattern, arguments, newest_first=newest, table=name)
    except DesignError as error:
        raise Refused(400, str(error)) from None
    description = data.describe(console.target, name)
    page = read_page(
        console.target,
        description,
        design,
        console.secret,
        operation,
        params,
        scope=scope_of("pattern", name, pattern=pattern, newest=newest, **arguments),
        cursor=form.get("page") or None,
        limit=limit_of(form.get("limit")),
    )
    page.typed = typed(design, page.items)
    return console.render(
        request,
        "pattern_run.html",
        name=name,
        pattern=pattern,
        arguments=arguments,
        newest=newest,
        limit=form.get("limit", ""),
        page=page,
        request_doc=document(page.request),
        rows=[
            (one, one_line(one.values), shown.key_param)
            for one, shown in zip(page.typed, [s for p in page.partitions for s in p.items], strict=True)
        ],
    )


def delete_table_page(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    return console.render(request, "delete_table.html", name=name, description=description, error="")


# Messages a redirect after a write may ask a page to show (by name: no text travels in the address).
DONE = {
    "created": "Item created.",
    "saved": "Item saved.",
    "unchanged": "Nothing changed: nothing was written.",
    "deleted": "Item deleted.",
    "table-created": "Table created from the design.",
    "table-deleted": "Table deleted.",
}


def _done(form: dict[str, str]) -> str:
    return DONE.get(form.get("done", ""), "")


ROUTES = [
    ("/", tables),
    ("/tables/{table}", table),
    ("/tables/{table}/items", items),
    ("/tables/{table}/item", item),
    ("/tables/{table}/new", new_item),
    ("/tables/{table}/query", query),
    ("/tables/{table}/patterns", patterns),
    ("/tables/{table}/patterns/run", run_pattern),
    ("/tables/{table}/delete", delete_table_page),
]
