"""The console's writes as POST handlers: each reads its form (CSRF-checked by
:meth:`Console.handle <singletable.ui._app.Console.handle>`), writes through :mod:`._writes`, and redirects to
the page that shows the result -- or shows the form again with the refusal beside it, nothing written.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from singletable import data
from singletable.data._item_json import dumps
from singletable.ui._app import Console, Refused
from singletable.ui._pages import _key_param, item_page, new_item_page
from singletable.ui._writes import WriteRefused

CONDITION_FIELDS = ("condition", "names", "values")


def _key_text(key: dict) -> str:
    return dumps(data.item_to_json(key))


def create_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    try:
        written = console.writer.create(
            name, form.get("entity", ""), form.get("body", ""), form.get("format", "plain"), form
        )
    except (WriteRefused, ValueError) as error:
        return new_item_page(console, request, name, form, error=str(error), status=400)
    assert written.key is not None
    return console.redirect(request, f"/tables/{name}/item", key=_key_text(written.key), done="created")


def save_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    key = _key_param(form.get("key", ""))
    try:
        console.writer.save(
            name, key, form.get("entity", ""), form.get("body", ""), form.get("format", ""), form
        )
    except (WriteRefused, ValueError) as error:
        stored = data.get(console.target, name, key, consistent=True)
        if stored is None:
            raise Refused(404, f"the item was deleted meanwhile ({error})") from None
        return item_page(
            console, request, name, key, stored, form.get("format", ""), form, error=str(error), status=400
        )
    return console.redirect(request, f"/tables/{name}/item", key=_key_text(key), done="saved")


def delete_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    key = _key_param(form.get("key", ""))
    stored = data.get(console.target, name, key, consistent=True)
    try:
        console.writer.delete(name, key, stored, form)
    except (WriteRefused, ValueError) as error:
        if stored is None:
            raise Refused(404, f"there is no such item to delete ({error})") from None
        return item_page(console, request, name, key, stored, "", {}, error=str(error), status=400)
    return console.redirect(request, f"/tables/{name}/items", done="deleted")


def create_table(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = form.get("table", "")
    if console.design is None or name != console.design_table:
        raise Refused(400, "only the design's own table can be created here (start with --design MODULE)")
    try:
        console.writer.create_table(name)
    except WriteRefused as error:
        raise Refused(400, str(error)) from None
    return console.redirect(request, f"/tables/{name}", done="table-created")


def delete_table(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    if form.get("confirm", "") != name:
        description = data.describe(console.target, name)
        return console.render(
            request,
            "delete_table.html",
            400,
            name=name,
            description=description,
            error=f"type the table's name, {name}, to confirm",
        )
    try:
        console.writer.delete_table(name)
    except WriteRefused as error:
        raise Refused(400, str(error)) from None
    return console.redirect(request, "/", done="table-deleted")


ROUTES = [
    ("/tables/create", create_table),
    ("/tables/{table}/items", create_item),
    ("/tables/{table}/item/save", save_item),
    ("/tables/{table}/item/delete", delete_item),
    ("/tables/{table}/delete", delete_table),
]
