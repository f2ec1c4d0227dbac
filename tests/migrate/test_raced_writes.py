"""An application write between a migration's read of an item and its write, made exactly: the step's own
function (a split's ``by``, a merge's or backfill's ``set``) writes through the model, as an application
would at that moment. A field set then that was unset when the item was read must survive the step's write
(which is conditioned on the image read, and on no field either declaration knows having appeared since),
on the engine, ``serve`` and DynamoDB Local."""

from __future__ import annotations

import uuid
from typing import Any

from shop_migration import User, shop
from test_migrate import old_table, old_user, seed, snapshot
from test_split_merge import Company, Contact, Person, after, before, contact
from test_split_merge import seed as seed_contacts

from singletable.migrate import Migration, backfill, merge, rekey, split, up
from singletable.model import DB, Entity, Keys, Table, connect, upgrade


def test_a_field_the_application_sets_between_read_and_write_is_kept(target: Any) -> None:
    """The application sets ``vat`` -- absent when the split read the item -- on a company not converted
    yet, just after the split read it: the split's write must not replace the item without it. The
    ``by`` function runs between the read and the write, so it makes that moment exactly."""
    db = connect(before, target, name=f"contacts_{uuid.uuid4().hex[:10]}")
    db.create_table()
    try:
        seed_contacts(db, [contact(1, "company", "sales@acme.com"), contact(2, "person")])
        app = DB(after, db.adapter, name=db.table_name)
        wrote: list[str] = []

        def by(values: dict[str, Any]) -> type[Entity]:
            if values["kind"] == "company" and not wrote:
                app.update(Company.key(id=values["id"]), vat="GB123")  # acknowledged
                wrote.append(values["id"])
            return Company if values["kind"] == "company" else Person

        racing = split(Contact, into=[Person, Company], by=by)
        up(Migration("0001-split", "split, raced", [racing]), db)
        assert wrote == ["1"]
        acme = app.get(Company, id="1")
        assert (acme.vat, acme.email) == ("GB123", "sales@acme.com")
        assert {i["entityType"]["S"] for i in snapshot(db) if "entityType" in i} == {"company", "person"}
    finally:
        db.delete_table()


def test_a_field_the_application_sets_before_a_merge_moves_the_item_is_kept(target: Any) -> None:
    """The same during a merge that moves the item to a new key: a person's email set (with its guard)
    after the merge read the person and before it moved it is on the merged contact, guard and all."""
    db = connect(before, target, name=f"contacts_{uuid.uuid4().hex[:10]}")
    db.create_table()
    try:
        people = DB(after, db.adapter, name=db.table_name)
        people.create(Person(id="1", name="ann"))
        wrote: list[str] = []

        def kind(values: dict[str, Any]) -> str:
            if not wrote:
                people.update(Person.key(id=values["id"]), email="ann@x.org")  # acknowledged
                wrote.append(values["id"])
            return "person"

        racing = merge([Person, Company], into=Contact, set={Person: {"kind": kind}})
        up(Migration("0001-merge", "merge, raced", [racing]), db)
        assert wrote == ["1"]
        ann = db.get(Contact, id="1")
        assert (ann.kind, ann.email) == ("person", "ann@x.org")
        found = db.find(Contact, email="ann@x.org")
        assert found is not None and found.id == "1"  # the guard names the merged contact
        assert [i["PK"]["S"] for i in snapshot(db)] == ["CONTACT#1", "EMAIL#ann@x.org"]
    finally:
        db.delete_table()


def test_a_field_the_application_sets_before_a_backfill_writes_is_kept(target: Any) -> None:
    db = connect(shop, target, name=f"shop_{uuid.uuid4().hex[:10]}")
    old_table(db)
    try:
        seed(db, [{**old_user(1), "PK": {"S": "USER#1"}}])
        wrote: list[str] = []

        def titled(values: dict[str, Any]) -> dict[str, Any]:
            if not wrote:
                db.update(User.key(id=values["id"]), email="New@x.org")  # acknowledged
                wrote.append(values["id"])
            return {"name": values["name"].title()}

        up(Migration("0001-titles", "titled, raced", [backfill(User, set=titled)]), db)
        assert wrote == ["1"]
        user = db.get(User, id="1")
        assert (user.name, user.email) == ("Name 1", "New@x.org")
    finally:
        db.delete_table()


def test_a_field_the_application_sets_before_a_rekey_moves_the_item_is_kept(target: Any) -> None:
    """The item is read at its old key; the application sets a field on it there (through the old shape's
    declaration, whose upgrade function runs between the rekey's read and its write); the move must carry
    the field, not put the image read under the new key."""
    db = connect(shop, target, name=f"shop_{uuid.uuid4().hex[:10]}")
    old_table(db)
    wrote: list[str] = []
    app: list[DB] = []

    class OldUser(Entity, table=Table(name="shop"), type="user", timestamps=False, schema_version=2):
        id: str
        name: str
        email: str | None = None
        nick: str | None = None
        keys = Keys(PK="U#{id}", SK="PROFILE")

        @upgrade(1)
        def unchanged_but_raced(old: dict[str, Any]) -> dict[str, Any]:
            if not wrote:
                wrote.append(old["id"])  # first: the update reads the item through this chain too
                app[0].update(OldUser.key(id=old["id"]), email="late@x.org")  # acknowledged
            return old

    try:
        seed(db, [old_user(1)])
        app.append(DB(OldUser.model_entity().table, db.adapter, name=db.table_name))
        up(Migration("0001-move", "moved, raced", [rekey(OldUser, to=User)]), db)
        assert wrote == ["1"]
        assert db.get(User, id="1").email == "late@x.org"
        assert [i["PK"]["S"] for i in snapshot(db)] == ["USER#1"]
    finally:
        db.delete_table()
