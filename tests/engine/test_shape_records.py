"""The validation shape table is made of records, one kind per kind of shape, and generated.py is exactly what
tools/gen_shape_data.py writes from the service model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from singletable.engine._validation import SHAPES, generated
from singletable.engine._validation.shapes import (
    BlobShape,
    BooleanShape,
    IntegerShape,
    ListShape,
    MapShape,
    StringShape,
    StructureShape,
)

ROOT = Path(__file__).resolve().parents[2]
KINDS = (StringShape, IntegerShape, BooleanShape, BlobShape, ListShape, MapShape, StructureShape)


def test_generated_shapes_are_what_the_generator_writes(tmp_path: Path) -> None:
    out = tmp_path / "generated.py"
    subprocess.run([sys.executable, str(ROOT / "tools/gen_shape_data.py"), str(out)], check=True, cwd=ROOT)
    assert out.read_text() == Path(generated.__file__).read_text()


def test_every_shape_is_a_record_and_every_name_it_refers_to_exists() -> None:
    for name, shape in SHAPES.items():
        assert type(shape) in KINDS, name
        if isinstance(shape, StructureShape):
            referred = list(shape.members.values())
            assert set(shape.required) <= set(shape.members), name
        elif isinstance(shape, ListShape):
            referred = [shape.member]
        elif isinstance(shape, MapShape):
            referred = [shape.key, shape.value]
        else:
            referred = []
        for target in referred:
            assert target in SHAPES, (name, target)


def test_a_record_names_its_constraints() -> None:
    assert SHAPES["TableName"] == StringShape(low=3, high=255, pattern="[a-zA-Z0-9_.-]+")
    assert SHAPES["PositiveIntegerObject"] == IntegerShape(java="Integer", low=1)
    put = SHAPES["PutItemInput"]
    assert isinstance(put, StructureShape)
    assert put.required == ("TableName", "Item") and put.members["Item"] == "PutItemInputAttributeMap"
