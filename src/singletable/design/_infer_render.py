"""An :class:`~singletable.design._infer.InferredDesign` written as a readable design module.

The module looks like one written by hand (``singletable.examples.*.design``): one ``Table`` with the live
table's keys and indexes as DescribeTable gives them, one ``Entity`` per type with its fields and
``Keys(...)``. Every guess carries its evidence as a comment (how many items showed it), so a reader knows
which lines to check first: field names inside templates (the data shows values, never names), key-only
fields, sparse keys and optional fields. Names and quoting reuse the NoSQL Workbench import's helpers.
"""

from __future__ import annotations

import keyword
import re

from singletable.design._infer import InferredDesign, InferredIndex
from singletable.design._infer_keys import InferredEntity, InferredField, InferredKey
from singletable.design._infra import pascal
from singletable.design._workbench_import import _docstring

# Names the module itself binds: an entity class may not take them.
_TAKEN = frozenset(
    ("Entity", "Key", "Keys", "Table", "GSI", "LSI", "Field", "Any", "datetime", "annotations")
)


def render(design: InferredDesign) -> str:
    counted = f"{design.sampled} sampled items"
    if design.item_count is not None:
        counted += f" (DescribeTable counts {design.item_count})"
    lines = [
        _docstring(
            f"Design of table {design.table_name}, inferred by `singletable infer` from {counted}.\n\n"
            "Check every commented guess: the data shows key values, never the names of the fields inside\n"
            "them, and a sample can miss rare shapes."
        ),
        "",
        "from __future__ import annotations",
        "",
        "from datetime import datetime  # noqa: F401 (used by date-time fields, when any)",
        "from typing import Any  # noqa: F401 (used by mixed-type fields, when any)",
        "",
        "from pydantic import Field  # noqa: F401",
        "",
        "from singletable.model import GSI, LSI, Entity, Key, Keys, Table  # noqa: F401",
        "",
        *_table_lines(design),
    ]
    if design.unexplained:
        lines += [
            "",
            f"# {design.unexplained} sampled items hold little but a key that no entity's field explains:",
            "# guard items whose owner was not sampled, or data the design does not model. Not declared.",
        ]
    used: set[str] = set()
    for entity in design.entities:
        lines += ["", "", *_entity_lines(design, entity, _class_name(entity.type, used))]
    return "\n".join(lines) + "\n"


def _class_name(type_name: str, used: set[str]) -> str:
    words = re.sub(r"\W+", "_", type_name)
    base = pascal(words.lower() if words.isupper() else words) or "Entity"
    if not base[:1].isalpha():
        base = "Entity" + base
    name, n = base, 2
    while name in used or name in _TAKEN or keyword.iskeyword(name):
        name, n = f"{base}{n}", n + 1
    used.add(name)
    return name


def _spec(key: tuple[str, str]) -> str:
    name, kind = key
    return repr(name) if kind == "S" else repr((name, kind))


def _table_lines(design: InferredDesign) -> list[str]:
    lines = [
        "table = Table(",
        f"    name={design.table_name!r},",
        f"    pk={_spec(design.pk)},",
        f"    sk={_spec(design.sk) if design.sk else None},",
        f"    type_attribute={design.type_attribute!r},  # {design.type_evidence}",
        "    naming=None,  # fields name their stored attributes as the items spell them",
        f"    billing={design.billing!r},",
    ]
    if design.delimiter != "#":
        lines.append(f"    delimiter={design.delimiter!r},  # what the sampled keys are split on")
    if design.ttl_attribute:
        lines.append(
            f"    ttl_attribute={design.ttl_attribute!r},  # DescribeTimeToLive: enabled (epoch seconds)"
        )
    if design.stream:
        lines.append(f"    stream={design.stream!r},  # DescribeTable: the table's stream")
    if design.capacity:
        lines.append(f"    read_capacity={design.capacity[0]},")
        lines.append(f"    write_capacity={design.capacity[1]},")
    if design.datetime_precision:
        lines.append(
            f"    datetime_precision={design.datetime_precision!r},  # every date-time string in the sample"
        )
    if design.indexes:
        lines.append("    indexes=[")
        lines += [f"        {_index(index)}," for index in design.indexes]
        lines.append("    ],")
    lines.append(")")
    return lines


