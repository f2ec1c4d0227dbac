"""A multi-tenant issue tracker, written from scratch: orgs, users with a unique email, projects
with a gapless issue counter, issues with a sparse "my open issues by due date" GSI and an LSI by priority,
comments under issues, an audit log that expires by TTL.

Its findings are ST501, once per growing partition (an org's users, a project's issues and comments, an
org's audit log): the LSI caps each such item collection at 10 GB.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from singletable.model import GSI, LSI, Entity, Key, Keys, Pattern, Table

tracker = Table(
    name="tracker",
    ttl_attribute="expiresAt",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
        LSI("byPriority", sk="prioritySk"),
    ],
)


class Org(Entity, table=tracker, type="ORG"):
    org_id: str
    name: str

    keys = Keys(PK="ORG#{org_id}", SK="ORG")


class User(Entity, table=tracker, type="USER", unique={"email": "EMAIL#{email}"}):
    org_id: str
    user_id: str
    email: str

    keys = Keys(PK="ORG#{org_id}", SK="USER#{user_id}")
    of_org = Pattern(sk="USER#", doc="an org's users")


class Project(Entity, table=tracker, type="PROJECT"):
    org_id: str
    project_id: str
    name: str
    next_issue: int = 0

    keys = Keys(PK="PROJECT#{org_id}#{project_id}", SK="PROJECT")


class Issue(Entity, table=tracker, type="ISSUE"):
    org_id: str
    project_id: str
    number: int = Field(ge=1)
    title: str
    assignee: str | None = None
    status: Literal["open", "closed"] = "open"
    due: datetime
    priority: int = Field(ge=0, le=9)

    keys = Keys(
        PK="PROJECT#{org_id}#{project_id}",
        SK="ISSUE#{number:08d}",
        GSI1PK=Key("ASSIGNEE#{org_id}#{assignee}", when=lambda status: status == "open"),
        GSI1SK=Key("DUE#{due}#{project_id}#{number:08d}", when=lambda status: status == "open"),
        prioritySk="PRIORITY#{priority}#{number:08d}",
    )
    of_project = Pattern(sk="ISSUE#", newest_first=True, doc="a project's issues, newest first")
    my_open = Pattern(index="GSI1", doc="my open issues, soonest due first")
    by_priority = Pattern(index="byPriority", doc="a project's issues by priority")


class Comment(Entity, table=tracker, type="COMMENT"):
    org_id: str
    project_id: str
    number: int = Field(ge=1)
    comment_id: str
    body: str = Field(max_length=10_000)

    keys = Keys(PK="PROJECT#{org_id}#{project_id}", SK="COMMENT#{number:08d}#{comment_id}")
    on_issue = Pattern(doc="an issue's comments, oldest first")


class AuditEntry(Entity, table=tracker, type="AUDIT", ttl="expires_at"):
    org_id: str
    at: datetime
    entry_id: str
    action: str
    expires_at: datetime

    keys = Keys(PK="AUDIT#{org_id}", SK="{at}#{entry_id}")
    recent = Pattern(newest_first=True, doc="an org's audit log, newest first")
