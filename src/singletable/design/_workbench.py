"""A design as an AWS NoSQL Workbench data model (the JSON a Workbench "Export model" writes, Version 3.0).

The format: ``ModelName``, ``ModelMetadata`` and ``DataModel``, one entry per table with its
``KeyAttributes``, the typed ``NonKeyAttributes`` every item may hold, ``GlobalSecondaryIndexes`` with
their projections, ``BillingMode``, and ``TableFacets``: one facet per entity, with the attributes the
entity writes and sample rows. A facet's key aliases are the entity's key templates written over attribute
names (``USER#{userId}``), which Workbench shows as the key column headings and ``import-workbench`` reads
back into templates. Workbench knows neither local secondary indexes nor TTL: a design with an LSI is
refused (say ``include_local_indexes=False`` to leave them out knowingly); the TTL attribute stays an
ordinary number attribute. Workbench gives an attribute one type for the whole table, where DynamoDB lets
each item choose (seed 002 stores ``value`` as text in settings and as a number in its counter): the model
then declares the first entity's type and a :class:`WorkbenchWarning` says which attribute and entities.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from singletable.design._infra import DesignExportError

# Our codec kinds (model/_field_values.py) as DynamoDB attribute types: datetimes are ISO text, TTLs epoch
# numbers, nested models maps; a field typed Any has no one type, and Workbench needs one: text.
ATTRIBUTE_TYPES = {
    "S": "S",
    "DT": "S",
    "N": "N",
    "TTL": "N",
    "B": "B",
    "BOOL": "BOOL",
    "L": "L",
    "M": "M",
    "MODEL": "M",
    "SS": "SS",
    "NS": "NS",
    "BS": "BS",
    "ANY": "S",
}


class WorkbenchWarning(UserWarning):
    """Something of the design a Workbench model cannot say exactly (it is said approximately)."""


_SLOT_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)")
_DATA_ACCESS: dict[str, dict[str, Any]] = {"MySql": {}}  # what Workbench writes in every table and facet


def workbench_model(
    table: Any,
    *,
    items: Sequence[dict[str, Any]] = (),
    description: str = "",
    now: datetime | None = None,
    rows_per_facet: int = 20,
    include_local_indexes: bool = True,
) -> dict[str, Any]:
    """``table`` (a :class:`singletable.model.Table`) as a NoSQL Workbench model (a dict; ``json.dumps``
    it). ``items``: sample items in DynamoDB JSON, shown as each entity's facet rows (at most
    ``rows_per_facet`` each)."""
    local = [i.name for i in table.indexes if i.local]
    if local and include_local_indexes:
        raise DesignExportError(
            f"NoSQL Workbench models have no local secondary indexes, and the design declares "
            f"{', '.join(local)}: export without them (--without-lsi) or to another format"
        )
    multi = [i for i in table.indexes if len(i.pk_attributes) > 1 or len(i.sk_attributes) > 1]
    if multi:
        keys = "; ".join(
            f"{i.name} on {', '.join(i.pk_attributes)} / {', '.join(i.sk_attributes) or '(no sort key)'}"
            for i in multi
        )
        raise DesignExportError(
            "NoSQL Workbench models key an index on one partition and one sort attribute, and the design's "
            f"GSI {keys} keys on several: export it to cloudformation, terraform or cdk, which declare "
            "multi-attribute keys"
        )
    if table.vector_indexes:
        names = ", ".join(i.name for i in table.vector_indexes)
        raise DesignExportError(
            f"NoSQL Workbench models have no vector indexes, and the design declares {names}: export "
            "CloudFormation or the CDK, which document VectorIndexes"
        )
    stamp = (now or datetime.now(UTC)).strftime("%b %d, %Y, %I:%M %p")
    name = table.resolved_name()
    return {
        "ModelName": name,
        "ModelMetadata": {
            "Author": "singletable",
            "DateCreated": stamp,
            "DateLastModified": stamp,
            "Description": description,
            "AWSService": "Amazon DynamoDB",
            "Version": "3.0",
        },
        "DataModel": [_table_model(table, name, items, rows_per_facet)],
    }


def _table_model(
    table: Any, name: str, items: Sequence[dict[str, Any]], rows_per_facet: int
) -> dict[str, Any]:
    keys = {"PartitionKey": _attribute(table.pk_name, table.pk_type)}
    if table.sk_name:
        keys["SortKey"] = _attribute(table.sk_name, table.sk_type)
    facets, types = [], _AttributeTypes(table)
    rows = _rows_by_type(table, items)
    for meta in table.entities.values():
        attributes = types.add_entity(meta)
        facets.append(
            {
                "FacetName": meta.type,
                "KeyAttributeAlias": _aliases(table, meta),
                "TableData": rows.get(meta.type, [])[:rows_per_facet],
                "NonKeyAttributes": attributes,
                "DataAccess": _DATA_ACCESS,
            }
        )
    model: dict[str, Any] = {
        "TableName": name,
        "KeyAttributes": keys,
        "NonKeyAttributes": [_attribute(a, t) for a, t in types.types.items()],
        "TableFacets": facets,
        "GlobalSecondaryIndexes": [_index(table, i) for i in table.indexes if not i.local],
        "DataAccess": _DATA_ACCESS,
        "BillingMode": table.billing,
    }
    if table.billing == "PROVISIONED":
        model["ProvisionedCapacitySettings"] = {
            "ProvisionedThroughput": {
                "ReadCapacityUnits": table.read_capacity,
                "WriteCapacityUnits": table.write_capacity,
            }
        }
    return model


def _attribute(name: str, kind: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": kind}


class _AttributeTypes:
    """Every non-key attribute of the table and its one type; Workbench allows one type per name."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.key_types = table.key_types
        self.types: dict[str, str] = {}
        self.owners: dict[str, str] = {}

    def add_entity(self, meta: Any) -> list[str]:
        """The attributes ``meta``'s items hold besides the table's key, in a stable order: index keys (in
        the order of the indexes), the other key attributes, stored fields, the type attribute."""
        found: dict[str, str] = {}
        for key in meta.describe()["keys"]:
            found.setdefault(key["attribute"], key["type"])
        for spec in meta.fields.values():
            if spec.stored:
                found.setdefault(spec.attribute, ATTRIBUTE_TYPES[spec.codec.kind])
        found.setdefault(self.table.type_attribute, "S")
        table_keys = {self.table.pk_name, self.table.sk_name}
        # Index keys first, in the indexes' order, whether a template or a field writes them: the order an
        # imported model gives back, since the model cannot say which of the two an index key was.
        index_keys = [
            a for i in self.table.indexes for a in (i.pk, i.sk) if a in found and a not in table_keys
        ]
        attributes = list(dict.fromkeys(index_keys)) + [
            a for a in found if a not in table_keys and a not in index_keys
        ]
        for attribute in attributes:
            kind = self.key_types.get(attribute, found[attribute])
            known = self.types.setdefault(attribute, kind)
            owner = self.owners.setdefault(attribute, meta.cls.__name__)
            if known != kind:
                warnings.warn(
                    f"attribute {attribute} is {known} in {owner} and {kind} in {meta.cls.__name__}; a NoSQL "
                    f"Workbench model gives each attribute one type, and this one says {known}",
                    WorkbenchWarning,
                    stacklevel=4,
                )
        return attributes


