"""A design written from scratch for the design tools' tests: a multi-tenant issue tracker.

Orgs; users with a unique email; projects whose issues are numbered by a gapless counter; issues with a
sparse "my open issues by due date" GSI and an LSI by priority; comments under their issue; an audit log that
expires (TTL). Provisioned capacity and a stream, so every export has something to say about both.
"""

from __future__ import annotations

from datetime import date, datetime

from singletable.model import GSI, LSI, Entity, Key, Keys, Pattern, Table, env

tracker = Table(
    name=env("TRACKER_TABLE", "tracker"),
    billing="PROVISIONED",
    read_capacity=10,
    write_capacity=5,
    stream="NEW_AND_OLD_IMAGES",
    ttl_attribute="expiresAt",  # the model turns TTL on at create only when the table names it
    indexes=[
        GSI("myOpenIssues", pk="assigneePK", sk="dueSK", projection=["title", "status"]),
        LSI("byPriority", sk=("priority", "N"), projection="KEYS_ONLY"),
    ],
)


class Org(Entity, table=tracker, type="ORG"):
    org_id: str
    name: str
    keys = Keys(PK="ORG#{org_id}", SK="ORG")


class User(Entity, table=tracker, type="USER", unique=["email"]):
    org_id: str
    user_id: str
    email: str
    keys = Keys(PK="ORG#{org_id}", SK="USER#{user_id}")


class Project(Entity, table=tracker, type="PROJECT"):
    org_id: str
    project_id: str
    next_issue_number: int = 0
    keys = Keys(PK="ORG#{org_id}#PROJECT#{project_id}", SK="PROJECT")


def _open(status: str) -> bool:
    return status == "open"


class Issue(Entity, table=tracker, type="ISSUE"):
    org_id: str
    project_id: str
    number: int
    title: str
    status: str = "open"
    priority: int = 3
    assignee: str | None = None
    due: date | None = None
    keys = Keys(
        PK="ORG#{org_id}#PROJECT#{project_id}",
        SK="ISSUE#{number:08d}",
        assigneePK=Key("ASSIGNEE#{assignee}", when=_open),
        dueSK=Key("DUE#{due}#{number:08d}", when=_open),
    )
    open_for = Pattern(index="myOpenIssues", doc="my open issues by due date")
    by_priority = Pattern(index="byPriority", doc="a project's issues by priority")


class Comment(Entity, table=tracker, type="COMMENT"):
    org_id: str
    project_id: str
    number: int
    comment_id: str
    body: str
    keys = Keys(PK="ORG#{org_id}#PROJECT#{project_id}", SK="ISSUE#{number:08d}#COMMENT#{comment_id}")


class AuditEntry(Entity, table=tracker, type="AUDIT", ttl="expires_at"):
    org_id: str
    at: datetime
    action: str
    expires_at: datetime
    keys = Keys(PK="ORG#{org_id}#AUDIT", SK="AT#{at}")
