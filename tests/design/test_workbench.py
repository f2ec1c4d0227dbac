"""``synth --format workbench`` and ``import-workbench``: a design as a NoSQL Workbench
data model and back. Every seed and the tracker: export, import, export gives the same model, and the
generated module imports and creates its table on the engine; a model written by hand the Workbench way
(display-name aliases, constants, numbers) imports too; a model that cannot be read says where."""

from __future__ import annotations

import importlib.util
import json
import warnings
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from design_support import DESIGNS, SEEDS, TRACKER, table_of

from serving import run_cli
from singletable._cli import main
from singletable.design import (
    DesignExportError,
    WorkbenchError,
    WorkbenchWarning,
    export_design,
    import_workbench,
    workbench_model,
)
from singletable.engine import Engine
from singletable.model import connect

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def _export(design: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        return json.loads(export_design(design, "workbench", include_local_indexes=False, now=NOW))


@pytest.fixture(scope="module")
def models():
    return {name: _export(design) for name, design in DESIGNS.items()}


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_model_has_workbench_s_shape(models):
    model = models["wavyblog"]
    assert model["ModelName"] == "WavyBlog"
    assert model["ModelMetadata"] == {
        "Author": "singletable",
        "DateCreated": "Jan 15, 2026, 12:00 PM",
        "DateLastModified": "Jan 15, 2026, 12:00 PM",
        "Description": model["ModelMetadata"]["Description"],
        "AWSService": "Amazon DynamoDB",
        "Version": "3.0",
    }
    assert model["ModelMetadata"]["Description"].startswith("Seed design 003, WavyBlog: users, posts")
    (table,) = model["DataModel"]
    assert table["KeyAttributes"] == {
        "PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
        "SortKey": {"AttributeName": "SK", "AttributeType": "S"},
    }
    assert table["BillingMode"] == "PAY_PER_REQUEST" and "ProvisionedCapacitySettings" not in table
    assert [f["FacetName"] for f in table["TableFacets"]] == ["USER", "POST", "CATEGORY"]
    post = table["TableFacets"][1]
    assert post["KeyAttributeAlias"] == {
        "PartitionKeyAlias": "POST#{Slug}",
        "SortKeyAlias": "METADATA#{Slug}",
    }
    assert post["NonKeyAttributes"][:6] == ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "EntityType", "PostID"]
    assert [i["IndexName"] for i in table["GlobalSecondaryIndexes"]] == ["GSI1", "GSI2", "GSI3"]
    assert table["GlobalSecondaryIndexes"][2]["KeyAttributes"] == {
        "PartitionKey": {"AttributeName": "EntityType", "AttributeType": "S"},
        "SortKey": {"AttributeName": "PK", "AttributeType": "S"},
    }


@pytest.mark.parametrize("name", list(SEEDS))
def test_every_seed_facet_has_sample_rows_of_its_own_type(models, name):
    (table,) = models[name]["DataModel"]
    type_attribute = table_of(name).type_attribute
    for facet in table["TableFacets"]:
        assert facet["TableData"], facet["FacetName"]
        assert len(facet["TableData"]) <= 20
        assert {row[type_attribute]["S"] for row in facet["TableData"]} == {facet["FacetName"]}
    declared = {a["AttributeName"] for a in table["NonKeyAttributes"]}
    assert all(set(f["NonKeyAttributes"]) <= declared for f in table["TableFacets"])


def test_projections_and_number_keys_are_kept(models):
    (hub,) = models["hustlehub"]["DataModel"]
    projections = {i["IndexName"]: i["Projection"] for i in hub["GlobalSecondaryIndexes"]}
    assert projections["GSI1-UserEmailIndex"] == {"ProjectionType": "KEYS_ONLY"}
    assert projections["GSI3-AdminManagementIndex"]["ProjectionType"] == "INCLUDE"
    (fus,) = models["fus_main"]["DataModel"]
    assert {"AttributeName": "starRating", "AttributeType": "N"} in fus["NonKeyAttributes"]
    rating = next(f for f in fus["TableFacets"] if f["FacetName"] == "RATING")
    assert rating["KeyAttributeAlias"] == {
        "PartitionKeyAlias": "USER#{userId}",
        "SortKeyAlias": "SITE#{siteId}",
    }


def test_only_places_warns_of_an_attribute_with_two_types():
    for name, design in SEEDS.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WorkbenchWarning)
            export_design(design, "workbench", now=NOW)
        shown = [str(w.message) for w in caught if w.category is WorkbenchWarning]
        expected = (
            [
                "attribute value is S in Setting and N in Sequence; a NoSQL Workbench model gives each "
                "attribute one type, and this one says S"
            ]
            if name == "places"
            else []
        )
        assert shown == expected, name


