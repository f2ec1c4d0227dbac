"""A NoSQL Workbench data model read back into a Python design module (``singletable import-workbench``).

The model gives the table (keys, GSIs and projections, billing), every attribute's type and, per facet,
the attributes an item type holds, its key aliases and sample rows. Each facet becomes an entity: its
attributes become fields typed by the model (``S`` -> ``str``, ``N`` -> ``int`` or ``float`` as the rows
hold, ...), its key aliases become key templates. An alias with ``{attribute}`` slots (what ``synth
--format workbench`` writes) is a template over those attributes; an alias without slots is a constant when
every sample row holds exactly it (``METADATA``), else Workbench's usual display name for a key whose
value is the item's own (``ProductId``) -- a field of that name, which the key is built from. The rows
become the module's ``SAMPLE_ITEMS``, so exporting the module again gives the same model. The model does
not say how index keys are built; the rows often show it (``POSTS_BY_USER#john_doe`` where ``AuthorID`` is
``john_doe``, in every row): such a key becomes the template the rows agree on, and a key some row lacks
(a sparse index) or that no template explains stays a plain field.
"""

from __future__ import annotations

import keyword
import pprint
import re
from dataclasses import dataclass, field
from typing import Any

from singletable.design._infra import pascal, snake

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)")
_PYTHON_TYPES = {
    "S": "str",
    "B": "bytes",
    "BOOL": "bool",
    "L": "list",
    "M": "dict",
    "SS": "set[str]",
    "NS": "set[int]",
    "BS": "set[bytes]",
    "NULL": "None",
}
_TYPE_ATTRIBUTE_DEFAULT = "entityType"
_TAKEN = {"keys", "key", "f", "table", "type", "model_entity", "copy", "dict", "json", "schema", "validate"}


class WorkbenchError(ValueError):
    """A Workbench model this import cannot read: the path inside the JSON and what is wrong there."""


@dataclass
class _Field:
    name: str
    attribute: str
    kind: str
    required: bool = False


@dataclass
class _Entity:
    class_name: str
    type: str
    fields: dict[str, _Field] = field(default_factory=dict)  # by attribute
    keys: dict[str, str] = field(default_factory=dict)  # key attribute -> template


def design_source(model: dict[str, Any], table_name: str | None = None) -> str:
    """The Python source of a design module for one table of Workbench ``model`` (a parsed JSON model);
    ``table_name`` picks the table when the model holds several."""
    table = _pick_table(model, table_name)
    types = _attribute_types(table)
    facets = _list(table, "TableFacets", "DataModel[].TableFacets")
    type_attribute = _type_attribute(facets)
    keys = table.get("KeyAttributes") or {}
    key_attributes = [keys[k]["AttributeName"] for k in ("PartitionKey", "SortKey") if k in keys]
    entities = [_entity(facet, types, key_attributes, type_attribute, keys) for facet in facets]
    index_keys = {
        index_keys[k]["AttributeName"]
        for index in _list(table, "GlobalSecondaryIndexes", "GlobalSecondaryIndexes")
        for index_keys in [index.get("KeyAttributes") or {}]
        for k in ("PartitionKey", "SortKey")
        if k in index_keys
    }
    for entity, facet in zip(entities, facets, strict=True):
        _infer_index_keys(entity, facet.get("TableData") or [], index_keys)
    _unique_class_names(entities)
    rows = [row for facet in facets for row in facet.get("TableData") or []]
    return _render(model, table, type_attribute, entities, rows, types)


def _pick_table(model: dict[str, Any], name: str | None) -> dict[str, Any]:
    if not isinstance(model, dict) or not isinstance(model.get("DataModel"), list) or not model["DataModel"]:
        raise WorkbenchError("not a NoSQL Workbench model: DataModel must be a list of tables")
    tables = model["DataModel"]
    names = [str(t.get("TableName")) for t in tables]
    if name is None:
        if len(tables) > 1:
            raise WorkbenchError(
                f"the model holds {len(tables)} tables ({', '.join(names)}): pick one with --table"
            )
        table = tables[0]
    elif name in names:
        table = tables[names.index(name)]
    else:
        raise WorkbenchError(f"the model has no table {name!r}; it has {', '.join(names)}")
    for part in ("TableName", "KeyAttributes"):
        if not table.get(part):
            raise WorkbenchError(f"DataModel table {table.get('TableName', '?')}: {part} is missing")
    if "PartitionKey" not in table["KeyAttributes"]:
        raise WorkbenchError(f"table {table['TableName']}: KeyAttributes.PartitionKey is missing")
    return table


