"""The console's writes over HTTP on every TARGET kind: entities created, edited and deleted through the
model (validation, uniqueness guards, key templates), raw items through PutItem/DeleteItem with a condition,
tables created from the design and deleted -- each refusal shown beside its form, nothing written."""

from __future__ import annotations

import json
import urllib.parse

from ui_support import Client, key_param, opened_console

from singletable import data


def new_user(client: Client, table: str, **values: str):
    token = client.csrf(f"/tables/{table}/new?entity=User")
    return client.post(
        f"/tables/{table}/items",
        {"csrf": token, "entity": "User", "format": "plain", "body": json.dumps(values)},
    )


def stored(site, **key: str):
    return data.get(site.target, site.table, {k: {"S": v} for k, v in key.items()}, consistent=True)


def test_an_entity_is_created_edited_and_deleted_through_the_model(site):
    client = Client(site.url)
    created = new_user(client, site.table, user_id="99", name="Cy", email="cy@example.com")
    assert created.status == 303
    assert urllib.parse.unquote(created.location).endswith(
        f"/tables/{site.table}/item?key={key_param(PK='USER#99', SK='PROFILE')}&done=created"
    )
    page = client.follow(created)
    assert "Item created." in page.text and '<span class="label">User</span>' in page.text
    assert stored(site, PK="UNIQUE#USER#email#cy@example.com", SK="UNIQUE#USER#email#cy@example.com")

    key = key_param(PK="USER#99", SK="PROFILE")
    form = client.form(f"/tables/{site.table}/item", "save", key=key)
    assert form["entity"] == "User" and form["format"] == "plain"
    body = json.dumps({"user_id": "99", "name": "Cyd", "email": "cyd@example.com"})
    saved = client.post(f"/tables/{site.table}/item/save", {**form, "body": body})
    assert saved.status == 303
    assert stored(site, PK="USER#99", SK="PROFILE")["name"] == {"S": "Cyd"}
    # the uniqueness guard moved with the email: the model's put, not a raw PutItem
    assert stored(site, PK="UNIQUE#USER#email#cy@example.com", SK="UNIQUE#USER#email#cy@example.com") is None
    assert stored(site, PK="UNIQUE#USER#email#cyd@example.com", SK="UNIQUE#USER#email#cyd@example.com")

    deleted = client.post(
        f"/tables/{site.table}/item/delete", client.form(f"/tables/{site.table}/item", "delete", key=key)
    )
    assert deleted.status == 303 and "done=deleted" in deleted.location
    assert "Item deleted." in client.follow(deleted).text
    assert stored(site, PK="USER#99", SK="PROFILE") is None
    assert (
        stored(site, PK="UNIQUE#USER#email#cyd@example.com", SK="UNIQUE#USER#email#cyd@example.com") is None
    )
    gone = client.get(f"/tables/{site.table}/item", key=key)
    assert gone.status == 404 and "no item in" in gone.text


def test_model_refusals_are_shown_in_place(site):
    client = Client(site.url)
    taken = new_user(client, site.table, user_id="98", name="Dup", email="ada@example.com")
    assert taken.status == 400
    assert "UniqueViolation" in taken.text and "email" in taken.text
    assert '<textarea name="body"' in taken.text and "Dup" in taken.text  # the form again, as typed
    assert stored(site, PK="USER#98", SK="PROFILE") is None
    invalid = new_user(client, site.table, user_id="97", name="No email")
    assert invalid.status == 400
    assert "User.email: Field required" in invalid.text
    exists = new_user(client, site.table, user_id="42", name="Again", email="again@example.com")
    # a create is conditioned on the key being free: a conflict page shows theirs and the stored one
    assert exists.status == 409 and "An item with this key already exists." in exists.text
    assert "Again" in exists.text and "&#34;name&#34;: &#34;Ada&#34;" in exists.text
    assert stored(site, PK="USER#42", SK="PROFILE")["name"] == {"S": "Ada"}


def test_an_edit_cannot_change_the_key(site):
    client = Client(site.url)
    form = client.form(f"/tables/{site.table}/item", "save", key=key_param(PK="USER#42", SK="PROFILE"))
    body = json.dumps({"user_id": "43", "name": "Ada", "email": "ada@example.com"})
    moved = client.post(f"/tables/{site.table}/item/save", {**form, "body": body})
    assert moved.status == 400 and "the edit changes the item&#39;s key" in moved.text
    assert stored(site, PK="USER#43", SK="PROFILE") is None


def test_an_entity_is_edited_as_dynamodb_json_through_the_model(site):
    client = Client(site.url)
    key = key_param(PK="USER#42", SK="ORDER#00005")
    page = client.get(f"/tables/{site.table}/item", key=key, format="dynamodb")
    assert "&#34;S&#34;: &#34;ORDER#00005&#34;" in page.text
    item = data.item_to_json(stored(site, PK="USER#42", SK="ORDER#00005"))
    item["status"] = {"S": "shipped"}
    form = client.form(f"/tables/{site.table}/item", "save", key=key, format="dynamodb")
    assert form["entity"] == "Order" and form["format"] == "dynamodb"
    saved = client.post(f"/tables/{site.table}/item/save", {**form, "body": json.dumps(item)})
    assert saved.status == 303
    after = stored(site, PK="USER#42", SK="ORDER#00005")
    assert after["status"] == {"S": "shipped"} and after["GSI1PK"] == {"S": "STATUS#shipped"}  # key rebuilt


