"""A member in two shapes, for the tests of a re-keying with a dual-write window: ``OldMember`` keyed
``MEMBER_OLD#<id>`` (what old code writes) and ``Member`` keyed ``M#<id>`` (what the migration makes of it),
both with a unique email and a version. The model's window tests declare them from here, and the migration
module the finish tests load (and hand to the command line) imports them, so both rekey the same entities.
"""

from __future__ import annotations

from singletable.model import Entity, Keys, Table

before = Table(name="members")
after = Table(name="members")


class OldMember(Entity, table=before, type="MEMBER", unique=["email"], version="rev"):
    id: str
    email: str
    visits: int = 0
    rev: int = 0
    keys = Keys(PK="MEMBER_OLD#{id}", SK="MEMBER")


class Member(Entity, table=after, type="MEMBER", unique=["email"], version="rev"):
    id: str
    email: str
    visits: int = 0
    rev: int = 0
    keys = Keys(PK="M#{id}", SK="MEMBER")
