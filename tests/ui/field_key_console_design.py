"""The console's design with a GSI keyed by fields (a multi-attribute key): tickets by tenant and status,
sorted by priority then ticket id. The table's name comes from ``UI_FK_TABLE`` (set by the test module)."""

from __future__ import annotations

from singletable.model import GSI, Entity, Keys, Pattern, Table, env

helpdesk = Table(
    name=env("UI_FK_TABLE", "console-fk"),
    indexes=[GSI("byTenantStatus", pk=["tenant", "status"], sk=["priority", "ticket_id"])],
)


class Ticket(Entity, table=helpdesk, type="TICKET", timestamps=False):
    tenant: str
    ticket_id: str
    status: str | None = "open"
    priority: int = 3

    keys = Keys(PK="TENANT#{tenant}", SK="TICKET#{ticket_id}")
    by_status = Pattern(index="byTenantStatus", doc="a tenant's tickets in a status")