def test_a_design_with_an_lsi_is_refused_unless_told_to_leave_it_out(models):
    with pytest.raises(DesignExportError) as error:
        workbench_model(table_of("tracker"))
    assert str(error.value) == (
        "NoSQL Workbench models have no local secondary indexes, and the design declares byPriority: export "
        "without them (--without-lsi) or to another format"
    )
    (tracker,) = models["tracker"]["DataModel"]
    assert tracker["BillingMode"] == "PROVISIONED"
    assert tracker["ProvisionedCapacitySettings"] == {
        "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}
    }
    assert [i["IndexName"] for i in tracker["GlobalSecondaryIndexes"]] == ["myOpenIssues"]
    assert all(f["TableData"] == [] for f in tracker["TableFacets"])  # the tracker has no sample data


@pytest.mark.parametrize("name", list(DESIGNS))
def test_export_import_export_gives_the_same_model_and_a_module_that_creates_its_table(
    models, name, tmp_path
):
    source = import_workbench(models[name])
    path = tmp_path / f"imported_{name}.py"
    path.write_text(source)
    assert _export(str(path)) == models[name]
    module = _load(path)
    engine = Engine(str(tmp_path / "imported.db"))
    try:
        assert connect(module.table, engine).ensure_table() is True
        described = engine.execute("DescribeTable", {"TableName": module.table.resolved_name()})["Table"]
    finally:
        engine.close()
    expected = [i["IndexName"] for i in models[name]["DataModel"][0]["GlobalSecondaryIndexes"]]
    assert [i["IndexName"] for i in described.get("GlobalSecondaryIndexes", [])] == expected


def test_the_imported_module_writes_and_reads_the_sample_rows_as_entities(models, tmp_path):
    path = tmp_path / "imported_blog.py"
    path.write_text(import_workbench(models["wavyblog"]))
    module = _load(path)
    assert [cls.__name__ for cls in (module.User, module.Post, module.Category)] == [
        "User",
        "Post",
        "Category",
    ]
    with connect(module.table, str(tmp_path / "blog.db")) as db:
        db.ensure_table()
        post_row = next(r for r in module.SAMPLE_ITEMS if r["EntityType"]["S"] == "POST")
        fields = module.Post.model_entity().fields
        post = module.Post(
            **{
                f.attribute: post_row[f.attribute]["S"]
                for f in fields.values()
                if "S" in post_row.get(f.attribute, {})
            }
        )
        db.put(post)
        again = db.get(module.Post.key(slug=post.slug))
    assert again.title == post_row["Title"]["S"]
    keys = {a: k.template.text for a, k in module.Post.model_entity().keys.items()}
    assert keys == {
        "PK": "POST#{slug}",
        "SK": "METADATA#{slug}",
        "GSI1PK": "POSTS_BY_USER#{author_id}",  # inferred from the rows
        "GSI1SK": "POST#{created_at}",
        "GSI2PK": "POSTS_BY_CAT#{category}",
        "GSI2SK": "POST#{created_at}",
    }
    with connect(module.table, str(tmp_path / "blog.db")) as db:
        stored = db.call(
            "GetItem", {"TableName": "WavyBlog", "Key": {"PK": post_row["PK"], "SK": post_row["SK"]}}
        )
    assert {a: stored["Item"][a] for a in ("GSI1PK", "GSI1SK", "GSI2PK")} == {
        a: post_row[a] for a in ("GSI1PK", "GSI1SK", "GSI2PK")
    }


def test_a_sparse_index_key_stays_a_field(models, tmp_path):
    path = tmp_path / "imported_hub.py"
    path.write_text(import_workbench(models["hustlehub"]))
    module = _load(path)
    user = module.User.model_entity()
    assert sorted(user.keys) == ["GSI1PK", "GSI1SK", "PK", "SK"]
    assert user.fields["gsi3_pk"].attribute == "GSI3PK"  # only admins carry it (Key(..., when=is_admin))