def _index(index: InferredIndex) -> str:
    projection = repr(index.projection)
    sk = f", sk={_spec(index.sk)}" if index.sk else ""
    if index.local:
        return f"LSI({index.name!r}{sk}, projection={projection})"
    assert index.pk is not None
    return f"GSI({index.name!r}, pk={_spec(index.pk)}{sk}, projection={projection})"


def _entity_lines(design: InferredDesign, entity: InferredEntity, class_name: str) -> list[str]:
    keywords = ["table=table", f"type={entity.type!r}", "timestamps=False"]
    ttl = next(
        (f for f in entity.fields.values() if f.attribute == design.ttl_attribute and not f.key_only), None
    )
    if ttl is not None and ttl.python == "int":  # the table's TTL: epoch seconds, read as a datetime
        keywords.append(f"ttl={ttl.name!r}")
    if entity.unique:
        uniques = ", ".join(
            f"{u.field!r}: " + (repr((u.template, u.owner_field)) if u.owner_field else repr(u.template))
            for u in entity.unique
        )
        keywords.append(f"unique={{{uniques}}}")
    lines = [f"# {entity.evidence}."]
    for unique in entity.unique:
        owner = f", holding {unique.owner_field}" if unique.owner_field else ""
        lines.append(
            f"# unique {unique.field}: {unique.count} guard items keyed {unique.template}{owner}, no type, "
            "nothing else"
        )
    header = f"class {class_name}(Entity, {', '.join(keywords)}):"
    if len(header) > 110:
        header = f"class {class_name}(\n    Entity,\n" + "".join(f"    {k},\n" for k in keywords) + "):"
    lines.append(header)
    fields = sorted(entity.fields.values(), key=lambda f: (f.key_only, f.name))
    for item in fields:
        lines.append(f"    {_field_line(design, item, item is ttl and ttl.python == 'int')}")
    if not entity.keys:
        return lines
    lines.append("    keys = Keys(")
    identifiers = all(a.isidentifier() for a in entity.keys)
    for attribute, key in entity.keys.items():
        note = "; ".join(key.evidence) or f"the same on all {key.present} items"
        spelled = f"{attribute}=" if identifiers else f"**{{{attribute!r}: "
        close = "," if identifiers else "},"
        lines.append(f"        {spelled}{_key_value(key)}{close}  # {note}")
    lines.append("    )")
    return lines


def _key_value(key: InferredKey) -> str:
    if key.otherwise is not None:
        return f"Key({key.template!r}, otherwise={key.otherwise!r})"
    if key.when_present is not None and key.when_values:
        name, values = key.when_present, key.when_values
        test = f"{name} == {values[0]!r}" if len(values) == 1 else f"{name} in {values!r}"
        return f"Key({key.template!r}, when=lambda {name}: {test})"
    if key.when_present is not None:
        name = key.when_present
        return f"Key({key.template!r}, when=lambda {name}: {name} is not None)"
    return repr(key.template)


def _field_line(design: InferredDesign, item: InferredField, ttl: bool = False) -> str:
    python = "datetime" if ttl else item.python
    if python == "datetime" and design.datetime_precision is None:
        python = "str"  # the sample's date-times disagree on precision: kept as written
    annotation = f"{python} | None" if item.optional else python
    alias = f"alias={item.attribute!r}" if item.attribute != item.name else ""
    if item.optional:
        value = f" = Field(None, {alias})" if alias else " = None"
    else:
        value = f" = Field({alias})" if alias else ""
    note = "; the table's TTL attribute, epoch seconds read as a datetime" if ttl else ""
    return f"{item.name}: {annotation}{value}  # {item.evidence}{note}"