def test_a_raw_item_is_put_and_deleted_with_conditions(site):
    client = Client(site.url)
    body = json.dumps({"PK": "RAW#1", "SK": "X", "n": 1})
    first = client.post(
        f"/tables/{site.table}/items",
        {"csrf": client.csrf(f"/tables/{site.table}/new"), "format": "plain", "body": body},
    )
    assert first.status == 303
    assert stored(site, PK="RAW#1", SK="X")["n"] == {"N": "1"}
    again = client.post(
        f"/tables/{site.table}/items",
        {
            "csrf": client.csrf(f"/tables/{site.table}/new"),
            "format": "plain",
            "body": body,
            "condition": "attribute_not_exists(PK)",
        },
    )
    assert again.status == 409 and "An item with this key already exists." in again.text
    key = key_param(PK="RAW#1", SK="X")
    form = client.form(f"/tables/{site.table}/item", "delete", key=key)
    refused = client.post(
        f"/tables/{site.table}/item/delete", {**form, "condition": "n = :two", "values": '{":two": 2}'}
    )
    assert refused.status == 400 and "ConditionalCheckFailedException" in refused.text
    assert stored(site, PK="RAW#1", SK="X") is not None
    deleted = client.post(f"/tables/{site.table}/item/delete", form)
    assert deleted.status == 303 and stored(site, PK="RAW#1", SK="X") is None


def test_an_item_that_does_not_fit_its_entity_is_deleted_only_when_asked(site):
    broken = {
        "PK": {"S": "USER#55"},
        "SK": {"S": "PROFILE"},
        "entityType": {"S": "USER"},
        "userId": {"S": "55"},
    }
    site.target.call("PutItem", TableName=site.table, Item=broken)
    client = Client(site.url)
    key = key_param(PK="USER#55", SK="PROFILE")
    page = client.get(f"/tables/{site.table}/item", key=key)
    assert page.status == 200 and '<span class="label">User</span>' in page.text
    form = client.form(f"/tables/{site.table}/item", "delete", key=key)
    refused = client.post(f"/tables/{site.table}/item/delete", form)
    assert refused.status == 400
    assert "so the model cannot delete it with its guards" in refused.text
    assert stored(site, PK="USER#55", SK="PROFILE") is not None
    deleted = client.post(f"/tables/{site.table}/item/delete", {**form, "raw": "1"})
    assert deleted.status == 303 and stored(site, PK="USER#55", SK="PROFILE") is None


def test_raw_item_mistakes_are_shown(site):
    client = Client(site.url)
    cases = [
        ({"format": "plain", "body": "{"}, "the item is not JSON"),
        ({"format": "plain", "body": "[1]"}, "the item must be a JSON object"),
        ({"format": "dynamodb", "body": '{"PK": "x"}'}, "PK: not DynamoDB JSON"),
        ({"format": "plain", "body": '{"PK": "only"}'}, "the item needs its key attribute SK"),
        ({"format": "plain", "body": '{"PK": "a", "SK": "b"}', "values": '{":v": 1}'}, "names and values go"),
    ]
    for fields, message in cases:
        reply = client.post(
            f"/tables/{site.table}/items", {"csrf": client.csrf(f"/tables/{site.table}/new"), **fields}
        )
        assert reply.status == 400, fields
        assert message in reply.text, (message, reply.text[-3000:])


def test_a_table_is_created_from_the_design_and_deleted_with_confirmation(site):
    other = f"{site.table}_b"
    console = opened_console(site, table=other)
    try:
        client = Client(console.url)
        listing = client.get("/")
        assert f"Create {other} from the design" in listing.text
        created = client.post("/tables/create", {"csrf": client.csrf("/"), "table": other})
        assert created.status == 303
        assert "Table created from the design." in client.follow(created).text
        assert data.describe(site.target, other)["GlobalSecondaryIndexes"][0]["IndexName"] == "GSI1"
        wrong = client.post(
            f"/tables/{other}/delete", {"csrf": client.csrf(f"/tables/{site.table}/new"), "confirm": "nope"}
        )
        assert wrong.status == 400 and f"type the table&#39;s name, {other}, to confirm" in wrong.text
        assert other in data.tables(site.target)
        deleted = client.post(
            f"/tables/{other}/delete", {"csrf": client.csrf(f"/tables/{site.table}/new"), "confirm": other}
        )
        assert deleted.status == 303 and "Table deleted." in client.follow(deleted).text
        assert other not in list(data.tables(site.target))
    finally:
        console.stop()