HAND_WRITTEN = {
    "ModelName": "Shop",
    "ModelMetadata": {"Author": "someone", "Description": "A shop, modelled in Workbench.", "Version": "3.0"},
    "DataModel": [
        {
            "TableName": "Shop",
            "KeyAttributes": {
                "PartitionKey": {"AttributeName": "pk", "AttributeType": "S"},
                "SortKey": {"AttributeName": "sk", "AttributeType": "S"},
            },
            "NonKeyAttributes": [
                {"AttributeName": "type", "AttributeType": "S"},
                {"AttributeName": "price", "AttributeType": "N"},
                {"AttributeName": "stock", "AttributeType": "N"},
                {"AttributeName": "tags", "AttributeType": "SS"},
                {"AttributeName": "gsi1pk", "AttributeType": "S"},
            ],
            "TableFacets": [
                {
                    "FacetName": "Product",
                    "KeyAttributeAlias": {"PartitionKeyAlias": "ProductId", "SortKeyAlias": "Details"},
                    "TableData": [
                        {
                            "pk": {"S": "P#1"},
                            "sk": {"S": "Details"},
                            "type": {"S": "Product"},
                            "price": {"N": "9.5"},
                            "stock": {"N": "3"},
                            "tags": {"SS": ["a"]},
                            "gsi1pk": {"S": "CAT#x"},
                        }
                    ],
                    "NonKeyAttributes": ["type", "price", "stock", "tags", "gsi1pk"],
                }
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "byCategory",
                    "KeyAttributes": {"PartitionKey": {"AttributeName": "gsi1pk", "AttributeType": "S"}},
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["price"]},
                }
            ],
            "BillingMode": "PROVISIONED",
            "ProvisionedCapacitySettings": {
                "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 2}
            },
        }
    ],
}


def test_a_model_written_the_workbench_way_imports(tmp_path):
    path = tmp_path / "shop.py"
    path.write_text(import_workbench(HAND_WRITTEN))
    module = _load(path)
    assert module.__doc__ == "A shop, modelled in Workbench."
    table = module.table
    assert (table.type_attribute, table.billing, table.read_capacity, table.write_capacity) == (
        "type",
        "PROVISIONED",
        3,
        2,
    )
    (index,) = table.indexes
    assert (index.name, index.pk, index.sk, index.projection) == ("byCategory", "gsi1pk", None, ("price",))
    meta = module.Product.model_entity()
    # A display-name alias is the item's own key value; an alias every row holds is a constant.
    assert {a: k.template.text for a, k in meta.keys.items()} == {"pk": "{product_id}", "sk": "Details"}
    fields = module.Product.model_fields
    assert [str(fields[n].annotation) for n in ("price", "stock", "tags")] == [
        "float | None",
        "int | None",
        "set[str] | None",
    ]
    with connect(table, str(tmp_path / "shop.db")) as db:
        db.ensure_table()
        db.put(module.Product(product_id="P-2", price=1.25, tags={"b"}))
        assert db.get(module.Product.key(product_id="P-2")).price == 1.25


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "line 1: not JSON (Expecting property name enclosed in double quotes)"),
        ('{"DataModel": {}}', "not a NoSQL Workbench model: DataModel must be a list of tables"),
        (
            '{"DataModel": [{"TableName": "A", "KeyAttributes": {"PartitionKey": {"AttributeName": "pk", '
            '"AttributeType": "S"}}}, {"TableName": "B", "KeyAttributes": {}}]}',
            "the model holds 2 tables (A, B): pick one with --table",
        ),
        ('{"DataModel": [{"TableName": "A"}]}', "DataModel table A: KeyAttributes is missing"),
    ],
)
def test_a_model_that_cannot_be_read_says_where(tmp_path, content, message):
    path = tmp_path / "model.json"
    path.write_text(content)
    with pytest.raises(WorkbenchError) as error:
        import_workbench(path)
    expected = f"{path}, {message}" if message.startswith("line") else f"{path}: {message}"
    assert str(error.value) == expected
    result = CliRunner().invoke(main, ["import-workbench", str(path)])
    assert result.exit_code == 1 and result.stderr == f"Error: {error.value}\n"


