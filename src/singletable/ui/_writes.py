"""The console's writes: items created, edited and deleted; tables created from the design, or deleted.

An item of one of the design's entities is written through the modeling layer (``db.create``,
``db.update``, ``db.delete``), so validation, key templates, uniqueness guards, versions and derived items
apply exactly as in the application, and their errors (entity, field, value) are shown in place. Any other
item is written with PutItem, UpdateItem or DeleteItem, with an optional condition expression. Every failure
is a :class:`WriteRefused` whose message the page shows beside the form; nothing is written then.

A save or a delete applies only to the item as the person saw it: the page carries that item's image
(:mod:`singletable.ui._images`), the write is refused with a :class:`Conflict` -- the item changed, was
deleted, or (creating) already exists -- when the stored item is another, and a save writes only what the
edit changes (an UpdateItem of those attributes, or the model's update of those fields), so an item opened
and saved unchanged is not written at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from singletable.data import Design, Target, TargetError, from_plain, item_from_json, key_schema
from singletable.ui._editor_json import from_editor
from singletable.ui._entity_edits import (
    KEY_CHANGED,
    EditRefused,
    entity_edit,
    loaded_entity,
    model_error,
    same_key,
)
from singletable.ui._images import Changes, LoadedImage, Placeholders, changes, image_conditions, image_of
from singletable.ui._inputs import json_value

Item = dict[str, Any]
FORMATS = ("plain", "dynamodb")
# An edit of more attributes than this is sent as a PutItem of the whole edited item, under the same
# condition: its UpdateExpression could pass DynamoDB's limits (4,096 characters, 300 operators).
UPDATE_ACTIONS = 100
# Failures that mean "the stored item is not what the write expected", whoever reports them.
CONDITION_FAILED = "ConditionalCheckFailedException"


class WriteRefused(ValueError):
    """A write that was not made; ``str()`` says why, in the words of the layer that refused it."""


class Conflict(Exception):
    """A write not made because the stored item is not the one the person saw: ``reason`` is "changed",
    "deleted" or (creating) "exists"; ``stored`` is the item stored now (None when there is none)."""

    def __init__(self, reason: str, key: Item, stored: Item | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.key = key
        self.stored = stored


@dataclass
class Written:
    """What a write leaves to show: the key of the item now stored (None after a delete), and whether
    anything was written (a save that changes nothing writes nothing)."""

    key: Item | None
    changed: bool = True


def parse_body(text: str, fmt: str, what: str = "the item") -> Any:
    """The editor's JSON text: a JSON object (plain values, or DynamoDB JSON)."""
    if fmt not in FORMATS:
        raise WriteRefused(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    try:
        value = json_value(text)
    except ValueError as error:
        raise WriteRefused(f"{what} is {error}") from None
    if not isinstance(value, dict):
        raise WriteRefused(f"{what} must be a JSON object: {{ ... }}")
    return value


def as_item(value: dict[str, Any], fmt: str) -> Item:
    """The editor's object as an item: the plain-JSON editor's format (sets and binary as DynamoDB JSON
    values, :mod:`singletable.ui._editor_json`), or DynamoDB JSON."""
    try:
        return from_editor(value) if fmt == "plain" else item_from_json(value, hint=" (or choose plain JSON)")
    except ValueError as error:
        raise WriteRefused(str(error)) from None


class Writer:
    """Writes on one target, through the model for the design's table and entities."""

    def __init__(self, target: Target, design: Design | None, design_table: str | None) -> None:
        self.target = target
        self.design = design
        self.design_table = design_table
        self._dbs: dict[str, Any] = {}

    def entity_class(self, table: str, entity: str) -> Any:
        """The design's entity class ``entity`` when ``table`` is the design's table, else None."""
        if not entity or self.design is None or table != self.design_table:
            return None
        if entity not in self.design.entities:
            known = ", ".join(sorted(self.design.entities))
            raise WriteRefused(f"no entity {entity!r} in the design (its entities: {known})")
        return self.design.entities[entity]

    def db(self, table: str) -> Any:
        """The model's DB for the design's table on this target (one per table, kept open)."""
        if table not in self._dbs:
            from singletable.model import connect

            assert self.design is not None
            backend = self.target.engine if self.target.engine is not None else self.target.name
            self._dbs[table] = connect(self.design.table, backend, name=table)
        return self._dbs[table]

    def stored(self, table: str, key: Item) -> Item | None:
        """The item stored at ``key`` now (a strongly consistent read), or None."""
        return self._call("GetItem", {"TableName": table, "Key": key, "ConsistentRead": True}).get("Item")

    # -- create ---------------------------------------------------------------------------------------

    def create(self, table: str, entity: str, text: str, fmt: str, condition: Mapping[str, str]) -> Written:
        """A new item, conditioned on there being none at its key (:class:`Conflict` "exists" if there is)."""
        value = parse_body(text, fmt)
        cls = self.entity_class(table, entity)
        if cls is None:
            item = as_item(value, fmt)
            key = self._key(table, item)
            params: dict[str, Any] = {"TableName": table, "Item": item}
            placeholders = Placeholders()
            absent = f"attribute_not_exists({placeholders.name(next(iter(key)))})"
            self._conditioned(params, [absent], placeholders, condition)
            self._write("PutItem", params, table, key, None)
            return Written(key)
        meta = cls.model_entity()
        new = self._entity(cls, value, fmt)
        key = meta.primary_key(meta.values(new))
        created = self._model(lambda db: db.create(new), table, key, None)
        return Written(meta.primary_key(meta.values(created)))

    def _entity(self, cls: Any, value: dict[str, Any], fmt: str) -> Any:
        """The editor's content as an entity: its fields as plain JSON, or the item's DynamoDB JSON."""
        try:
            if fmt == "dynamodb":
                return cls.model_entity().from_item(as_item(value, fmt))
            return cls.model_validate(value)
        except WriteRefused:
            raise
        except Exception as error:
            raise WriteRefused(str(model_error(error))) from None

    # -- save -----------------------------------------------------------------------------------------

    def save(
        self,
        table: str,
        key: Item,
        entity: str,
        text: str,
        fmt: str,
        loaded: str,
        condition: Mapping[str, str],
    ) -> Written:
        """Write what the edit changes in the item at ``key``, if the item is still the image ``loaded``
        (:class:`Conflict` otherwise); the key itself cannot change here (that is a new item: create it)."""
        value = parse_body(text, fmt)
        cls = self.entity_class(table, entity)
        edited = as_item(value, fmt) if cls is None or fmt == "dynamodb" else None
        stored = self._as_loaded(table, key, loaded)
        try:
            if cls is None:
                assert edited is not None
                if not same_key(key, self._key(table, edited)):
                    raise EditRefused(KEY_CHANGED)
                return self._update_raw(table, key, stored, changes(stored, edited), edited, condition)
            edit = entity_edit(cls, stored, value, edited)
        except EditRefused as error:
            raise WriteRefused(str(error)) from None
        if edit.raw:
            return self._update_raw(table, key, stored, edit.raw, None, {})
        if not edit.fields:
            return Written(key, changed=False)
        image = LoadedImage(stored, [*key, *edit.attributes], len(key))
        self._model(lambda db: db.update(edit.loaded, condition=image, **edit.fields), table, key, stored)
        return Written(key)

    def _as_loaded(self, table: str, key: Item, loaded: str) -> Item:
        """The stored item, when it is the image the page was rendered from; else :class:`Conflict`."""
        stored = self.stored(table, key)
        if stored is None:
            raise Conflict("deleted", key, None)
        if image_of(stored) != loaded:
            raise Conflict("changed", key, stored)
        return stored

    def _update_raw(
        self,
        table: str,
        key: Item,
        stored: Item,
        change: Changes,
        edited: Item | None,
        condition: Mapping[str, str],
    ) -> Written:
        """An UpdateItem of only the changed attributes, conditioned on the item as loaded (a PutItem of the
        whole ``edited`` item when the update would pass DynamoDB's expression limits)."""
        if not change:
            return Written(key, changed=False)
        placeholders = Placeholders()
        clauses = image_conditions(
            stored, [*key, *change.names], placeholders.name, placeholders.value, required=len(key)
        )
        if edited is not None and len(change.names) > UPDATE_ACTIONS:
            params: dict[str, Any] = {"TableName": table, "Item": edited}
            self._conditioned(params, clauses, placeholders, condition)
            self._write("PutItem", params, table, key, stored)
            return Written(key)
        sets = [f"{placeholders.name(n)} = {placeholders.value(v, ':new')}" for n, v in change.set.items()]
        removes = [placeholders.name(name) for name in change.removed]
        expression = " ".join(
            [
                *(["SET " + ", ".join(sets)] if sets else []),
                *(["REMOVE " + ", ".join(removes)] if removes else []),
            ]
        )
        params = {"TableName": table, "Key": key, "UpdateExpression": expression}
        self._conditioned(params, clauses, placeholders, condition)
        self._write("UpdateItem", params, table, key, stored)
        return Written(key)

    # -- delete ---------------------------------------------------------------------------------------

    def delete(self, table: str, key: Item, loaded: str, condition: Mapping[str, str]) -> Written:
        """Delete the item if it is still the image ``loaded`` (:class:`Conflict` otherwise): through the
        model when it is an entity (its guards and derived items go too), else a DeleteItem."""
        stored = self._as_loaded(table, key, loaded)
        entity = self.design.label(stored) if self.design is not None else ""
        known = self.design is not None and entity in self.design.entities
        cls = self.entity_class(table, entity) if known else None
        if cls is None or condition.get("raw") == "1":
            params: dict[str, Any] = {"TableName": table, "Key": key}
            placeholders = Placeholders()
            clauses = image_conditions(stored, list(key), placeholders.name, placeholders.value, len(key))
            self._conditioned(params, clauses, placeholders, condition)
            self._write("DeleteItem", params, table, key, stored)
            return Written(None)
        try:
            found = loaded_entity(cls, stored)
        except EditRefused as error:
            raise WriteRefused(
                f"{error} -- so the model cannot delete it with its guards and derived items; tick "
                "'only this item (DeleteItem)' to delete just the item"
            ) from None
        image = LoadedImage(stored, list(key), len(key))
        self._model(lambda db: db.delete(found, condition=image), table, key, stored)
        return Written(None)

    # -- sending --------------------------------------------------------------------------------------

    def _conditioned(
        self,
        params: dict[str, Any],
        clauses: list[str],
        placeholders: Placeholders,
        condition: Mapping[str, str],
    ) -> None:
        """The console's clauses and the person's optional condition, joined with AND, into ``params``."""
        text = condition.get("condition", "").strip()
        names, values = (_object(condition.get(part, ""), part) for part in ("names", "values"))
        if not text and (names or values):
            raise WriteRefused("names and values go with a condition: write the condition, or clear them")
        clash = sorted((set(names) & set(placeholders.names)) | (set(values) & set(placeholders.values)))
        if clash:
            raise WriteRefused(f"the condition's placeholder {clash[0]} is one the console uses: rename it")
        parts = [*clauses, f"({text})"] if text else clauses
        params["ConditionExpression"] = " AND ".join(parts)
        all_names = {**placeholders.names, **names}
        all_values = {**placeholders.values, **from_plain(values)}
        if all_names:
            params["ExpressionAttributeNames"] = all_names
        if all_values:
            params["ExpressionAttributeValues"] = all_values

    def _write(
        self, operation: str, params: dict[str, Any], table: str, key: Item, expected: Item | None
    ) -> None:
        """Send a conditioned write; a failed condition is a :class:`Conflict` when the stored item is not
        ``expected`` (None: the write expected no item), else the person's own condition refusing."""
        try:
            self.target.call(operation, **params)
        except TargetError as error:
            if error.code == CONDITION_FAILED:
                self._conflict_or(table, key, expected)
            raise WriteRefused(f"{error.code}: {error.message}") from None

    def _conflict_or(self, table: str, key: Item, expected: Item | None) -> None:
        """Raise the :class:`Conflict` a failed condition means, if the stored item moved; else return."""
        now = self.stored(table, key)
        if expected is None:
            if now is not None:
                raise Conflict("exists", key, now)
            return
        if now is None:
            raise Conflict("deleted", key, None)
        if image_of(now) != image_of(expected):
            raise Conflict("changed", key, now)

    def _model(self, write: Any, table: str, key: Item | None = None, expected: Item | None = None) -> Any:
        """A write through the model; a failed condition is a :class:`Conflict` as for :meth:`_write` (when
        the write addresses the item at ``key``)."""
        from singletable.model import ConditionFailed, ModelError, NotFound

        try:
            return write(self.db(table))
        except WriteRefused:
            raise
        except (ConditionFailed, NotFound) as error:
            if key is not None:
                self._conflict_or(table, key, expected)
            raise WriteRefused(f"{type(error).__name__}: {error}") from None
        except ModelError as error:
            raise WriteRefused(f"{type(error).__name__}: {error}") from None

    def _call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.target.call(operation, **params)
        except TargetError as error:
            raise WriteRefused(f"{error.code}: {error.message}") from None

    def _key(self, table: str, item: Item) -> Item:
        description = self._call("DescribeTable", {"TableName": table})["Table"]
        names = key_schema(description).names
        missing = [name for name in names if name not in item]
        if missing:
            raise WriteRefused(f"the item needs its key attribute {' and '.join(missing)}")
        return {name: item[name] for name in names}

    def close(self) -> None:
        """Release the model's connections (the target itself belongs to whoever opened it)."""
        for db in self._dbs.values():
            db.close()
        self._dbs.clear()

    def create_table(self, table: str) -> None:
        """The design's table (its CreateTable, TTL included) under ``table``."""
        if self.design is None:
            raise WriteRefused("creating a table from a design needs --design MODULE")
        self._model(lambda db: db.create_table(), table)

    def delete_table(self, table: str) -> None:
        self._call("DeleteTable", {"TableName": table})


def _object(text: str, what: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    value = parse_body(text, "plain", f"the condition's {what}")
    if what == "names" and not all(isinstance(v, str) for v in value.values()):
        raise WriteRefused('names map placeholders to attribute names: {"#n": "name"}')
    return value
