"""The console's vector search: a table's vector indexes, and a form where a vector is pasted and searched.

The form is a POST (a 768-number vector does not belong in an address), CSRF-checked like every form, but a
read: a read-only console serves it too (``Console.endpoint(..., writes=False)``). Everything it sends is
built from checked fields -- the vector's numbers (as many as the index's dimensions, each a finite number),
``top_k`` (1 to 100), one equality per search-schema attribute, typed by the attribute's declared type -- so
a pasted text can never become part of an expression: attribute names go through ``#f`` placeholders and
values through ``:f`` placeholders. What DynamoDB then refuses is shown as its code and message.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from singletable import data
from singletable.data import TargetError, read_json
from singletable.ui._app import Console, Refused
from singletable.ui._inputs import whole_number
from singletable.ui._present import document, show
from singletable.ui._reads import request_json

MAX_DIMENSIONS = 4096  # DynamoDB's vector indexes: 1 to 4096 dimensions
MAX_TOP_K = 100
DEFAULT_TOP_K = 10
# A number as DynamoDB writes one: digits, an optional fraction and exponent (no NaN, no "1_000").
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SEPARATORS = re.compile(r"[\s,]+")


class SearchForm(ValueError):
    """A search form that cannot become a request: what to change, shown beside the form."""


def vector_indexes(description: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(description.get("VectorIndexes", ()))


def parse_vector(text: str, dimensions: int) -> list[dict[str, str]]:
    """A pasted vector -- a JSON array, or numbers separated by commas or spaces -- as SearchVector."""
    text = text.strip()
    if not text:
        raise SearchForm(f"paste a vector of {dimensions} numbers")
    if text.startswith("["):
        try:
            values = read_json(text)
        except ValueError as error:
            raise SearchForm(f"the vector is not a JSON array of numbers: {error}") from None
        if not isinstance(values, list):
            raise SearchForm("the vector is not a JSON array of numbers")
        if any(isinstance(v, bool) or not isinstance(v, int | float | Decimal) for v in values):
            raise SearchForm("the vector's JSON array holds something other than numbers")
        tokens = [str(v) for v in values]
    else:
        tokens = [t for t in _SEPARATORS.split(text) if t]
    if len(tokens) > MAX_DIMENSIONS or len(tokens) != dimensions:
        raise SearchForm(f"the vector has {len(tokens)} numbers; this index's vectors have {dimensions}")
    for position, token in enumerate(tokens):
        if not _NUMBER.fullmatch(token) or not math.isfinite(float(token)):
            shown = token if len(token) <= 30 else token[:30] + "…"
            raise SearchForm(f"number {position + 1} of the vector, {shown!r}, is not a finite number")
    return [{"N": token} for token in tokens]


def _typed(value: str, kind: str, attribute: str) -> dict[str, Any]:
    if kind == "N":
        if not _NUMBER.fullmatch(value.strip()):
            raise SearchForm(f"{attribute} is a number attribute; {value!r} is not a number")
        return {"N": value.strip()}
    if kind == "B":
        try:
            return {"B": base64.b64decode(value, validate=True)}
        except (binascii.Error, ValueError):
            raise SearchForm(f"{attribute} is a binary attribute: give its value as base64") from None
    return {"S": value}


def search_request(
    table: str, description: Mapping[str, Any], form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the vector index searched, SearchVectors' parameters) from the form's fields."""
    indexes = {i["IndexName"]: i for i in vector_indexes(description)}
    index = indexes.get(form.get("index", ""))
    if index is None:
        raise SearchForm(f"choose one of the table's vector indexes: {', '.join(indexes) or 'it has none'}")
    types = {d["AttributeName"]: d["AttributeType"] for d in description.get("AttributeDefinitions", ())}
    top_k_text = form.get("top_k", "").strip() or str(DEFAULT_TOP_K)
    try:
        top_k = whole_number(top_k_text, "top_k", 1, MAX_TOP_K)
    except ValueError as error:
        raise SearchForm(str(error)) from None
    params: dict[str, Any] = {
        "TableName": table,
        "IndexName": index["IndexName"],
        "SearchVector": parse_vector(form.get("vector", ""), int(index["Dimensions"])),
        "TopK": top_k,
        "ReturnConsumedCapacity": "TOTAL",
    }
    conditions, names, values = [], {}, {}
    for number, element in enumerate(index.get("SearchSchema") or ()):
        attribute, role = element["AttributeName"], element["SearchSchemaElementType"]
        value = form.get(f"f.{attribute}", "")
        if value == "":
            if role == "HASH":
                raise SearchForm(
                    f"give {attribute}: the index is partitioned by it, so every search names one"
                )
            continue
        names[f"#f{number}"] = attribute
        values[f":f{number}"] = _typed(value, types.get(attribute, "S"), attribute)
        conditions.append(f"#f{number} = :f{number}")
    if conditions:
        params["SearchConditionExpression"] = " AND ".join(conditions)
        params["ExpressionAttributeNames"] = names
        params["ExpressionAttributeValues"] = values
    return index, params


def search_page(console: Console, request: Request, form: dict[str, str]) -> Response:
    """The form, for the index named in the address (or the first)."""
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    return _render(console, request, name, description, dict(form))


def run_search(console: Console, request: Request, form: dict[str, str]) -> Response:
    """One SearchVectors from the form: the results nearest first, with the request and its capacity."""
    name = request.path_params["table"]
    description = data.describe(console.target, name)
    try:
        _, params = search_request(name, description, form)
    except SearchForm as error:
        return _render(console, request, name, description, form, error=str(error), status=400)
    try:
        response = console.target.call("SearchVectors", **params)
    except TargetError as error:
        if error.code in ("UnknownOperationException", "UnrecognizedClientException"):
            raise Refused(501, f"{console.target.name} cannot search vectors: {error.code}") from None
        message = f"{error.code}: {error.message}"
        return _render(console, request, name, description, form, error=message, status=400, sent=params)
    table_key = [e["AttributeName"] for e in description["KeySchema"]]
    design = console.design_for(name)
    results = [
        (result.get("Score"), show(result["Item"], table_key, table_key, design))
        for result in response.get("SearchResults", ())
    ]
    return _render(
        console, request, name, description, form, results=results, sent=params,
        capacity=response.get("ConsumedCapacity"),
    )  # fmt: skip


def _render(
    console: Console,
    request: Request,
    name: str,
    description: Mapping[str, Any],
    form: Mapping[str, str],
    *,
    error: str = "",
    status: int = 200,
    results: list[tuple[Any, Any]] | None = None,
    sent: dict[str, Any] | None = None,
    capacity: Any = None,
) -> Response:
    indexes = vector_indexes(description)
    if not indexes:
        raise Refused(404, f"{name} has no vector index to search")
    chosen = next((i for i in indexes if i["IndexName"] == form.get("index")), indexes[0])
    types = {d["AttributeName"]: d["AttributeType"] for d in description.get("AttributeDefinitions", ())}
    schema = [
        (e["AttributeName"], e["SearchSchemaElementType"], types.get(e["AttributeName"], "S"))
        for e in chosen.get("SearchSchema") or ()
    ]
    return console.render(
        request,
        "search.html",
        status,
        name=name,
        indexes=indexes,
        chosen=chosen,
        schema=schema,
        form=form,
        error=error,
        results=results,
        request_doc=document(request_json("SearchVectors", sent)) if sent else None,
        capacity=capacity,
    )


PAGES = [("/tables/{table}/search", search_page)]
READS = [("/tables/{table}/search", run_search)]
