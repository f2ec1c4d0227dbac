"""The console's writes as POST handlers: each reads its form (CSRF-checked by
:meth:`Console.handle <singletable.ui._app.Console.handle>`), writes through :mod:`._writes`, and redirects to
the page that shows the result -- or shows the form again with the refusal beside it, nothing written.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from singletable import data
from singletable.data.shared import dumps
from singletable.ui._app import Console, Refused
from singletable.ui._images import changes, image_of
from singletable.ui._pages import Editor, _key_param, document, editor_of, item_page, new_item_page
from singletable.ui._writes import Conflict, WriteRefused, as_item

CONDITION_FIELDS = ("condition", "names", "values")


def _key_text(key: dict) -> str:
    return dumps(data.item_to_json(key))


def create_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    try:
        written = console.writer.create(
            name, form.get("entity", ""), form.get("body", ""), form.get("format", "plain"), form
        )
    except Conflict as conflict:
        return conflict_page(console, request, name, conflict, form, "create")
    except (WriteRefused, ValueError) as error:
        return new_item_page(console, request, name, form, error=str(error), status=400)
    assert written.key is not None
    return console.redirect(request, f"/tables/{name}/item", key=_key_text(written.key), done="created")


def save_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    key = _key_param(form.get("key", ""))
    fmt = form.get("format", "")
    try:
        written = console.writer.save(
            name, key, form.get("entity", ""), form.get("body", ""), fmt, form.get("loaded", ""), form
        )
    except Conflict as conflict:
        return conflict_page(console, request, name, conflict, form, "save")
    except (WriteRefused, ValueError) as error:
        stored = console.writer.stored(name, key)
        if stored is None:
            raise Refused(404, f"the item was deleted meanwhile ({error})") from None
        return item_page(console, request, name, key, stored, fmt, form, error=str(error), status=400)
    done = "saved" if written.changed else "unchanged"
    return console.redirect(request, f"/tables/{name}/item", key=_key_text(key), format=fmt, done=done)


def delete_item(console: Console, request: Request, form: dict[str, str]) -> Response:
    name = request.path_params["table"]
    key = _key_param(form.get("key", ""))
    try:
        console.writer.delete(name, key, form.get("loaded", ""), form)
    except Conflict as conflict:
        return conflict_page(console, request, name, conflict, form, "delete")
    except (WriteRefused, ValueError) as error:
        stored = console.writer.stored(name, key)
        if stored is None:
            raise Refused(404, f"there is no such item to delete ({error})") from None
        return item_page(console, request, name, key, stored, "", {}, error=str(error), status=400)
    return console.redirect(request, f"/tables/{name}/items", done="deleted")


def conflict_page(
    console: Console, request: Request, name: str, conflict: Conflict, form: dict[str, str], action: str
) -> Response:
    """409: the write was not made because the item is not the one the person saw. Shows their version (the
    text they sent) beside the item stored now, in the same editor format, naming the attributes that
    differ; offers to write theirs over the stored one (or to create it again), now conditioned on the item
    as shown here."""
    fmt = form.get("format", "") or "dynamodb"
    stored = conflict.stored
    design = console.design_for(name)
    now = editor_of(design, stored, fmt) if stored is not None else None
    return console.render(
        request,
        "conflict.html",
        409,
        name=name,
        action=action,
        reason=conflict.reason,
        key_param=_key_text(conflict.key),
        entity=form.get("entity", ""),
        fmt=fmt,
        body=form.get("body", ""),
        now=now,
        stored=document(data.item_to_json(stored)) if stored is not None else None,
        loaded=image_of(stored) if stored is not None else "",
        differ=_differ(form.get("body", ""), fmt, now.text if now is not None else None, now),
    )


def _differ(theirs: str, fmt: str, stored_text: str | None, now: Editor | None) -> list[str]:
    """The top-level names whose value differs between the person's text and the stored item's, when both
    can be read (attributes as DynamoDB compares them; an entity's fields as JSON)."""
    if stored_text is None:
        return []
    try:
        mine, stored = (data.read_json(text) for text in (theirs, stored_text))
    except ValueError:
        return []
    if not isinstance(mine, dict) or not isinstance(stored, dict):
        return []
    if now is None or not now.entity or fmt == "dynamodb":
        try:
            return changes(as_item(stored, fmt), as_item(mine, fmt)).names
        except (WriteRefused, ValueError):
            pass
    return [k for k in dict.fromkeys([*mine, *stored]) if mine.get(k) != stored.get(k)]


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
