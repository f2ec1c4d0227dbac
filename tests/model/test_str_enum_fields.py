"""A ``StrEnum`` field (seed 004's user roles) declares, round-trips and keys like any string field.

Regression: the fast decoder probed every string codec with the text ``"x"``, which a validating codec (an
enum without that value) refuses, so declaring such an entity failed at import.
"""

from __future__ import annotations

from enum import StrEnum

from singletable.model import GSI, Entity, Keys, Pattern, Table, connect


class Role(StrEnum):
    READER = "reader"
    ADMIN = "admin"


app = Table(name="enums", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Member(Entity, table=app, type="MEMBER"):
    member_id: str
    role: Role = Role.READER

    keys = Keys(PK="MEMBER#{member_id}", SK="MEMBER", GSI1PK="ROLE#{role}", GSI1SK="{member_id}")
    with_role = Pattern(index="GSI1")


def test_str_enum_fields_round_trip_and_key_an_index() -> None:
    db = connect(app, ":memory:")
    db.create_table()
    db.create(Member(member_id="m1", role=Role.ADMIN))
    db.create(Member(member_id="m2"))
    got = db.get(Member, member_id="m1")
    assert got is not None and got.role is Role.ADMIN
    assert [m.member_id for m in db.query(Member.with_role(role=Role.ADMIN))] == ["m1"]
    assert [m.role for m in db.query(Member.with_role(role="reader"))] == [Role.READER]
