"""The records of the shape table: one kind of record per kind of shape in AWS's service model.

A request shape is a tree of named shapes (a structure's members, a list's member, a map's key and value
name other shapes); each entry of :data:`singletable.engine._validation.SHAPES` is one of these records, so
the walker asks what a shape is by its type (``type(shape) is StructureShape``) and reads its constraints by
name. Generated entries (``generated.py``, written by ``tools/gen_shape_data.py``) and hand-written ones
(``additions.py``) use the same records. A field left at None is a constraint the model does not state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class StringShape(NamedTuple):
    """A string: its length bounds, a pattern (a regex, or a (shown, matched) pair) and an enum set."""

    low: int | None = None
    high: int | None = None
    pattern: str | tuple[str, str] | None = None
    enum: tuple[str, ...] | None = None


class IntegerShape(NamedTuple):
    """An integer or a long (``java``: "Integer" or "Long", as DynamoDB's errors name it) and its range."""

    java: str
    low: int | None = None
    high: int | None = None


class BooleanShape(NamedTuple):
    """A boolean."""


class BlobShape(NamedTuple):
    """Binary data (base64 text on the wire, bytes in process)."""


class ListShape(NamedTuple):
    """A list of ``member`` shapes, with bounds on its length."""

    member: str
    low: int | None = None
    high: int | None = None


class MapShape(NamedTuple):
    """A map from ``key`` shapes to ``value`` shapes, with bounds on its size."""

    key: str
    value: str
    low: int | None = None
    high: int | None = None


class StructureShape(NamedTuple):
    """A structure: ``members`` (member name -> shape name, in the model's order), the ``required`` members,
    and ``rules`` (member -> how DynamoDB words that member's errors; see the walker's UNECHOED and
    REQUIRED), where it words them otherwise than the model implies."""

    members: Mapping[str, str]
    required: tuple[str, ...] = ()
    rules: Mapping[str, Any] | None = None


Shape = StringShape | IntegerShape | BooleanShape | BlobShape | ListShape | MapShape | StructureShape
# Shape name -> its record: the table the walker reads.
Shapes = dict[str, Shape]
