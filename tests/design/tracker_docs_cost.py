"""A design written from scratch for the docs and cost tests (a multi-tenant issue tracker).

Orgs; users with a unique email; projects whose issue numbers come from a gapless counter; issues with a
sparse "my open issues by due date" GSI and an LSI by priority; comments under issues; an audit log that
expires by TTL. It ships no sample data, so the tools generate items from its field types.
"""

from datetime import date, datetime
from enum import StrEnum

from singletable.model import GSI, LSI, Entity, Key, Keys, Pattern, Table

tracker = Table(
    name="tracker",
    indexes=[
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),  # my open issues by due date (sparse)
        GSI("GSI2", pk="GSI2PK", sk="GSI2SK", projection="KEYS_ONLY"),  # users by email domain
        LSI("LSI1", sk="LSI1SK"),  # a project's issues by priority
    ],
    ttl_attribute="expiresAt",
)


class Status(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class Org(Entity, table=tracker, type="ORG"):
    """A tenant."""

    org_id: str
    name: str
    keys = Keys(PK="ORG#{org_id}", SK="ORG")
    every_org = Pattern(scan=True, doc="Every org, for the monthly admin report (a Scan)")


class User(Entity, table=tracker, type="USER", unique={"email": "EMAIL#{email}"}):
    """A member of an org; the email is unique across the table."""

    org_id: str
    user_id: str
    email: str
    domain: str
    keys = Keys(PK="ORG#{org_id}", SK="USER#{user_id}", GSI2PK="DOMAIN#{domain}", GSI2SK="USER#{user_id}")
    by_domain = Pattern(index="GSI2", doc="Users of an email domain (KEYS_ONLY: hydrated)")


class Project(Entity, table=tracker, type="PROJECT"):
    org_id: str
    project_id: str
    name: str
    next_issue_number: int = 0
    keys = Keys(PK="ORG#{org_id}", SK="PROJECT#{project_id}")


class Issue(Entity, table=tracker, type="ISSUE", version="version"):
    """An issue, numbered by its project's counter."""

    project_id: str
    number: int
    title: str
    body: str = ""
    status: Status = Status.OPEN
    assignee: str
    due: date
    priority: int = 3
    version: int | None = None
    keys = Keys(
        PK="PROJECT#{project_id}",
        SK="ISSUE#{number:06d}",
        GSI1PK=Key("ASSIGNEE#{assignee}", when=lambda status: status == Status.OPEN),
        GSI1SK=Key("DUE#{due}#{project_id}#{number:06d}", when=lambda status: status == Status.OPEN),
        LSI1SK="PRIORITY#{priority}#{number:06d}",
    )
    of_project = Pattern(sk="ISSUE#", doc="A project's issues by number")
    my_open = Pattern(index="GSI1", doc="My open issues, soonest due first")
    by_priority = Pattern(index="LSI1", doc="A project's issues, most urgent first")


class Comment(Entity, table=tracker, type="COMMENT"):
    project_id: str
    number: int
    comment_id: str
    author: str
    body: str
    keys = Keys(PK="PROJECT#{project_id}", SK="ISSUE#{number:06d}#COMMENT#{comment_id}")
    on_issue = Pattern(sk="ISSUE#{number:06d}#COMMENT#", doc="The comments of one issue")


class AuditEvent(Entity, table=tracker, type="AUDIT", ttl="expires_at"):
    org_id: str
    at: datetime
    actor: str
    action: str
    expires_at: datetime
    keys = Keys(PK="AUDIT#{org_id}", SK="AT#{at}")
    recent = Pattern(newest_first=True, doc="An org's audit log, newest first")
