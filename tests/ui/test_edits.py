"""Saving an item writes exactly what the person changed, and only to the item they saw -- on every TARGET
kind. An item opened and saved unchanged is not written (every attribute and type kept, byte for byte), in
both editors; a partial edit changes only that attribute; a stale editor, a stale save after a delete and a
stale delete each get a conflict page showing both versions, and write nothing."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from edit_support import TYPE_NAMES, attributes, dumps, loads, names, open_form, unique, values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_support import Client

from draws import examples
from singletable import data

EXAMPLES = settings(
    max_examples=examples(12),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def put(site: Any, item: dict[str, Any]) -> dict[str, Any]:
    site.target.call("PutItem", TableName=site.table, Item=item)
    return {"PK": item["PK"], "SK": item["SK"]}


def stored(site: Any, key: dict[str, Any]) -> dict[str, Any] | None:
    return data.get(site.target, site.table, key, consistent=True)


def save(client: Client, site: Any, form: dict[str, str], **changes: str):
    return client.post(f"/tables/{site.table}/item/save", {**form, **changes})


def assert_unchanged_save(client: Client, site: Any, key: dict[str, Any], fmt: str) -> None:
    before = stored(site, key)
    form = open_form(client, site.table, key, "save", format=fmt)
    assert form["format"] == fmt
    reply = save(client, site, form)
    assert reply.status == 303, reply.text[-3000:]
    assert stored(site, key) == before  # every attribute, type and byte as it was
    assert "done=unchanged" in reply.location  # the console decided there was nothing to write


# -- open and save unchanged --------------------------------------------------------------------------


@EXAMPLES
@given(attributes)
def test_a_raw_item_opened_and_saved_unchanged_is_not_written_in_either_editor(site, extra):
    client = Client(site.url)
    key = put(site, {"PK": {"S": unique("RAW")}, "SK": {"S": "X"}, **extra})
    for fmt in ("plain", "dynamodb"):
        assert_unchanged_save(client, site, key, fmt)


@EXAMPLES
@given(attributes)
def test_an_entity_with_undeclared_attributes_saved_unchanged_keeps_them_in_either_editor(site, extra):
    from console_design import Sheet

    from singletable.model import connect

    db = connect(Sheet.model_entity().table, site.target.engine or site.endpoint, name=site.table)
    sheet = db.create(
        Sheet(sheet_id=unique("s"), title="t", tags={"a", "b"}, sizes={1, 20}, blob=b"\x00x", attrs={"S": 1})
    )
    key = Sheet.model_entity().primary_key(Sheet.model_entity().values(sheet))
    extra = {name: value for name, value in extra.items() if name not in _sheet_attributes()}
    site.target.call(
        "UpdateItem",
        TableName=site.table,
        Key=key,
        **_set_all(extra),
    )
    client = Client(site.url)
    for fmt in ("plain", "dynamodb"):
        form = open_form(client, site.table, key, "save", format=fmt)
        assert form["entity"] == "Sheet"
        assert_unchanged_save(client, site, key, fmt)
    db.close()


def _sheet_attributes() -> set[str]:
    from console_design import Sheet

    meta = Sheet.model_entity()
    return {spec.attribute for spec in meta.fields.values()} | set(meta.keys) | {"entityType"}


def _set_all(extra: dict[str, Any]) -> dict[str, Any]:
    if not extra:
        return {
            "UpdateExpression": "SET #t = :t",
            "ExpressionAttributeNames": {"#t": "touched"},
            "ExpressionAttributeValues": {":t": {"BOOL": True}},
        }
    names = {f"#a{i}": name for i, name in enumerate(extra)}
    values = {f":v{i}": value for i, value in enumerate(extra.values())}
    sets = ", ".join(f"#a{i} = :v{i}" for i in range(len(extra)))
    return {
        "UpdateExpression": f"SET {sets}",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


EVERY_TYPE = {
    "s": {"S": "text"},
    "empty": {"S": ""},
    "n": {"N": "42"},
    "precise": {"N": "1.0000000000000000000000000000000000001"},
    "huge": {"N": "1E+125"},
    "tiny": {"N": "-1E-129"},
    "b": {"B": b"\x00\xff\x10"},
    "emptyb": {"B": b""},
    "ss": {"SS": ["b", "a"]},
    "ns": {"NS": ["1.5", "-3", "1E+100"]},
    "bs": {"BS": [b"\x01", b"\x00\x02"]},
    "bool": {"BOOL": False},
    "null": {"NULL": True},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"SS": ["q"]}, {"L": []}, {"M": {}}]},
    "m": {"M": {"S": {"S": "not a string value: a map"}, "inner": {"M": {"NS": {"NS": ["7"]}}}}},
    "lone": {"M": {"S": {"S": "x"}}},
    "emptyl": {"L": []},
    "emptym": {"M": {}},
}


def test_the_plain_editor_shows_each_type_as_a_person_reads_it_and_keeps_it(site):
    client = Client(site.url)
    key = put(site, {"PK": {"S": unique("TYPES")}, "SK": {"S": "X"}, **EVERY_TYPE})
    form = open_form(client, site.table, key, "save", format="plain")
    shown = loads(form["body"])
    assert shown["s"] == "text" and shown["n"] == 42 and shown["null"] is None and shown["bool"] is False
    assert str(shown["precise"]) == "1.0000000000000000000000000000000000001"
    assert shown["ss"]["SS"] and shown["b"] == {"B": "AP8Q"} and shown["emptyb"] == {"B": ""}
    # a map whose one member is named by a type is written as {"M": ...}; others are plain objects
    assert shown["m"] == {"S": "not a string value: a map", "inner": {"M": {"NS": {"NS": ["7"]}}}}
    assert shown["lone"] == {"M": {"S": "x"}}
    assert shown["l"][2] == {"SS": ["q"]} and shown["emptyl"] == [] and shown["emptym"] == {}
    assert_unchanged_save(client, site, key, "plain")
    assert_unchanged_save(client, site, key, "dynamodb")
    # the same text given as a new item stores the same types
    new = {**shown, "PK": unique("TYPES"), "SK": "Y"}
    created = client.post(
        f"/tables/{site.table}/items",
        {"csrf": form["csrf"], "format": "plain", "body": dumps(new)},
    )
    assert created.status == 303, created.text[-2000:]
    copy = stored(site, {"PK": {"S": new["PK"]}, "SK": {"S": "Y"}})
    original = stored(site, key)
    assert {k: v for k, v in copy.items() if k not in ("PK", "SK")} == {
        k: v for k, v in original.items() if k not in ("PK", "SK")
    }


# -- partial edits -------------------------------------------------------------------------------------


def test_a_partial_edit_changes_only_that_attribute(site):
    client = Client(site.url)
    key = put(site, {"PK": {"S": unique("PART")}, "SK": {"S": "X"}, **EVERY_TYPE})
    before = stored(site, key)
    form = open_form(client, site.table, key, "save", format="plain")
    text = loads(form["body"])
    text["s"] = "changed"
    del text["null"]
    reply = save(client, site, form, body=dumps(text))
    assert reply.status == 303 and "done=saved" in reply.location, reply.text[-2000:]
    after = stored(site, key)
    expected = {**before, "s": {"S": "changed"}}
    del expected["null"]
    assert after == expected  # sets, binary and numbers untouched, byte for byte


@EXAMPLES
@given(attributes, names, values)
def test_a_generated_partial_edit_changes_only_that_attribute(site, extra, name, value):
    from singletable.ui._editor_json import to_editor
    from singletable.ui._images import canonical

    client = Client(site.url)
    key = put(site, {"PK": {"S": unique("EDIT")}, "SK": {"S": "X"}, **extra})
    before = stored(site, key)
    form = open_form(client, site.table, key, "save", format="plain")
    text = loads(form["body"])
    text[name] = to_editor({name: value})[name]
    reply = save(client, site, form, body=dumps(text))
    assert reply.status == 303, re.findall(r'class="error"[^<]*', reply.text)
    after = stored(site, key)
    assert {k: v for k, v in after.items() if k != name} == {k: v for k, v in before.items() if k != name}
    # the oracle for the new value: the same value put by itself, as this backend stores it (compared by
    # value: DynamoDB Local keeps an UpdateItem's 0E+1 as written, a PutItem's as 0)
    probe = put(site, {"PK": {"S": unique("PROBE")}, "SK": {"S": "X"}, name: value})
    assert canonical(after[name]) == canonical(stored(site, probe)[name])


def test_an_entity_field_edit_changes_that_field_and_keeps_undeclared_attributes(site):
    from console_design import Sheet

    from singletable.model import connect

    db = connect(Sheet.model_entity().table, site.target.engine or site.endpoint, name=site.table)
    sheet = db.create(Sheet(sheet_id=unique("s"), title="t", tags={"a"}, attrs={"k": 1}))
    key = Sheet.model_entity().primary_key(Sheet.model_entity().values(sheet))
    site.target.call(
        "UpdateItem",
        TableName=site.table,
        Key=key,
        **_set_all({"legacy": EVERY_TYPE["bs"], "S": EVERY_TYPE["m"]}),
    )
    before = stored(site, key)
    client = Client(site.url)
    page = client.get(
        f"/tables/{site.table}/item", key=json.dumps({"PK": {"S": key["PK"]["S"]}, "SK": {"S": "SHEET"}})
    )
    assert "Attributes the design does not declare are kept as they are" in page.text
    form = open_form(client, site.table, key, "save")
    assert form["format"] == "plain" and form["entity"] == "Sheet"
    fields = loads(form["body"])
    reply = save(client, site, form, body=dumps({**fields, "title": "new"}))
    assert reply.status == 303 and "done=saved" in reply.location, reply.text[-2000:]
    after = stored(site, key)
    assert after["title"] == {"S": "new"}
    assert after["version"] == {"N": "2"}  # the model's update: version bumped, updatedAt stamped
    assert after["legacy"] == before["legacy"] and after["S"] == before["S"]
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"title", "version", "updatedAt"}
    db.close()


def test_entity_edits_the_model_cannot_write_in_one_request_are_refused(site):
    from console_design import Sheet

    from singletable.model import connect

    db = connect(Sheet.model_entity().table, site.target.engine or site.endpoint, name=site.table)
    sheet = db.create(Sheet(sheet_id=unique("s"), title="t"))
    key = Sheet.model_entity().primary_key(Sheet.model_entity().values(sheet))
    before = stored(site, key)
    client = Client(site.url)
    form = open_form(client, site.table, key, "save", format="dynamodb")
    item = loads(form["body"])
    cases = [
        (
            {**item, "title": {"S": "x"}, "other": {"S": "y"}},
            "and attributes the design does not declare (other)",
        ),
        ({**item, "PK": {"S": "SHEET#elsewhere"}}, "the edit changes the item&#39;s key"),
        ({**item, "entityType": {"S": "USER"}}, "entityType says which entity the item is"),
        ({**item, "version": {"N": "7"}}, "Sheet.version is the version the model keeps"),
    ]
    for body, message in cases:
        reply = save(client, site, form, body=dumps(body))
        assert reply.status == 400 and message in reply.text, (message, reply.text[-3000:])
        assert stored(site, key) == before
    # one change at a time is written: the undeclared attribute as it is, no version bump
    reply = save(client, site, form, body=json.dumps({**item, "other": {"SS": ["y"]}}))
    assert reply.status == 303
    assert stored(site, key) == {**before, "other": {"SS": ["y"]}}
    db.close()


# -- conflicts -----------------------------------------------------------------------------------------


def test_a_stale_editor_gets_a_conflict_showing_both_and_writes_nothing(site):
    key = put(site, {"PK": {"S": unique("STALE")}, "SK": {"S": "X"}, "v": {"S": "first"}, "s": {"SS": ["a"]}})
    alice, bob = Client(site.url), Client(site.url)
    stale = open_form(alice, site.table, key, "save", format="plain")
    fresh = open_form(bob, site.table, key, "save", format="plain")
    assert save(bob, site, fresh, body=fresh["body"].replace("first", "bob")).status == 303
    newer = stored(site, key)
    reply = save(alice, site, stale, body=stale["body"].replace("first", "alice"))
    assert reply.status == 409
    assert "This item was changed after you opened it" in reply.text
    assert "alice" in _section(reply.text, "yours") and "bob" in _section(reply.text, "stored")
    assert "<code>v</code>" in reply.text  # the attribute that differs is named
    assert stored(site, key) == newer  # nothing written
    # writing over it is an explicit second step, conditioned on the version now shown
    overwrite = alice.post(f"/tables/{site.table}/item/save", _form_of(reply.text, "overwrite"))
    assert overwrite.status == 303 and stored(site, key)["v"] == {"S": "alice"}


def test_an_edit_shown_again_after_a_refusal_is_still_checked_against_what_was_first_loaded(site):
    key = put(site, {"PK": {"S": unique("AGAIN")}, "SK": {"S": "X"}, "v": {"S": "first"}})
    client = Client(site.url)
    form = open_form(client, site.table, key, "save", format="plain")
    site.target.call("PutItem", TableName=site.table, Item={**key, "v": {"S": "newer"}})
    broken = save(client, site, form, body=form["body"].replace('"first"', '"mine",'))
    assert broken.status == 400 and "the item is not JSON" in broken.text
    fixed = _form_of(broken.text, "save")
    assert fixed["loaded"] == form["loaded"]  # the image the edit was made from, not the one stored now
    reply = save(client, site, fixed, body=fixed["body"].replace('"mine",', '"mine"'))
    assert reply.status == 409 and stored(site, key)["v"] == {"S": "newer"}


def test_a_stale_save_after_a_delete_does_not_recreate_the_item(site):
    key = put(site, {"PK": {"S": unique("GONE")}, "SK": {"S": "X"}, "v": {"S": "one"}})
    client = Client(site.url)
    for fmt in ("plain", "dynamodb"):
        put(site, {"PK": key["PK"], "SK": key["SK"], "v": {"S": "one"}})
        form = open_form(client, site.table, key, "save", format=fmt)
        site.target.call("DeleteItem", TableName=site.table, Key=key)
        reply = save(client, site, form, body=form["body"].replace("one", "two"))
        assert reply.status == 409 and "This item was deleted after you opened it" in reply.text
        assert "Nothing: the item is gone." in reply.text
        assert stored(site, key) is None
        again = client.post(f"/tables/{site.table}/items", _form_of(reply.text, "recreate"))
        assert again.status == 303  # re-creating is the person's explicit choice
        assert stored(site, key)["v"] == {"S": "two"}
        site.target.call("DeleteItem", TableName=site.table, Key=key)


def test_a_stale_delete_gets_a_conflict_and_deletes_nothing(site):
    key = put(site, {"PK": {"S": unique("DEL")}, "SK": {"S": "X"}, "v": {"N": "1"}})
    client = Client(site.url)
    form = open_form(client, site.table, key, "delete")
    site.target.call("PutItem", TableName=site.table, Item={**key, "v": {"N": "2"}})
    reply = client.post(f"/tables/{site.table}/item/delete", form)
    assert reply.status == 409 and "This item was changed after you opened it" in reply.text
    assert stored(site, key)["v"] == {"N": "2"}
    site.target.call("DeleteItem", TableName=site.table, Key=key)
    gone = client.post(f"/tables/{site.table}/item/delete", form)
    assert gone.status == 409 and "This item was deleted after you opened it" in gone.text


def test_a_stale_entity_save_and_delete_conflict_through_the_model(site):
    from console_design import User

    client = Client(site.url)
    user_id = unique("u")
    created = client.post(
        f"/tables/{site.table}/items",
        {
            "csrf": client.csrf(f"/tables/{site.table}/new"),
            "entity": "User",
            "format": "plain",
            "body": json.dumps({"user_id": user_id, "name": "A", "email": f"{user_id}@example.com"}),
        },
    )
    assert created.status == 303
    key = User.model_entity().primary_key({"user_id": user_id})
    save_form = open_form(client, site.table, key, "save")
    delete_form = open_form(client, site.table, key, "delete")
    site.target.call(
        "UpdateItem",
        TableName=site.table,
        Key=key,
        UpdateExpression="SET note = :n",
        ExpressionAttributeValues={":n": {"S": "added by someone else"}},
    )
    newer = stored(site, key)
    body = json.dumps({**loads(save_form["body"]), "name": "B"})
    assert save(client, site, save_form, body=body).status == 409
    assert client.post(f"/tables/{site.table}/item/delete", delete_form).status == 409
    assert stored(site, key) == newer


def test_racing_saves_of_one_loaded_item_write_exactly_one(site):
    key = put(site, {"PK": {"S": unique("RACE")}, "SK": {"S": "X"}, "v": {"S": "start"}})
    clients = [Client(site.url) for _ in range(4)]
    forms = [open_form(client, site.table, key, "save", format="dynamodb") for client in clients]
    replies: list[Any] = [None] * len(clients)

    def run(number: int) -> None:
        body = forms[number]["body"].replace("start", f"writer{number}")
        replies[number] = save(clients[number], site, forms[number], body=body)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(reply.status for reply in replies)
    assert statuses == [303] + [409] * (len(clients) - 1), statuses
    winner = next(n for n, reply in enumerate(replies) if reply.status == 303)
    assert stored(site, key)["v"] == {"S": f"writer{winner}"}


def test_the_write_itself_is_conditioned_on_the_loaded_image(site):
    """Between the console's read and its write another writer may slip in: the write's own condition
    must refuse it (here the read is given a stale image directly)."""
    from console_design import User

    from singletable.ui._images import changes
    from singletable.ui._writes import Conflict, Writer

    writer = Writer(site.target, _design(), site.table)
    key = put(site, {"PK": {"S": unique("COND")}, "SK": {"S": "X"}, "v": {"S": "a"}, "w": {"S": "b"}})
    seen = stored(site, key)
    site.target.call("PutItem", TableName=site.table, Item={**seen, "w": {"S": "changed"}})
    edited = {**seen, "v": {"S": "mine"}}
    try:
        writer._update_raw(site.table, key, seen, changes(seen, edited), edited, {})
    except Conflict as conflict:
        assert conflict.reason == "changed" and conflict.stored["w"] == {"S": "changed"}
    else:
        raise AssertionError("a stale write was not refused")
    assert stored(site, key)["v"] == {"S": "a"}
    # the model's update carries the same condition
    user_id = unique("u")
    db = writer.db(site.table)
    user = db.create(User(user_id=user_id, name="n", email=f"{user_id}@example.com"))
    ukey = User.model_entity().primary_key({"user_id": user_id})
    seen = stored(site, ukey)
    site.target.call(
        "UpdateItem",
        TableName=site.table,
        Key=ukey,
        UpdateExpression="SET email = :x",
        ExpressionAttributeValues={":x": {"S": "moved@example.com"}},
    )
    from singletable.ui._images import LoadedImage

    try:
        writer._model(
            lambda db: db.update(user, condition=LoadedImage(seen, ["name"]), name="m"),
            site.table,
            ukey,
            seen,
        )
    except Conflict as conflict:
        assert conflict.reason == "changed"
    else:
        raise AssertionError("a stale model write was not refused")
    assert stored(site, ukey)["name"] == {"S": "n"}
    writer.close()


def test_a_wide_item_is_saved_within_dynamodbs_expression_limits(site):
    wide = {f"attribute_{n:03d}": {"N": str(n)} for n in range(400)}
    key = put(site, {"PK": {"S": unique("WIDE")}, "SK": {"S": "X"}, **wide})
    client = Client(site.url)
    assert_unchanged_save(client, site, key, "dynamodb")
    form = open_form(client, site.table, key, "save", format="plain")
    text = loads(form["body"])
    every = {name: (value + 1 if name.startswith("attribute_") else value) for name, value in text.items()}
    for body in ({**text, "attribute_007": 700}, every):  # one attribute; then all 400 (one PutItem)
        form = open_form(client, site.table, key, "save", format="plain")
        reply = save(client, site, form, body=dumps(body))
        assert reply.status == 303, re.findall(r'class="error"[^<]*', reply.text)
    assert stored(site, key)["attribute_007"] == {"N": "8"} and stored(site, key)["attribute_399"] == {
        "N": "400"
    }


def test_plain_editor_mistakes_are_shown_and_nothing_is_written(site):
    key = put(site, {"PK": {"S": unique("BAD")}, "SK": {"S": "X"}, "v": {"S": "a"}})
    client = Client(site.url)
    form = open_form(client, site.table, key, "save", format="plain")
    cases = [
        ({"SS": 5}, "v: &#39;SS&#39; holding a number is not a DynamoDB JSON value"),
        ({"B": "not base64!"}, "v: binary values are base64 text"),
        ({"S": 1}, "a map like that is written {&#34;M&#34;: {&#34;S&#34;: ...}}"),
        ({"NS": ["1", "x"]}, "ValidationException"),
    ]
    for value, message in cases:
        body = json.dumps({"PK": key["PK"]["S"], "SK": "X", "v": value})
        reply = save(client, site, form, body=body)
        assert reply.status == 400 and message in reply.text, (message, reply.text[-3000:])
    for depth in (900, 5000):  # deeper than Python's recursion: refused, never a 500
        body = f'{{"PK": "{key["PK"]["S"]}", "SK": "X", "v": {"[" * depth}{"]" * depth}}}'
        reply = save(client, site, form, body=body)
        assert reply.status == 400 and "32 levels of lists and maps" in reply.text
    assert stored(site, key) == {**key, "v": {"S": "a"}}


def _design():
    from singletable.data import load_design

    return load_design("console_design")


def _section(text: str, section_id: str) -> str:
    import html
    import re

    found = re.search(rf'<section id="{section_id}">(.*?)</section>', text, re.S)
    assert found, section_id
    return html.unescape(found[1])


def _form_of(text: str, form_id: str) -> dict[str, str]:
    from ui_support import form_fields

    return form_fields(text, form_id)


# -- the plain-JSON editor's format, without a server ----------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.decimals(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(TYPE_NAMES) | st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=examples(300))
@given(attributes)
def test_the_plain_editor_format_round_trips_every_type_exactly(item):
    from singletable.ui._editor_json import from_editor, to_editor

    assert from_editor(loads(dumps(to_editor(item)))) == item


@settings(max_examples=examples(300))
@given(st.dictionaries(st.text(max_size=3), json_values, max_size=3))
def test_any_json_either_reads_as_an_item_or_is_refused_by_path(value):
    from singletable.ui._editor_json import from_editor
    from singletable.ui._images import image_of

    try:
        item = from_editor(value)
    except ValueError as error:
        assert str(error)
    else:
        image_of(item)  # every item read can be compared (even a number DynamoDB will refuse)
