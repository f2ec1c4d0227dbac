"""``--design MODULE``: items labelled with their entity, access patterns run by name with FIELD=VALUE.

The data is written through the model itself (``connect(shop, TARGET)``) on a database file, a real
``singletable serve`` and DynamoDB Local; the commands read it back with ``--design look_design``
(tests/data/look_design.py, importable by name because pytest puts its folder on the path).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator

import pytest
from look_design import Review, User, shop
from look_support import TARGETS, Place, header, lines, ok, place_for, run

from singletable.model import connect

DESIGN = ("--design", "look_design")
_names = itertools.count()


@pytest.fixture(scope="module", params=TARGETS)
def shared_place(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """The design's items written through the model on each TARGET, shared by the module's tests that only
    read them (``place`` names the table to the design for each)."""
    name = f"look{os.getpid()}_{next(_names)}"
    where = place_for(request.param, request, tmp_path_factory.mktemp("look"), name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOOK_TABLE", name)
        db = connect(shop, where.url)
        db.create_table()
        db.put(User(user_id="ada", name="Ada"))
        for review_id, stars in (("r1", 5), ("r2", 3), ("r3", 5)):
            db.put(Review(user_id="ada", review_id=review_id, stars=stars))
        db.put(Review(user_id="bob", review_id="r9", stars=5))
    yield where
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOOK_TABLE", name)
        db.delete_table()
        db.close()


@pytest.fixture
def place(shared_place: Place, monkeypatch: pytest.MonkeyPatch) -> Place:
    monkeypatch.setenv("LOOK_TABLE", shared_place.table)
    return shared_place


def test_a_pattern_runs_by_name(place):
    found = lines(ok("query", place.url, *DESIGN, "Review.of_user", "user_id=ada", "--jsonl"))
    assert [item["SK"]["S"] for item in found] == ["REVIEW#r1", "REVIEW#r2", "REVIEW#r3"]
    by_position = lines(ok("query", place.url, *DESIGN, "Review.of_user", "ada", "--jsonl"))
    assert by_position == found
    newest = lines(
        ok("query", place.url, *DESIGN, "Review.of_user", "user_id=ada", "-r", "-n", "1", "--jsonl")
    )
    assert [item["SK"]["S"] for item in newest] == ["REVIEW#r3"]


def test_a_collection_runs_by_name(place):
    found = lines(ok("query", place.url, *DESIGN, "page", "ada", "--jsonl"))
    assert [item["SK"]["S"] for item in found] == ["PROFILE", "REVIEW#r1", "REVIEW#r2", "REVIEW#r3"]


def test_a_number_field_is_typed_by_the_model(place):
    found = lines(ok("query", place.url, *DESIGN, "Review.with_stars", "stars=5", "--jsonl", "--plain"))
    assert sorted((item["PK"], item["SK"], item["stars"]) for item in found) == [
        ("USER#ada", "REVIEW#r1", 5),
        ("USER#ada", "REVIEW#r3", 5),
        ("USER#bob", "REVIEW#r9", 5),
    ]


def test_items_are_labelled_with_their_entity_then_keys(place):
    text = ok("query", place.url, *DESIGN, "Review.with_stars", "stars=3")
    assert header(text)[:4] == ["entity", "PK", "SK", "stars"]
    assert "Review" in text.splitlines()[-3]
    everything = ok("scan", place.url, *DESIGN)
    assert header(everything)[:3] == ["entity", "PK", "SK"]
    rows = [row.split() for row in everything.splitlines() if "USER#" in row]
    assert sorted(row[0] for row in rows) == ["Review", "Review", "Review", "Review", "User"]
    profile = ok("get", place.url, place.table, "PK=USER#ada", "SK=PROFILE", *DESIGN)
    assert header(profile)[:3] == ["entity", "PK", "SK"] and "User" in profile


def test_a_key_condition_reads_the_designs_table(place):
    found = lines(ok("query", place.url, *DESIGN, "PK=USER#ada", "SK^=REVIEW#", "--jsonl"))
    assert len(found) == 3
    result = run("query", place.url, *DESIGN, "--table", "NoSuchTable", "Review.of_user", "user_id=ada")
    assert result.exit_code == 1 and result.stderr.startswith("Error: ResourceNotFoundException: ")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("Review.nope",), "Review has no pattern nope (its patterns: of_user, with_stars)"),
        (
            ("Nope.of_user",),
            "'Nope.of_user' is not ENTITY.PATTERN with an entity of this design (Review, User)",
        ),
        (
            ("Review.of_user",),
            "REVIEW: key attribute PK = 'USER#{user_id}' needs user_id (the partition key of of_user())",
        ),
        (("Review.of_user", "colour=red"), "Review has no field colour (Review.of_user takes user_id)"),
        (
            ("Review.with_stars", "stars=abc"),
            "stars='abc': Input should be a valid integer, unable to parse string as an integer",
        ),
        (("Review.of_user", "user_id>a"), "a pattern takes FIELD=VALUE arguments, not 'user_id>a'"),
        (("Review.of_user", "a", "b"), "Review.of_user takes 1 positional arguments (user_id)"),
        (("Review.of_user", "a", "user_id=b"), "Review.of_user: user_id is given twice"),
        (
            ("Review.of_user", "user_id=a", "--index", "x"),
            "a pattern declares its own index and filter; drop --index, --filter and --consistent",
        ),
    ],
)
def test_pattern_mistakes_are_usage_errors(tmp_path, arguments, message):
    path = tmp_path / "app.db"
    connect(shop, str(path)).close()  # the file exists; the table need not
    result = run("query", str(path), *DESIGN, *arguments)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith(f"Error: {message}")


@pytest.mark.parametrize(
    ("design", "message"),
    [
        (
            "no_such_module",
            "cannot import design module no_such_module: ModuleNotFoundError: No module named",
        ),
        ("json", "design module json must declare one singletable.model Table, not 0 (none); name one:"),
        ("look_design:nope", "design module look_design has no Table named nope"),
        ("missing/file.py", "cannot import design module missing/file.py: ImportError: no such file"),
    ],
)
def test_a_design_that_cannot_load_is_a_usage_error(tmp_path, design, message):
    path = tmp_path / "app.db"
    connect(shop, str(path)).close()
    result = run("scan", str(path), "--design", design)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(f"Error: {message}")


def test_a_design_by_file_path_and_table_variable(tmp_path, monkeypatch):
    path = tmp_path / "app.db"
    monkeypatch.setenv("LOOK_TABLE", "ByPath")
    db = connect(shop, str(path))
    db.create_table()
    db.put(User(user_id="cy", name="Cy"))
    db.close()
    design_file = os.path.join(os.path.dirname(__file__), "look_design.py")
    for design in (design_file, "look_design:shop"):
        text = ok("scan", str(path), "--design", design)
        assert header(text)[:3] == ["entity", "PK", "SK"] and "User" in text


def test_a_shipped_seed_design_by_module_name(tmp_path):
    from singletable.examples.fus_main.design import Rating, fus

    path = tmp_path / "fus.db"
    db = connect(fus, str(path))
    db.create_table()
    db.put(Rating(user_id="u1", site_id="s1", stars=4))
    db.close()
    found = ok(
        "query", str(path), "--design", "singletable.examples.fus_main.design", "Rating.with_stars", "4"
    )
    assert "Rating" in found and "USER#u1" in found
    assert json.loads(ok("count", str(path), "fus-main")) == 1


def test_an_index_the_design_does_not_declare_is_a_usage_error(tmp_path):
    path = tmp_path / "app.db"
    connect(shop, str(path)).close()
    result = run("scan", str(path), "Whatever", *DESIGN, "--index", "nope")
    assert result.exit_code == 2
    assert (
        result.stderr.splitlines()[-1] == "Error: the design: table has no index 'nope'; it has ['byStars']"
    )