def _list(table: dict[str, Any], key: str, where: str) -> list[Any]:
    value = table.get(key) or []
    if not isinstance(value, list):
        raise WorkbenchError(f"{where} must be a list")
    return value


def _attribute_types(table: dict[str, Any]) -> dict[str, str]:
    types: dict[str, str] = {}
    keys = table["KeyAttributes"]
    sources = [keys[k] for k in ("PartitionKey", "SortKey") if k in keys]
    sources += _list(table, "NonKeyAttributes", "NonKeyAttributes")
    for index in _list(table, "GlobalSecondaryIndexes", "GlobalSecondaryIndexes"):
        index_keys = index.get("KeyAttributes") or {}
        sources += [index_keys[k] for k in ("PartitionKey", "SortKey") if k in index_keys]
    for attribute in sources:
        try:
            types.setdefault(attribute["AttributeName"], attribute["AttributeType"])
        except (KeyError, TypeError):
            raise WorkbenchError(
                f"attribute {attribute!r}: AttributeName and AttributeType expected"
            ) from None
    return types


def _type_attribute(facets: list[dict[str, Any]]) -> str:
    """The attribute naming each item's facet: in every facet, equal to the facet's name in every row."""
    if not facets:
        return _TYPE_ATTRIBUTE_DEFAULT
    common = set.intersection(*(set(f.get("NonKeyAttributes") or []) for f in facets))

    def names_facets(attribute: str) -> bool:
        return all(
            row.get(attribute) == {"S": facet["FacetName"]}
            for facet in facets
            for row in facet.get("TableData") or []
        )

    fitting = sorted(a for a in common if names_facets(a))
    typed = [a for a in fitting if "type" in a.lower()]
    return (typed or fitting or [_TYPE_ATTRIBUTE_DEFAULT])[0]


def _entity(
    facet: dict[str, Any],
    types: dict[str, str],
    key_attributes: list[str],
    type_attribute: str,
    keys: dict[str, Any],
) -> _Entity:
    name = facet.get("FacetName")
    if not name:
        raise WorkbenchError("a TableFacets entry has no FacetName")
    entity = _Entity(pascal(name), name)
    rows = facet.get("TableData") or []
    for attribute in facet.get("NonKeyAttributes") or []:
        if attribute != type_attribute and attribute not in key_attributes:
            entity.fields[attribute] = _Field(
                _field_name(attribute), attribute, _kind(types, attribute, rows)
            )
    aliases = facet.get("KeyAttributeAlias") or {}
    for part, alias_key in (("PartitionKey", "PartitionKeyAlias"), ("SortKey", "SortKeyAlias")):
        if part in keys:
            attribute = keys[part]["AttributeName"]
            alias = aliases.get(alias_key) or attribute
            entity.keys[attribute] = _template(entity, attribute, alias, rows, types)
    return entity


def _infer_index_keys(entity: _Entity, rows: list[dict[str, Any]], index_keys: set[str]) -> None:
    """Index keys the sample rows show how to build: ``POSTS_BY_USER#john_doe`` in every row whose
    ``AuthorID`` is ``john_doe`` is the template ``POSTS_BY_USER#{author_id}``. A key some row lacks
    (a sparse index), or whose rows disagree, stays a plain field."""
    in_table_keys = {n for t in entity.keys.values() for n in _SLOT.findall(t)}
    for attribute in [a for a in entity.fields if a in index_keys]:
        if not rows or entity.fields[attribute].name in in_table_keys:
            continue
        template = _common_template(entity, attribute, rows)
        if template is not None:
            del entity.fields[attribute]
            entity.keys[attribute] = template
            for name in _SLOT.findall(template):
                next(f for f in entity.fields.values() if f.name == name).required = True


