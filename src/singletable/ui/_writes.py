"""The console's writes: items created, edited and deleted; tables created from the design, or deleted.

An item of one of the design's entities is written through the modeling layer (``db.create``, ``db.put``,
``db.delete``), so validation, key templates, uniqueness guards, versions and derived items apply exactly as
in the application, and their errors (entity, field, value) are shown in place. Any other item is written
with PutItem or DeleteItem, with an optional condition expression. Every failure is a :class:`WriteRefused`
whose message the page shows beside the form; nothing is written then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from singletable.data import Design, Expression, Target, TargetError, from_plain, item_from_json, key_schema
from singletable.data._look import merge_into
from singletable.ui._inputs import json_value

Item = dict[str, Any]
FORMATS = ("plain", "dynamodb")


class WriteRefused(ValueError):
    """A write that was not made; ``str()`` says why, in the words of the layer that refused it."""


@dataclass
class Written:
    """What a successful write leaves to show: the key of the item now stored (None after a delete)."""

    key: Item | None


def _model_error(error: Exception) -> WriteRefused:
    """pydantic's and the model's errors as one message per problem: entity, field and value."""
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        title = error.title
        problems = []
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "(item)"
            problems.append(f"{title}.{where}: {problem['msg']} (got {problem.get('input')!r:.80})")
        return WriteRefused("; ".join(problems))
    return WriteRefused(f"{type(error).__name__}: {error}")


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
    try:
        return from_plain(value) if fmt == "plain" else item_from_json(value, hint=" (or choose plain JSON)")
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

    def entity(self, cls: Any, value: dict[str, Any], fmt: str) -> Any:
        """The editor's content as an entity: its fields as plain JSON, or the stored item's DynamoDB JSON."""
        meta = cls.model_entity()
        try:
            if fmt == "dynamodb":
                return meta.from_item(as_item(value, fmt))
            return cls.model_validate(value)
        except WriteRefused:
            raise
        except Exception as error:
            raise _model_error(error) from None

    def create(self, table: str, entity: str, text: str, fmt: str, condition: Mapping[str, str]) -> Written:
        value = parse_body(text, fmt)
        cls = self.entity_class(table, entity)
        if cls is None:
            item = as_item(value, fmt)
            key = self._key(table, item)
            self._put(table, item, condition)
            return Written(key)
        created = self._model(lambda db: db.create(self.entity(cls, value, fmt)), table)
        meta = cls.model_entity()
        return Written(meta.primary_key(meta.values(created)))

    def save(
        self, table: str, key: Item, entity: str, text: str, fmt: str, condition: Mapping[str, str]
    ) -> Written:
        """Replace the item at ``key``; the key itself cannot change here (that is a new item: create it)."""
        value = parse_body(text, fmt)
        cls = self.entity_class(table, entity)
        if cls is None:
            item = as_item(value, fmt)
            self._same_key(key, self._key(table, item))
            self._put(table, item, condition)
            return Written(key)
        meta = cls.model_entity()
        edited = self.entity(cls, value, fmt)
        self._same_key(key, meta.primary_key(meta.values(edited)))
        self._model(lambda db: db.put(edited), table)
        return Written(key)

    def delete(self, table: str, key: Item, stored: Item | None, condition: Mapping[str, str]) -> Written:
        """Delete through the model when the stored item is an entity (guards and derived items go too)."""
        entity = self.design.label(stored) if self.design is not None and stored else ""
        known = self.design is not None and entity in self.design.entities
        cls = self.entity_class(table, entity) if known else None
        if cls is None or condition.get("raw") == "1":
            params: dict[str, Any] = {"TableName": table, "Key": key}
            self._condition(params, condition)
            self._call("DeleteItem", params)
            return Written(None)
        try:
            found = self.entity(cls, self._json(stored), "dynamodb")
        except WriteRefused as error:
            raise WriteRefused(
                f"{error} -- this item does not fit {entity}, so the model cannot delete it with its guards "
                "and derived items; tick 'only this item (DeleteItem)' to delete just the item"
            ) from None
        self._model(lambda db: db.delete(found), table)
        return Written(None)

    def _json(self, item: Item | None) -> dict[str, Any]:
        from singletable.data import item_to_json

        return item_to_json(item or {})

    def _model(self, write: Any, table: str) -> Any:
        from singletable.model import ModelError

        try:
            return write(self.db(table))
        except WriteRefused:
            raise
        except ModelError as error:
            raise WriteRefused(f"{type(error).__name__}: {error}") from None

    def _put(self, table: str, item: Item, condition: Mapping[str, str]) -> None:
        params: dict[str, Any] = {"TableName": table, "Item": item}
        self._condition(params, condition)
        self._call("PutItem", params)

    def _condition(self, params: dict[str, Any], condition: Mapping[str, str]) -> None:
        text = condition.get("condition", "").strip()
        names, values = (_object(condition.get(part, ""), part) for part in ("names", "values"))
        if not text:
            if names or values:
                raise WriteRefused("names and values go with a condition: write the condition, or clear them")
            return
        merge_into(params, Expression(text, names, from_plain(values)), "ConditionExpression")

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

    @staticmethod
    def _same_key(before: Item, after: Item) -> None:
        if before != after:
            raise WriteRefused(
                "the edit changes the item's key; a new key is a new item: create it, then delete this one"
            )

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
