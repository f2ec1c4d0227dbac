"""What an edit of one of the design's entities changes: the fields the model writes, and the attributes the
design does not declare, written as they are.

The item page's editor holds either the entity's fields (plain JSON, through pydantic) or the whole stored
item (DynamoDB JSON). Either way a save compares the edited entity with the one loaded, field by field as
the model stores them (each field's attribute through its codec), and sends the model an update of only the
fields that differ -- so the model still rebuilds the keys built from them, moves uniqueness guards and
derived items, stamps updatedAt and bumps the version, and nothing else of the item is touched: attributes
the design does not declare stay as they are. In the DynamoDB JSON editor those attributes are the person's
to change too; the model cannot write them in the request that writes fields, so an edit of both is refused
(save one, then the other) rather than written in two requests that could half succeed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from singletable.ui._images import Changes, changes, same

Item = dict[str, Any]
KEY_CHANGED = "the edit changes the item's key; a new key is a new item: create it, then delete this one"


class EditRefused(ValueError):
    """An entity edit that cannot be written as it is; ``str()`` says why and what to do instead."""


@dataclass(slots=True)
class EntityEdit:
    """The loaded entity, the fields an edit changes (new values), their stored attributes (conditioned
    first), and the changes to attributes the design does not declare (DynamoDB JSON editor only)."""

    loaded: Any
    fields: dict[str, Any] = field(default_factory=dict)
    attributes: list[str] = field(default_factory=list)
    raw: Changes = field(default_factory=Changes)


def model_error(error: Exception) -> EditRefused:
    """pydantic's and the model's errors as one message per problem: entity, field and value."""
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        title = error.title
        problems = []
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "(item)"
            problems.append(f"{title}.{where}: {problem['msg']} (got {problem.get('input')!r:.80})")
        return EditRefused("; ".join(problems))
    return EditRefused(f"{type(error).__name__}: {error}")


def fields_json(entity: Any) -> dict[str, Any]:
    """An entity's fields as the entity-fields editor shows them (pydantic's JSON, numbers as ``Decimal``
    as the editor's text reads back); ``ValueError`` for a value JSON cannot hold (bytes not UTF-8)."""
    try:
        return json.loads(json.dumps(entity.model_dump(mode="json")), parse_float=Decimal)
    except Exception as error:
        raise ValueError(str(error)) from None


def loaded_entity(cls: Any, stored: Item) -> Any:
    """The stored item as its entity, or :class:`EditRefused` when it does not fit it."""
    try:
        return cls.model_entity().from_item(stored)
    except Exception as error:
        raise EditRefused(
            f"the stored item does not fit {cls.model_entity().type} ({model_error(error)}): "
            "edit it as DynamoDB JSON"
        ) from None


def entity_edit(cls: Any, stored: Item, edited_value: dict[str, Any], edited_item: Item | None) -> EntityEdit:
    """What saving ``edited_value`` (the entity's fields) or ``edited_item`` (the whole item, parsed from
    DynamoDB JSON) over ``stored`` changes."""
    meta = cls.model_entity()
    loaded = loaded_entity(cls, stored)
    edit = EntityEdit(loaded)
    try:
        edited = meta.from_item(edited_item) if edited_item is not None else cls.model_validate(edited_value)
    except Exception as error:
        raise model_error(error) from None
    before, after = meta.values(loaded), meta.values(edited)
    if not same_key(meta.primary_key(before), meta.primary_key(after)):
        raise EditRefused(KEY_CHANGED)
    old_item, new_item = meta.to_item(before), meta.to_item(after)
    shown = fields_json(loaded) if edited_item is None else None
    for name, spec in meta.fields.items():
        if shown is not None and name in edited_value and shown.get(name) == edited_value[name]:
            continue  # as shown: a field typed Any holding a set reads back as a list, yet was not edited
        moved = (
            not same(old_item.get(spec.attribute), new_item.get(spec.attribute))
            if spec.stored
            else before.get(name) != after.get(name)
        )
        if moved:
            edit.fields[name] = after.get(name)
            if spec.stored:
                edit.attributes.append(spec.attribute)
    if meta.version is not None and meta.version in edit.fields:
        raise EditRefused(
            f"{cls.__name__}.{meta.version} is the version the model keeps (each save adds one): "
            "leave it as loaded"
        )
    if edited_item is not None:
        edit.raw = _undeclared(meta, stored, edited_item, new_item)
        if edit.raw and edit.fields:
            raise EditRefused(
                f"this edit changes {cls.__name__}'s fields ({', '.join(edit.fields)}) and attributes the "
                f"design does not declare ({', '.join(edit.raw.names)}); the model writes the fields with "
                "their keys, guards and version and cannot write other attributes in the same request: "
                "save one change, then the other"
            )
    return edit


def _undeclared(meta: Any, stored: Item, edited_item: Item, built: Item) -> Changes:
    """The changes to attributes the design does not declare; a key or type attribute the person edited
    must be what the model builds from the edited fields (it is rebuilt from them)."""
    fields = {spec.attribute for spec in meta.fields.values()}
    built_only = (set(meta.keys) | {meta.table.type_attribute}) - fields
    managed = fields | built_only
    found = changes(stored, edited_item)
    for name in found.names:
        if name in built_only and not same(built.get(name), edited_item.get(name)):
            if name in (meta.table.pk_name, meta.table.sk_name):
                raise EditRefused(KEY_CHANGED)
            what = (
                "says which entity the item is"
                if name == meta.table.type_attribute
                else f"is built by the model from {meta.keys[name].template.text}"
            )
            raise EditRefused(f"{name} {what}: change the fields it is built from instead")
    return Changes(
        {name: value for name, value in found.set.items() if name not in managed},
        [name for name in found.removed if name not in managed],
    )


def same_key(a: Item, b: Item) -> bool:
    return a.keys() == b.keys() and all(same(a[name], b[name]) for name in a)