def _common_template(entity: _Entity, attribute: str, rows: list[dict[str, Any]]) -> str | None:
    keys = [_scalar(row.get(attribute)) for row in rows]
    if any(k is None or "{" in k or "}" in k for k in keys):
        return None
    present = [k for k in keys if k is not None]  # every key (checked above), typed as present

    def value(row: dict[str, Any], item: _Field) -> str:
        found = _scalar(row.get(item.attribute))
        return found if found and "#" not in found else ""  # a value holding the delimiter cannot be a slot

    # The fields whose value is inside the key in every row, longest first: the slots a template can have.
    sources = [f for a, f in entity.fields.items() if a != attribute]
    usable = [
        f
        for f in sources
        if all(value(r, f) and value(r, f) in k for r, k in zip(rows, present, strict=True))
    ]
    usable.sort(key=lambda f: -min(len(value(r, f)) for r in rows))
    templates = {
        _slots(key, [(value(row, f), f.name) for f in usable]) for row, key in zip(rows, present, strict=True)
    }
    if len(templates) != 1:
        return None
    (template,) = templates
    if "N" in rows[0][attribute] and not re.fullmatch(r"\{[A-Za-z0-9_]+\}", template):
        return None  # a number key is one numeric field
    return template if "{" in template or len(rows) > 1 else None


def _scalar(value: Any) -> str | None:
    """The text of an ``S`` or ``N`` AttributeValue, else None."""
    if not isinstance(value, dict):
        return None
    found = value.get("S", value.get("N"))
    return found if isinstance(found, str) else None


def _slots(key: str, candidates: list[tuple[str, str]]) -> str:
    """``key`` with each candidate value (the first place it occurs in literal text) as its slot."""
    parts: list[tuple[bool, str]] = [(False, key)]
    for text, name in candidates:
        for i, (is_slot, part) in enumerate(parts):
            if not is_slot and text in part:
                before, _, after = part.partition(text)
                parts[i : i + 1] = [(False, before), (True, name), (False, after)]
                break
    return "".join("{" + part + "}" if is_slot else part for is_slot, part in parts)


def _kind(types: dict[str, str], attribute: str, rows: list[dict[str, Any]]) -> str:
    kind = types.get(attribute, "S")
    if kind == "N":  # a number is an int unless a sample row holds a fraction
        values = [
            row[attribute]["N"]
            for row in rows
            if isinstance(row.get(attribute), dict) and "N" in row[attribute]
        ]
        return "N:float" if any(not re.fullmatch(r"-?\d+", v) for v in values) else "N:int"
    return kind


def _template(
    entity: _Entity, attribute: str, alias: str, rows: list[dict[str, Any]], types: dict[str, str]
) -> str:
    if "{" in alias:

        def slot(match: re.Match[str]) -> str:
            name = match[1]
            known = entity.fields.get(name)
            if known is None:
                known = entity.fields[name] = _Field(_field_name(name), name, "S")
            known.required = True
            return "{" + known.name

        return _SLOT.sub(slot, alias)
    values = [row.get(attribute) for row in rows]
    if rows and all(v == {types.get(attribute, "S"): alias} for v in values):
        return alias
    if not rows and alias.isupper():
        return alias
    # A display name: the key's value is the item's own (a product id); the model keeps it in a field of
    # that name, stored under it (a key attribute with no display name gets a field named after it; the
    # model could also keep the field as the key itself, tests/model/test_primary_key_fields.py).
    stored_as = alias if alias != attribute else f"{attribute}Value"
    key_field = _Field(_field_name(stored_as), stored_as, types.get(attribute, "S"), True)
    entity.fields[stored_as] = key_field
    return "{" + key_field.name + "}"


def _field_name(attribute: str) -> str:
    name = snake(attribute)
    if name[:1].isdigit():
        name = "f_" + name
    if keyword.iskeyword(name) or name in _TAKEN or name.startswith("model_"):
        name += "_"
    return name


def _unique_class_names(entities: list[_Entity]) -> None:
    seen: set[str] = set()
    for entity in entities:
        name, n = entity.class_name, 2
        if not name[:1].isalpha():
            name = "Entity" + name
        while name in seen or keyword.iskeyword(name):
            name, n = f"{entity.class_name}{n}", n + 1
        entity.class_name = name
        seen.add(name)


def _annotation(item: _Field) -> str:
    base = {"N:int": "int", "N:float": "float"}.get(item.kind) or _PYTHON_TYPES.get(item.kind, "str")
    return base if item.required else f"{base} | None"


