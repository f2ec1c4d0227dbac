"""A help desk whose tickets are read by tenant and status, most urgent first: a GSI keyed by fields
(a multi-attribute key) beside an ordinary templated one, for the design tools' tests."""

from __future__ import annotations

from datetime import datetime

from singletable.model import GSI, Entity, Keys, Pattern, Table

helpdesk = Table(
    name="helpdesk",
    indexes=[
        GSI("byTenantStatus", pk=["tenant", "status"], sk=["priority", "opened_at"]),
        GSI("GSI1", pk="GSI1PK", sk="GSI1SK"),
    ],
)


class Ticket(Entity, table=helpdesk, type="TICKET"):
    tenant: str
    ticket_id: str
    title: str
    status: str | None = "open"  # None: closed for good, out of byTenantStatus
    priority: int = 3
    opened_at: datetime
    assignee: str = "nobody"

    keys = Keys(
        PK="TENANT#{tenant}", SK="TICKET#{ticket_id}", GSI1PK="AGENT#{assignee}", GSI1SK="{ticket_id}"
    )
    by_status = Pattern(
        index="byTenantStatus", newest_first=True, doc="a tenant's tickets in a status, urgent first"
    )
    of_agent = Pattern(index="GSI1", doc="an agent's tickets")
