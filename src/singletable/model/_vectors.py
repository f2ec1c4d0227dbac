"""Vector fields: ``embedding: list[float] = Vector(768)``, an embedding stored the way DynamoDB indexes it.

DynamoDB's vector indexes read a vector from an ordinary attribute holding a list of numbers (``{"L": [{"N":
"0.12"}, ...]}``); there is no vector type. So a vector field is a ``list[float]`` whose length is fixed when
the entity is declared, and every value the model writes is checked first -- the right number of elements,
each a finite number -- because DynamoDB refuses a write whose vector does not fit its index, and an item the
model wrote must never be one its own index leaves out. Reads check the length too (another tool may have
written the attribute), so a decoded entity always holds a vector of its declared size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Any

from pydantic import AfterValidator, Field
from pydantic.fields import FieldInfo

from singletable.model._errors import DeclarationError
from singletable.model._field_values import AV, Codec, build_codec

# DynamoDB: a vector index has 1 to 4096 dimensions (and SearchVector holds 1 to 4096 numbers).
MAX_DIMENSIONS = 4096
# The largest magnitude a 32-bit float holds: DynamoDB refuses a vector element beyond it.
F32_MAX = 3.4028234663852886e38


class VectorRefused(ValueError):
    """A value that is not a vector of the field's size; the write reports it as a FieldValueError."""


@dataclass(frozen=True, slots=True)
class VectorShape:
    """The declared size of a vector field, kept in the field's metadata (``Vector(768)`` puts it there)."""

    dimensions: int

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a vector of this size, or None when it is."""
        if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__len__"):
            return f"a vector is a list of {self.dimensions} numbers, not {type(value).__name__}"
        if len(value) != self.dimensions:
            return f"it holds {len(value)} numbers; this field's vectors have {self.dimensions} dimensions"
        if all(type(x) is float or type(x) is int for x in value) and all(
            -F32_MAX <= x <= F32_MAX
            for x in value  # False for NaN, so a NaN takes the slow path below
        ):
            return None  # the common case, a list of plain numbers, in two quick passes
        for position, element in enumerate(value):
            if isinstance(element, bool) or not isinstance(element, Real | Decimal):
                return f"element {position} is {element!r} ({type(element).__name__}), not a number"
            if not math.isfinite(element):
                return f"element {position} is {element!r}; a vector holds finite numbers only"
            if abs(float(element)) > F32_MAX:
                return (
                    f"element {position} is {element!r}, beyond the 32-bit floats a vector index holds "
                    "(at most 3.4028235e+38 either side of 0)"
                )
        return None

    def check(self, value: Any) -> list[float]:
        """``value`` as a list of floats (pydantic's after-validator); ValueError saying why if it is not."""
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(problem)
        return [float(x) for x in value]


def Vector(dimensions: int, **field: Any) -> Any:
    """A vector field: ``embedding: list[float] = Vector(768)`` (``Vector(768, default=None)`` for an
    optional one; other keywords are pydantic's ``Field``'s: ``alias``, ``description``...).

    The field holds a list of ``dimensions`` finite numbers, stored as a DynamoDB list of numbers, which is
    what a :class:`~singletable.model.VectorIndex` on its attribute indexes."""
    checked_dimensions(dimensions, "Vector(dimensions)")
    info = Field(**field)
    shape = VectorShape(dimensions)
    info.metadata += [shape, AfterValidator(shape.check)]
    return info


def checked_dimensions(dimensions: Any, where: str) -> int:
    """``dimensions`` if DynamoDB accepts it for a vector index; else DeclarationError naming ``where``."""
    if isinstance(dimensions, bool) or not isinstance(dimensions, int):
        raise DeclarationError(f"{where} must be an int, not {dimensions!r}")
    if not 1 <= dimensions <= MAX_DIMENSIONS:
        raise DeclarationError(
            f"{where} is {dimensions}; DynamoDB's vector indexes have 1 to {MAX_DIMENSIONS} dimensions"
        )
    return dimensions


def vector_shape(info: FieldInfo) -> VectorShape | None:
    """The vector size a pydantic field declares (``= Vector(n)``), or None for any other field."""
    return next((m for m in info.metadata if isinstance(m, VectorShape)), None)


def vector_codec(owner: str, name: str, info: FieldInfo, shape: VectorShape) -> Codec:
    """The codec of a vector field: an L of N on the way out, checked; a list of floats on the way in."""
    inner = build_codec(info.annotation)
    if inner.kind != "L" or inner.item is None or inner.item.python is not float:
        raise DeclarationError(
            f"{owner}.{name} = Vector({shape.dimensions}) must be declared list[float] (or list[float] | "
            f"None), not {info.annotation}"
        )

    def dump(value: Any) -> AV:
        problem = shape.problem(value)
        if problem is not None:
            raise VectorRefused(problem)
        return {"L": [{"N": repr(float(x))} for x in value]}

    def load(av: AV) -> list[float]:
        numbers = [float(x["N"]) for x in av["L"]]
        if len(numbers) != shape.dimensions:
            raise ValueError(f"a vector of {len(numbers)} numbers, not {shape.dimensions}")
        return numbers

    codec = Codec("L", dump, load, inner.key, inner.parse, python=list, item=inner.item)
    codec.expected = f"Vector({shape.dimensions})"
    return codec


def query_vector(value: Any, dimensions: int) -> list[AV]:
    """A search vector as SearchVector takes it (a list of numbers); ValueError saying why it is not one.

    Takes what an embedding model returns: a list, a tuple, an array (anything with a length whose elements
    are real numbers)."""
    problem = VectorShape(dimensions).problem(value)
    if problem is not None:
        raise ValueError(problem)
    return [{"N": repr(float(x))} for x in value]