def _aliases(table: Any, meta: Any) -> dict[str, str]:
    by_attribute = {k["attribute"]: k["template"] for k in meta.describe()["keys"]}
    attribute_of: dict[str, str] = {name: spec.attribute for name, spec in meta.fields.items()}

    def over_attributes(template: str) -> str:
        return _SLOT_NAME.sub(lambda m: "{" + attribute_of.get(m[1], m[1]), template)

    aliases = {"PartitionKeyAlias": over_attributes(by_attribute[table.pk_name])}
    if table.sk_name:
        aliases["SortKeyAlias"] = over_attributes(by_attribute[table.sk_name])
    return aliases


def _index(table: Any, index: Any) -> dict[str, Any]:
    keys = {"PartitionKey": _attribute(index.pk, index.pk_type)}
    if index.sk:
        keys["SortKey"] = _attribute(index.sk, index.sk_type)
    projection: dict[str, Any] = {"ProjectionType": index.projection_type}
    if not isinstance(index.projection, str):
        projection["NonKeyAttributes"] = list(index.projection)
    return {"IndexName": index.name, "KeyAttributes": keys, "Projection": projection}


def _rows_by_type(table: Any, items: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        value = item.get(table.type_attribute, {}).get("S")
        if value is not None:
            rows.setdefault(value, []).append(item)
    return rows
