"""The checks on vector indexes: a multi-tenant table whose vector index has no partition attribute
(ST405), an index whose items cannot all be found -- no entity stores its vector, or an entity stores the
vector but not the partition attribute every search must name (ST406) -- and DOT_PRODUCT, which ranks by
length as well as direction (ST407).

What DynamoDB refuses outright (dimensions outside 1 to 4096, an unknown distance function, a vector field
of other dimensions than its index) is refused when the design is declared, and so reported as ST001.
"""

from __future__ import annotations

import re
from typing import Any

from singletable.design._findings import Finding, at
from singletable.design._view import DesignView, EntityView

# Field names that say the table holds several customers' data, each searched on its own.
_TENANT = re.compile(r"(^|_)(tenant|org|organi[sz]ation|account|workspace|team|customer|company)(_id)?$")


def vector_findings(view: DesignView) -> list[Finding]:
    findings: list[Finding] = []
    for index in view.described.get("vector_indexes", []):
        where = at(index.get("source") or view.source)
        members = [e for e in view.entities if _vector_field(e, index) is not None]
        findings += _reachability(index, members, where)
        if index["partition"] is None:
            findings += _tenancy(view, index, members, where)
        if index["distance"] == "DOT_PRODUCT":
            findings.append(
                Finding(
                    "ST407",
                    index["name"],
                    f"{index['name']} ranks by DOT_PRODUCT: a longer vector scores higher whatever its "
                    "direction, so unless every vector is unit length the longest win every search",
                    **where,
                )
            )
    return findings


def _vector_field(entity: EntityView, index: dict[str, Any]) -> dict[str, Any] | None:
    field = entity.by_attribute.get(index["vector"])
    return field if field is not None and field["stored"] else None


def _reachability(index: dict[str, Any], members: list[EntityView], where: dict[str, Any]) -> list[Finding]:
    """ST406: an index no entity writes, and entities whose items the index holds but no search can reach."""
    if not members:
        return [
            Finding(
                "ST406",
                index["name"],
                f"no entity stores a vector in {index['vector']}, so {index['name']} stays empty",
                **where,
            )
        ]
    partition = index["partition"]
    if partition is None:
        return []
    findings = []
    for entity in members:
        field = entity.by_attribute.get(partition["attribute"])
        if field is None or not field["stored"]:
            problem = f"{entity.name} stores no {partition['attribute']}"
        elif not field["required"]:
            problem = f"{entity.name}.{field['name']} (stored as {partition['attribute']}) may be absent"
        else:
            continue
        findings.append(
            Finding(
                "ST406",
                f"{index['name']}/{entity.name}",
                f"{problem}: {index['name']} is partitioned by {partition['attribute']}, so such items are "
                "indexed but no search can name their partition",
                entity=entity.name,
                **at(entity.source or where),
            )
        )
    return findings


def _tenancy(
    view: DesignView, index: dict[str, Any], members: list[EntityView], where: dict[str, Any]
) -> list[Finding]:
    """ST405: entities keyed by a tenant-like field searched through an index that spans every tenant."""
    findings = []
    for entity in members:
        pk = entity.template(view.pk)
        tenant = next((f for f in (pk.parsed.fields if pk else ()) if _TENANT.search(f)), None)
        if tenant is None:
            continue
        attribute = entity.fields[tenant]["attribute"]
        findings.append(
            Finding(
                "ST405",
                f"{index['name']}/{entity.name}",
                f"{entity.name} is partitioned by {tenant}, but {index['name']} has no partition attribute: "
                f"every search ranks all tenants' items together -- declare partition={attribute!r}",
                entity=entity.name,
                **where,
            )
        )
    return findings
