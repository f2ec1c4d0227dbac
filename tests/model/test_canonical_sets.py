"""Set fields come back in one canonical order.

A Python ``set`` of strings iterates in an order that changes with ``PYTHONHASHSEED``, so a demo or a user's
test printing an entity read from the table printed differently from run to run. Sets read from DynamoDB
(SS, NS, BS) are :class:`CanonicalSet` s: plain sets that iterate, print and serialise sorted -- on the fast
read path and on the validation path alike.
"""

from __future__ import annotations

import copy
import enum
import os
import pickle
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import singletable
from singletable.model import Entity, Keys, Table
from singletable.model._field_values import CanonicalSet, build_codec, load_any

SRC = str(Path(singletable.__file__).parents[1])
sets_table = Table(name="sets")


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Bag(Entity, table=sets_table, type="BAG", timestamps=False):
    name: str
    words: set[str] = set()
    numbers: set[int] = set()
    colours: set[Colour] = set()
    blobs: set[bytes] = set()
    anything: Any = None

    keys = Keys(PK="BAG#{name}", SK="BAG")


@given(st.sets(st.text(min_size=1), min_size=1), st.randoms())
def test_a_string_set_reads_back_sorted_whatever_order_it_was_stored_in(words: set[str], rng: Any) -> None:
    codec = build_codec(set[str])
    stored = list(words)
    rng.shuffle(stored)
    loaded = codec.load({"SS": stored})
    assert list(loaded) == sorted(words)
    assert loaded == words and isinstance(loaded, set)
    assert repr(loaded) == "{" + ", ".join(repr(w) for w in sorted(words)) + "}"


def test_numbers_sort_by_value_and_bytes_by_bytes() -> None:
    assert list(build_codec(set[int]).load({"NS": ["10", "9", "-1"]})) == [-1, 9, 10]
    assert list(build_codec(set[Decimal]).load({"NS": ["1.5", "0.25"]})) == [Decimal("0.25"), Decimal("1.5")]
    assert list(build_codec(set[bytes]).load({"BS": [b"b", b"a"]})) == [b"a", b"b"]
    assert list(build_codec(set[Colour]).load({"SS": ["red", "blue"]})) == [Colour.BLUE, Colour.RED]


def test_untyped_sets_are_canonical_too() -> None:
    assert list(load_any({"SS": ["b", "a"]})) == ["a", "b"]
    assert list(load_any({"NS": ["2", "1.5"]})) == [1.5, 2]
    assert list(load_any({"M": {"x": {"BS": [b"z", b"y"]}}})["x"]) == [b"y", b"z"]


def test_a_canonical_set_is_a_set() -> None:
    found = CanonicalSet(["b", "a"])
    assert found == {"a", "b"} and "a" in found and len(found) == 2
    assert found | {"c"} == {"a", "b", "c"}
    assert list(copy.copy(found)) == ["a", "b"] and type(copy.deepcopy(found)) is CanonicalSet
    assert list(pickle.loads(pickle.dumps(found))) == ["a", "b"]
    assert repr(CanonicalSet()) == "set()"
    assert list(CanonicalSet([1, "a"])) == ["a", 1]  # no common order: by repr ("'a'" < "1")


def item(**attributes: Any) -> dict[str, Any]:
    return {"PK": {"S": "BAG#b"}, "SK": {"S": "BAG"}, "entityType": {"S": "BAG"}, **attributes}


def test_entities_read_on_the_fast_path_and_by_validation_agree() -> None:
    meta = Bag.model_entity()
    sets = {
        "words": {"SS": ["pear", "apple"]},
        "numbers": {"NS": ["3", "1"]},
        "colours": {"SS": ["red", "blue"]},
    }
    fast = meta.from_item(item(name={"S": "b"}, **sets))
    validated = meta.from_item(item(**sets))  # name only in the key: pydantic validation recovers it
    for bag in (fast, validated):
        assert bag.name == "b"
        assert list(bag.words) == ["apple", "pear"] and list(bag.numbers) == [1, 3]
        assert list(bag.colours) == [Colour.BLUE, Colour.RED]
        assert bag.model_dump(mode="json")["words"] == ["apple", "pear"]
    partial = meta.from_item(item(words={"SS": ["z", "y"]}), partial=True)
    assert list(partial.words) == ["y", "z"]


def test_the_places_demo_prints_the_same_under_any_hash_seed() -> None:
    outputs = []
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": SRC}
        done = subprocess.run(
            [sys.executable, "-m", "singletable", "demo", "places"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert '"place_ids": ["1025", "1026"]' in outputs[0]
    assert outputs[0] == outputs[1] == outputs[2]