def test_a_missing_file_and_an_unknown_table_are_one_line(tmp_path):
    result = CliRunner().invoke(main, ["import-workbench", str(tmp_path / "absent.json")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'absent.json'}: No such file or directory\n"
    (tmp_path / "m.json").write_text(json.dumps(HAND_WRITTEN))
    result = CliRunner().invoke(main, ["import-workbench", str(tmp_path / "m.json"), "--table", "Nope"])
    assert result.stderr == f"Error: {tmp_path / 'm.json'}: the model has no table 'Nope'; it has Shop\n"


def test_the_command_line_round_trip(tmp_path):
    runner = CliRunner()
    model_file = tmp_path / "blog.json"
    exported = runner.invoke(main, ["synth", SEEDS["blog_api"], str(model_file), "--format", "workbench"])
    assert exported.exit_code == 0, exported.output
    printed = runner.invoke(main, ["import-workbench", str(model_file)])
    assert printed.exit_code == 0 and printed.stdout == import_workbench(model_file)
    written = run_cli("import-workbench", str(model_file), "-o", str(tmp_path / "blog_design.py"))
    assert written.returncode == 0 and written.stdout == ""
    assert written.stderr == f"wrote the design module of {model_file} to {tmp_path / 'blog_design.py'}\n"
    again = runner.invoke(main, ["synth", str(tmp_path / "blog_design.py"), "--format", "workbench"])
    first, second = json.loads(model_file.read_text()), json.loads(again.stdout)
    for model in (first, second):
        del model["ModelMetadata"]["DateCreated"], model["ModelMetadata"]["DateLastModified"]
    assert first == second


def test_the_export_warns_on_stderr_and_leaves_lsis_out_when_asked():
    result = CliRunner().invoke(main, ["synth", SEEDS["places"], "--format", "workbench"])
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: attribute value is S in Setting and N in Sequence")
    refused = CliRunner().invoke(main, ["synth", TRACKER, "--format", "workbench"])
    assert refused.exit_code == 1 and "no local secondary indexes" in refused.stderr
    kept = CliRunner().invoke(main, ["synth", TRACKER, "--format", "workbench", "--without-lsi"])
    assert kept.exit_code == 0 and json.loads(kept.stdout)["ModelName"] == "tracker"


def test_the_old_export_spelling_keeps_without_lsi():
    old = CliRunner().invoke(main, ["export", TRACKER, "--format", "workbench", "--without-lsi"])
    new = CliRunner().invoke(main, ["synth", TRACKER, "--format", "workbench", "--without-lsi"])
    assert old.exit_code == new.exit_code == 0 and json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr.splitlines() == [
        "`singletable export --format workbench` is now `singletable synth MODULE --format workbench`; "
        "the old spelling will be removed",
        *new.stderr.splitlines(),
    ]


def test_export_docs_and_cost_take_the_same_sample_data_from_a_sibling_sample_module(tmp_path, monkeypatch):
    """One place (design/_items.py) finds a design's sample data: a package's ``sample`` module with
    ``open_service(db)`` and ``load(service)`` feeds the Workbench rows and the docs' pictures alike."""
    from singletable.data import load_design
    from singletable.design import design_docs, sample_items

    package = tmp_path / "shelfapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "design.py").write_text(
        "from singletable.model import Entity, Keys, Table\n"
        "shelf = Table(name='shelf')\n"
        "class Tag(Entity, table=shelf, type='TAG', timestamps=False):\n"
        "    name: str\n"
        "    keys = Keys(PK='TAG#{name}', SK='TAG')\n"
    )
    (package / "sample.py").write_text(
        "from shelfapp.design import Tag\n"
        "def open_service(db):\n"
        "    return db\n"
        "def load(db):\n"
        "    db.put(Tag(name='b'))\n"
        "    db.put(Tag(name='a'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import shelfapp.design

    items = sample_items(shelfapp.design, shelfapp.design.shelf)
    assert sorted(item["PK"]["S"] for item in items) == ["TAG#a", "TAG#b"]
    model = json.loads(export_design("shelfapp.design", "workbench", now=NOW))
    (facet,) = model["DataModel"][0]["TableFacets"]
    assert sorted(row["PK"]["S"] for row in facet["TableData"]) == ["TAG#a", "TAG#b"]
    assert "come from the design's sample data" in design_docs(load_design("shelfapp.design")).markdown


def test_exporting_a_design_file_runs_it_once(tmp_path):
    """The export reads the module (docstring, SAMPLE_ITEMS) from the one import that found the table; a
    second import of a ``.py`` path would run the file again and declare a second table."""
    runs = tmp_path / "runs.txt"
    design = tmp_path / "counted_design.py"
    design.write_text(
        '"""Counted."""\n'
        "from pathlib import Path\n"
        "from singletable.model import Entity, Keys, Table\n"
        f"with Path({str(runs)!r}).open('a') as log:\n"
        "    log.write('run\\n')\n"
        "t = Table(name='counted')\n"
        "class Tag(Entity, table=t, type='TAG'):\n"
        "    name: str\n"
        "    keys = Keys(PK='TAG#{name}', SK='TAG')\n"
        "SAMPLE_ITEMS = [{'PK': {'S': 'TAG#a'}, 'SK': {'S': 'TAG'}, 'entityType': {'S': 'TAG'},\n"
        "                 'name': {'S': 'a'}}]\n"
    )
    model = json.loads(export_design(str(design), "workbench", now=NOW))
    assert runs.read_text() == "run\n"
    assert model["ModelMetadata"]["Description"] == "Counted."
    assert [row["name"]["S"] for row in model["DataModel"][0]["TableFacets"][0]["TableData"]] == ["a"]