def _render(
    model: dict[str, Any],
    table: dict[str, Any],
    type_attribute: str,
    entities: list[_Entity],
    rows: list[dict[str, Any]],
    types: dict[str, str],
) -> str:
    lines = [
        _docstring(str(model.get("ModelMetadata", {}).get("Description") or "")),
        f"# Generated by `singletable import-workbench` from the NoSQL Workbench model "
        f"{model.get('ModelName', '')!r}.",
        "# Index key templates are inferred from the sample rows; an index key they do not explain is a",
        "# plain field: write its template in Keys(...) when you know it.",
        "",
        "from __future__ import annotations",
        "",
        "from pydantic import Field",
        "",
        "from singletable.model import GSI, Entity, Keys, Table",
        "",
        *_table_lines(table, type_attribute),
    ]
    for entity in entities:
        lines += ["", "", *_entity_lines(entity)]
    body = pprint.pformat(rows, width=110, sort_dicts=False)
    lines += [
        "",
        "# The model's sample rows (DynamoDB JSON), one list for every facet.",
        f"SAMPLE_ITEMS = {body}",
    ]
    return "\n".join(lines) + "\n"


def _docstring(description: str) -> str:
    """The module docstring: the model's description, so exporting the module gives it back."""
    if "\n" not in description:
        return repr(description)
    escaped = description.replace("\\", "\\\\").replace('"""', '\\"""')
    return f'"""{escaped}\n"""'


def _key_spec(attribute: dict[str, str]) -> str:
    name, kind = attribute["AttributeName"], attribute.get("AttributeType", "S")
    return repr(name) if kind == "S" else repr((name, kind))


def _table_lines(table: dict[str, Any], type_attribute: str) -> list[str]:
    keys = table["KeyAttributes"]
    lines = [
        "table = Table(",
        f"    name={table['TableName']!r},",
        f"    pk={_key_spec(keys['PartitionKey'])},",
        f"    sk={_key_spec(keys['SortKey']) if 'SortKey' in keys else None},",
        f"    type_attribute={type_attribute!r},",
        "    naming=None,",
        f"    billing={table.get('BillingMode') or 'PROVISIONED'!r},",
    ]
    throughput = (table.get("ProvisionedCapacitySettings") or {}).get("ProvisionedThroughput") or {}
    if table.get("BillingMode") != "PAY_PER_REQUEST" and throughput:
        lines.append(f"    read_capacity={int(throughput.get('ReadCapacityUnits', 5))},")
        lines.append(f"    write_capacity={int(throughput.get('WriteCapacityUnits', 5))},")
    lines.append("    indexes=[")
    for index in table.get("GlobalSecondaryIndexes") or []:
        index_keys = index.get("KeyAttributes") or {}
        if "PartitionKey" not in index_keys:
            raise WorkbenchError(f"index {index.get('IndexName')}: KeyAttributes.PartitionKey is missing")
        projection = index.get("Projection") or {"ProjectionType": "ALL"}
        shown = projection.get("ProjectionType", "ALL")
        projected = (
            repr(list(projection.get("NonKeyAttributes") or [])) if shown == "INCLUDE" else repr(shown)
        )
        sort_key = f", sk={_key_spec(index_keys['SortKey'])}" if "SortKey" in index_keys else ""
        lines.append(
            f"        GSI({index['IndexName']!r}, pk={_key_spec(index_keys['PartitionKey'])}{sort_key}, "
            f"projection={projected}),"
        )
    lines += ["    ],", ")"]
    return lines


def _entity_lines(entity: _Entity) -> list[str]:
    lines = [f"class {entity.class_name}(Entity, table=table, type={entity.type!r}, timestamps=False):"]
    for item in entity.fields.values():
        alias = f"alias={item.attribute!r}" if item.attribute != item.name else ""
        if item.required:
            value = f" = Field({alias})" if alias else ""
        else:
            value = f" = Field(None, {alias})" if alias else " = None"
        lines.append(f"    {item.name}: {_annotation(item)}{value}")
    templates = ", ".join(f"{attribute}={template!r}" for attribute, template in entity.keys.items())
    if all(a.isidentifier() for a in entity.keys):
        lines.append(f"    keys = Keys({templates})")
    else:
        lines.append(f"    keys = Keys(**{dict(entity.keys)!r})")
    return lines
