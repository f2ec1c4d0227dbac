"""Table definitions: the checks CreateTable and UpdateTable share on key schemas, index projections and
provisioned throughput, with DynamoDB's texts and limits.

Error texts are AWS's; most share DynamoDB's ``One or more parameter values were invalid:`` prefix
(:func:`invalid`).
"""

from __future__ import annotations

from typing import Any

from singletable.engine._errors import DynamoDBError, validation

MAX_GSI = 20
MAX_LSI = 5
MAX_PROJECTED = 100
# A global index's key may be several attributes (multi-attribute keys): up to four of each kind.
MAX_KEY_ATTRIBUTES = 4
INVALID = "One or more parameter values were invalid: "


def invalid(message: str) -> DynamoDBError:
    """Most semantic checks share DynamoDB's ``One or more parameter values were invalid:`` prefix."""
    return validation(INVALID + message)


def attribute_names(items: list[dict[str, Any]]) -> str:
    return ", ".join(item["AttributeName"] for item in items)


def check_key_schema(key_schema: list[dict[str, str]], *, index: bool = False) -> None:
    """Positional rules: first element HASH, optional second RANGE, names distinct. A name given twice is
    worded differently for an index's key schema than for the table's (AWS's texts)."""
    if key_schema[0]["KeyType"] != "HASH":
        raise validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(key_schema) == 2:
        if key_schema[0]["AttributeName"] == key_schema[1]["AttributeName"]:
            if index:
                raise validation("Two keys can not have the same name")
            raise validation("Invalid KeySchema: Some index key attribute have no definition")
        if key_schema[1]["KeyType"] != "RANGE":
            raise validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")


def check_global_key_schema(key_schema: list[dict[str, str]]) -> None:
    """A global index's key schema: one to four HASH attributes, then up to four RANGE attributes, names
    distinct. One attribute named twice in two elements is worded as for any index's key schema; in more,
    AWS words it otherwise."""
    if key_schema[0]["KeyType"] != "HASH":
        raise validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(key_schema) == 2 and key_schema[0]["AttributeName"] == key_schema[1]["AttributeName"]:
        raise validation("Two keys can not have the same name")
    kinds = [k["KeyType"] for k in key_schema]
    first_range = kinds.index("RANGE") if "RANGE" in kinds else len(kinds)
    if "HASH" in kinds[first_range:]:
        raise invalid("All HASH key attributes must precede RANGE key attributes in the KeySchema")
    for kind in ("HASH", "RANGE"):
        if kinds.count(kind) > MAX_KEY_ATTRIBUTES:
            raise invalid(f"The KeySchema exceeds the maximum allowed number of {kind} key attributes")
    names = [k["AttributeName"] for k in key_schema]
    if len(set(names)) != len(names):
        raise validation("The KeySchema contains multiple key attributes with the same name")


def check_defined(key_schema: list[dict[str, str]], definitions: list[dict[str, str]]) -> None:
    defined = {d["AttributeName"] for d in definitions}
    if any(k["AttributeName"] not in defined for k in key_schema):
        raise invalid(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{attribute_names(key_schema)}], AttributeDefinitions: [{attribute_names(definitions)}]"
        )


def check_projection(projection: dict[str, Any]) -> int:
    """Validate one index's projection; returns how many attributes it projects (for the table limit)."""
    ptype = projection.get("ProjectionType")
    attributes = projection.get("NonKeyAttributes")
    if ptype is None:
        raise invalid("Unknown ProjectionType: null")
    if ptype == "INCLUDE":
        if not attributes:
            raise invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
        seen: set[str] = set()
        for attribute in attributes:
            if attribute in seen:
                raise invalid(f"Duplicate element in NonKeyAttributes: {attribute}")
            seen.add(attribute)
        return len(attributes)
    if attributes is not None:
        raise invalid(f"ProjectionType is {ptype}, but NonKeyAttributes is specified")
    return 0


def throughput_description(spec: dict[str, int]) -> dict[str, int]:
    return {
        "NumberOfDecreasesToday": 0,
        "ReadCapacityUnits": spec["ReadCapacityUnits"],
        "WriteCapacityUnits": spec["WriteCapacityUnits"],
    }


NO_MAXIMUM = -1  # OnDemandThroughput's "no maximum" (AWS's value, also how one is removed)


def on_demand_throughput(
    requested: dict[str, Any], current: dict[str, int] | None = None
) -> dict[str, int] | None:
    """The table's OnDemandThroughput after a CreateTable or UpdateTable asking for ``requested``: each
    maximum given replaces the current one (a member not given keeps it, or has no maximum), and a table
    with no maximum left shows none. The engine records the maxima for DescribeTable; it does not throttle.
    """
    result = dict(current or {"MaxReadRequestUnits": NO_MAXIMUM, "MaxWriteRequestUnits": NO_MAXIMUM})
    for member in ("MaxReadRequestUnits", "MaxWriteRequestUnits"):
        value = requested.get(member)
        if value is None:
            continue
        if value != NO_MAXIMUM and value < 1:
            raise invalid(
                f"OnDemandThroughput {member} must be greater than or equal to 1, or -1 for no maximum: "
                f"{value}"
            )
        result[member] = value
    if all(value == NO_MAXIMUM for value in result.values()):
        return None
    return result


ZERO_THROUGHPUT = {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
