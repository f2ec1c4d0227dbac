"""The checks on what a declaration promises but cannot keep: a table name DynamoDB refuses (ST002), a unique
guard template that cannot guard (ST003) and a counter inside a key (ST104).

Guard templates may name other fields of their entity (``STORE#{store_id}#EMAIL#{email}``: an email unique
within its store); what cannot work is a field the entity does not have, a template without the unique field
itself (one guard for every value), or a guard whose keys are another item's keys. A counter -- a field a
:class:`~singletable.model.Sequence` draws numbers from, or an ``int`` named like one (``order_count``,
``next_invoice_number``) -- changes with every increment; in a key template each increment would have to
rewrite the key, which ``.add(1)`` cannot (the model refuses it before sending) and a SET does by moving the
item.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from singletable.design._findings import Finding, at
from singletable.design._view import DesignView, EntityView, Parts, Slot, sample_text, template_regex

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_.-]{3,255}$")  # DynamoDB's rule for table names
# A slot in a key template: the field name before any slice, format or filter.
_SLOT = re.compile(r"\{([^{}\[\]:|]*)([^{}]*)\}")
_COUNTER_NAME = re.compile(
    r"(^|_)(count|counter|counts|views|likes|hits|clicks|visits|plays|downloads)$|^(next|num)_"
)


def table_findings(view: DesignView) -> list[Finding]:
    """ST002: a table name every DynamoDB request would be refused for."""
    name = view.table_name
    if _TABLE_NAME.match(name):
        return []
    message = (
        f"table name {name!r} is not one DynamoDB accepts: 3 to 255 characters, each a letter, a digit, "
        "'_', '-' or '.'"
    )
    return [Finding("ST002", "the table", message, **at(view.source))]


def guard_parts(template: str) -> Parts:
    """A guard template's text as :class:`Parts` (describe() lists a guard's text, not its parts)."""
    parts: list[str | Slot] = []
    position = 0
    for match in _SLOT.finditer(template):
        if match.start() > position:
            parts.append(template[position : match.start()])
        parts.append(Slot(match[1], shown=match[0]))
        position = match.end()
    if position < len(template):
        parts.append(template[position:])
    return Parts(template, tuple(parts))


def guard_findings(view: DesignView) -> list[Finding]:
    """ST003: each unique guard template that names a field its entity lacks, leaves out the unique field,
    is empty, or builds keys that another item of the table (an entity's, another guard's) has too."""
    findings: list[Finding] = []
    guards = [
        (entity, guard["field"], guard_parts(guard["guard"]))
        for entity in view.entities
        for guard in entity.described.get("unique", [])
    ]
    for entity, field, parts in guards:
        problem = _guard_problem(view, entity, field, parts, guards)
        if problem is not None:
            subject = f"{entity.name}.{field}"
            message = f"unique guard {parts.text!r} for {subject} {problem}"
            findings.append(Finding("ST003", subject, message, entity=entity.name, **at(entity.source)))
    return findings


def _guard_problem(
    view: DesignView,
    entity: EntityView,
    field: str,
    parts: Parts,
    guards: list[tuple[EntityView, str, Parts]],
) -> str | None:
    if not parts.text.strip():
        return "is empty: every value would be guarded by one item with an empty key, which DynamoDB refuses"
    unknown = [name for name in parts.fields if name not in entity.fields]
    if unknown:
        known = ", ".join(entity.fields)
        return f"names {', '.join(unknown)}, which {entity.name} does not have (its fields: {known})"
    if field not in parts.fields:
        scope = f" with the same {', '.join(parts.fields)}" if parts.fields else ""
        return (
            f"does not contain {{{field}}}: every {entity.name}{scope} shares one guard, so only the first "
            "can be written"
        )
    sample = sample_text(parts)
    for other in view.entities:
        pk, sk = other.template(view.pk), other.template(view.sk)
        if pk is None or (view.sk is not None and sk is None):
            continue
        if pk.shape(view.delimiter).match(sample) and (sk is None or sk.shape(view.delimiter).match(sample)):
            key = f"{view.pk} = {pk.text!r}" + (f", {view.sk} = {sk.text!r}" if sk else "")
            return (
                f"builds keys that {other.name} items also have ({key}): a guard and an item would "
                "overwrite each other"
            )
    mine = template_regex(parts, view.delimiter)
    for other, other_field, other_parts in guards:
        if (other.name, other_field) == (entity.name, field):
            continue
        if mine.match(sample_text(other_parts)) and template_regex(other_parts, view.delimiter).match(sample):
            return (
                f"builds the same keys as the guard of {other.name}.{other_field} ({other_parts.text!r}): a "
                f"value taken by one is taken for the other"
            )
    return None


def counters(table: Any, module: Any) -> dict[str, set[str]]:
    """Entity type -> the fields a :class:`~singletable.model.Sequence` counts with, declared in the design
    module or in a module that declares one of the table's entities (nothing is known of ``describe()``
    data alone)."""
    from singletable.model import Sequence

    if table is None:
        return {}
    modules = {
        id(m): m
        for m in (module, *(sys.modules.get(meta.cls.__module__) for meta in table.entities.values()))
    }
    found: dict[str, set[str]] = {}
    for source in modules.values():
        for value in vars(source).values() if source is not None else ():
            if isinstance(value, Sequence) and value.counter.meta.table is table:
                found.setdefault(value.counter.meta.type, set()).add(value.field)
    return found


def counter_findings(view: DesignView) -> list[Finding]:
    """ST104: a counter field in a key template (the table's keys or an index's)."""
    findings: list[Finding] = []
    for entity in view.entities:
        sequences = view.counters.get(entity.type, set())
        for attribute, key in entity.declared_keys.items():
            parts = Parts.of(key["template"], key["parts"])
            for name in parts.fields:
                field = entity.fields.get(name)
                if field is None or field.get("python") != "int":
                    continue
                if name in sequences:
                    why = "the field a Sequence draws numbers from"
                elif _COUNTER_NAME.search(name):
                    why = "an int named as a counter"
                else:
                    continue
                message = (
                    f"{attribute} = {key['template']!r} reads {name}, {why}: every increment would have to "
                    f"rewrite {attribute} (db.update(..., {entity.name}.f.{name}.add(1)) is refused before "
                    "it is sent; setting the new value moves the item in its index on every count)"
                )
                findings.append(
                    Finding(
                        "ST104",
                        f"{entity.name}.{attribute}",
                        message,
                        entity=entity.name,
                        **at(key.get("source") or entity.source),
                    )
                )
    return findings
