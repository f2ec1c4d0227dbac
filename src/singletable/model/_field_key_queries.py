"""Typed key conditions on an index declared by field (:mod:`singletable.model._field_keys`).

A pattern on such an index takes every partition field by equality and any sort fields from the left, by
equality too (``Task.by_tenant_status(tenant="t1", status="open", created_at=day)``); ``.where()`` puts one
range condition -- ``<``, ``<=``, ``>``, ``>=``, ``between``, ``begins_with`` or ``==`` -- on the next sort
field. That is the rule DynamoDB applies to such a KeyConditionExpression (every partition attribute by
equality; sort attributes left to right, a range only on the last one given), checked here so that a
misuse names the entity, the index and the field before any request. Each value is stored with its
field's own codec, so the condition compares what the items hold: numbers as numbers, no zero-padding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from singletable.model._entity_meta import EntityMeta
from singletable.model._errors import DeclarationError, FieldTypeError, KeyTemplateError, MissingKeyFields
from singletable.model._expr import Cond, Path
from singletable.model._field_keys import empty_key_value
from singletable.model._field_values import AV, Codec, refused
from singletable.model._table import Index


class KeyField(NamedTuple):
    """One attribute of the key, as one entity fills it: its field, attribute and codec."""

    field: str
    attribute: str
    codec: Codec


_RANGE = ("<", "<=", ">", ">=", "=")


@dataclass(frozen=True, slots=True)
class FieldKey:
    """An index declared by field, bound to the entity a pattern reads from it."""

    index: Index
    entity: str
    where: str  # the pattern, for messages: ``Task.by_tenant_status``
    partition: tuple[KeyField, ...]
    sort: tuple[KeyField, ...]

    @classmethod
    def bind(cls, meta: EntityMeta, index: Index, where: str) -> FieldKey:
        """Each key attribute as ``meta`` stores it; a pattern on an index its entity cannot fill is
        refused."""

        def fields(parts: Any) -> tuple[KeyField, ...]:
            out = []
            for part in parts:
                name = meta.field_of.get(part.attribute)
                if name is None:
                    raise DeclarationError(
                        f"{where}: GSI {index.name} keys on field {part.field} (attribute {part.attribute}), "
                        f"and {meta.type} has no such field; its fields are {', '.join(meta.fields)}"
                    )
                out.append(KeyField(name, part.attribute, meta.fields[name].codec))
            return tuple(out)

        return cls(index, meta.type, where, fields(index.hash_parts), fields(index.range_parts))

    @property
    def arguments(self) -> tuple[str, ...]:
        """What a call takes: the partition fields (positionally too), then the sort fields."""
        return tuple(f.field for f in self.partition)

    @property
    def takes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.arguments, *(f.field for f in self.sort))))

    def describe(self, partition: bool) -> dict[str, Any] | None:
        """The partition or sort key as a pattern describes its keys for the design tools: the attributes
        and fields, each field a slot of its own (no template: nothing is rendered)."""
        parts = self.partition if partition else self.sort
        if not parts:
            return None
        slots: list[dict[str, Any]] = [
            {
                "field": p.field,
                "slice": None,
                "filters": [],
                "spec": "",
                "reversible": True,
                "text": f"{{{p.field}}}",
            }
            for p in parts
        ]
        return {
            "attribute": parts[0].attribute,
            "attributes": [p.attribute for p in parts],
            "fields": [p.field for p in parts],
            "types": [p.codec.kind for p in parts],
            "template": None,
            "parts": slots,
        }

    def _names(self, parts: tuple[KeyField, ...], joiner: str = ", ") -> str:
        return joiner.join(f.field for f in parts)

    def equalities(self, values: Mapping[str, Any]) -> tuple[tuple[str, AV], ...]:
        """The key's equality conditions for a call: every partition field, then the sort fields given from
        the left. Raises, naming the index and field, when one is missing or out of order."""
        missing = [f.field for f in self.partition if values.get(f.field) is None]
        if missing:
            raise MissingKeyFields(
                self.entity,
                self.index.name,
                self._names(self.partition),
                missing,
                message=(
                    f"{self.where}(): GSI {self.index.name} is partitioned by {self._names(self.partition)}; "
                    f"give {', '.join(missing)} (every partition field, by equality)"
                ),
            )
        given = [f for f in self.sort if values.get(f.field) is not None]
        expected = list(self.sort[: len(given)])
        if given != expected:
            gap = next(f for f, g in zip(expected, given, strict=True) if f != g)
            raise KeyTemplateError(
                f"{self.where}(): GSI {self.index.name} sorts by {self._names(self.sort, ', then ')}; "
                f"{given[expected.index(gap)].field} was given without {gap.field} (sort fields are given "
                "left to right)"
            )
        return tuple((f.attribute, self.value(f, values[f.field])) for f in (*self.partition, *given))

    def given_sorts(self, values: Mapping[str, Any]) -> int:
        """How many sort fields a call gives (a left prefix, as :meth:`equalities` checked)."""
        return sum(1 for f in self.sort if values.get(f.field) is not None)

    def value(self, key_field: KeyField, value: Any) -> AV:
        """A key condition's value, stored as the field stores it (checked against its type)."""
        try:
            av = key_field.codec.dump(value)
        except Exception as error:
            if refused(error):
                raise FieldTypeError(self.entity, key_field.field, key_field.codec.expected, value) from None
            raise
        if av is None or empty_key_value(value) or next(iter(av)) not in ("S", "N", "B"):
            raise KeyTemplateError(
                f"{self.where}: {self.entity}.{key_field.field} = {value!r} cannot be a key value of GSI "
                f"{self.index.name} (an index key is a non-empty string, a number or a non-empty binary)"
            )
        return av

    def range(self, values: Mapping[str, Any], cond: Cond) -> tuple[str, tuple[Any, ...]]:
        """(attribute, condition) for ``.where(cond)``: a range on the sort field after those given."""
        path = cond.args[0] if cond.args else None
        if cond.op not in ("CMP", "BETWEEN", "BEGINS_WITH") or not isinstance(path, Path):
            raise KeyTemplateError(
                f"{self.where}: a key condition compares one sort field of GSI {self.index.name} with =, <, "
                "<=, >, >=, between or begins_with; combine other conditions with .filter()"
            )
        name = path.field
        if path.entity != self.entity or not path.top_level:
            raise KeyTemplateError(f"{self.where}: {path!r} is not a field of {self.entity}")
        if name in self.arguments:
            raise KeyTemplateError(
                f"{self.where}: {name} is a partition field of GSI {self.index.name}; give it by equality in "
                "the call, not in .where()"
            )
        position = next((i for i, f in enumerate(self.sort) if f.field == name), None)
        if position is None:
            sorts = self._names(self.sort, ", then ") or "nothing"
            raise KeyTemplateError(
                f"{self.where}: {name} is not a sort field of GSI {self.index.name} (it sorts by {sorts}); "
                "filter on it with .filter()"
            )
        given = self.given_sorts(values)
        if position < given:
            following = self.sort[given].field if given < len(self.sort) else None
            then = f"the next sort field, {following}" if following else "no sort field (all are given)"
            raise KeyTemplateError(
                f"{self.where}: {name} is already given by equality in the call; a range condition goes on "
                f"{then}"
            )
        if position > given:
            raise MissingKeyFields(
                self.entity,
                self.index.name,
                self._names(self.sort),
                [f.field for f in self.sort[given:position]],
                message=(
                    f"{self.where}: a range condition on {name} needs every sort field before it by equality "
                    f"(sort fields left to right): give {self._names(self.sort[given:position])} in the call"
                ),
            )
        key_field = self.sort[position]
        if cond.op == "BEGINS_WITH":
            if key_field.codec.kind == "N":
                raise KeyTemplateError(
                    f"{self.where}: begins_with needs a string or binary sort field; "
                    f"{self.entity}.{name} is a number (compare it with <, <=, >, >= or between)"
                )
            return key_field.attribute, ("begins_with", self.value(key_field, cond.args[1]))
        if cond.op == "BETWEEN":
            low, high = self._operand(key_field, cond.args[1]), self._operand(key_field, cond.args[2])
            return key_field.attribute, ("between", low, high)
        sign = cond.args[1]
        if sign not in _RANGE:
            raise KeyTemplateError(
                f"{self.where}: a key condition cannot use {sign} (DynamoDB takes =, <, <=, >, >=, "
                "between and begins_with on a sort key); use .filter()"
            )
        return key_field.attribute, (sign, self._operand(key_field, cond.args[2]))

    def _operand(self, key_field: KeyField, value: Any) -> AV:
        if isinstance(value, Path):
            raise KeyTemplateError(
                f"{self.where}: a key condition compares {key_field.field} with a value, not with {value!r}"
            )
        return self.value(key_field, value)
