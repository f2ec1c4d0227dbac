"""Request validation: a request's shape is checked against AWS's service model before any operation runs.

The Engine checks every request once, at dispatch, against the operation's input shape from the registry
(``check_input(SHAPES, shape, params)``; :func:`check_shape` does the same by operation name); DynamoDB
rejects a malformed request before it looks at any table, so these errors win over ResourceNotFoundException
and every semantic check.

* :mod:`shapes` holds the records the shape table is made of, one kind per kind of shape;
* :mod:`walker` walks a request against a shape and words the errors as DynamoDB does;
* :mod:`generated` holds the shapes generated from AWS's DynamoDB service model by tools/gen_shape_data.py;
* :mod:`additions` holds the hand-written shapes the generated data lacks (tagging, limits, endpoints,
  DynamoDB Streams), and the listed overrides of generated shapes where DynamoDB answers otherwise than its
  model says (enum order, tag characters, the members it words its own way).

All are merged here into :data:`SHAPES`, the one table the walker reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from singletable.engine._registry import INPUT_SHAPES
from singletable.engine._validation import additions, generated
from singletable.engine._validation.shapes import Shape, Shapes, StructureShape
from singletable.engine._validation.walker import check_input

_overlap = generated.SHAPES.keys() & additions.SHAPES.keys()
if _overlap:
    raise RuntimeError(f"validation.additions redefines generated shapes: {sorted(_overlap)}")

_unknown = additions.OVERRIDES.keys() - generated.SHAPES.keys()
if _unknown:
    raise RuntimeError(f"validation.additions overrides shapes that are not generated: {sorted(_unknown)}")

SHAPES: Shapes = {**generated.SHAPES, **additions.SHAPES, **additions.OVERRIDES}


def _members(shape: Shape) -> Mapping[str, str]:
    return shape.members if type(shape) is StructureShape else {}


# The operations whose requests take ReturnConsumedCapacity, read off their shapes: what a recorder or a
# trace can ask to report its capacity (serve --record, the model's trace, the demos' runner). A shape not
# generated yet (an operation just added to the registry, while tools/gen_shape_data.py runs) reports none.
REPORTS_CAPACITY: frozenset[str] = frozenset(
    name
    for name, shape in INPUT_SHAPES.items()
    if shape in SHAPES and "ReturnConsumedCapacity" in _members(SHAPES[shape])
)

__all__ = ["REPORTS_CAPACITY", "SHAPES", "check_input", "check_shape"]


def check_shape(operation: str, params: dict[str, Any]) -> None:
    """Raise DynamoDB's SerializationException or aggregated ValidationException for a malformed request
    to ``operation`` (its wire name); operations without a registered shape pass."""
    input_shape = INPUT_SHAPES.get(operation)
    if input_shape is not None:
        check_input(SHAPES, input_shape, params)
