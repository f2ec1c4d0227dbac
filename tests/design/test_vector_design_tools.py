"""The design tools on vector indexes: ``check``'s vector rules (ST405-ST407, and ST001 for what DynamoDB
refuses outright), ``synth`` to CloudFormation and the CDK (documented ``VectorIndexes``) and its refusal for
Terraform (no documented spelling), ``diff`` of vector indexes against live tables, and ``docs``.

The live tables of ``diff`` and ``docs`` are the embedded engine's (a database file) and a real ``singletable
serve``; DynamoDB Local has no vector indexes, so it is not a target here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from cfnlint.api import lint_file
from click.testing import CliRunner

from pk_sk_table import pk_sk_table
from singletable._cli import main
from singletable.data import open_target
from singletable.design import (
    check,
    cloudformation_template,
    diff_table,
    to_cdk,
    to_cloudformation,
    to_terraform,
)
from singletable.design._infra import DesignExportError
from singletable.examples.docsearch.design import help_centre
from singletable.model import Table, VectorIndex, connect

DESIGNS = Path(__file__).resolve().parent / "check_designs"
MISTAKES = DESIGNS / "vector_mistakes.py"


def line_of(path: Path, text: str) -> int:
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


# -- check ---------------------------------------------------------------------------------------------------


def test_each_vector_mistake_is_found_once_at_its_line() -> None:
    report = check(str(MISTAKES))
    found = {(f.rule, f.subject): f for f in report.findings}
    assert set(found) == {
        ("ST405", "NotesByMeaning/Note"),
        ("ST406", "Unused"),
        ("ST406", "NotesByTopic/Note"),
        ("ST407", "NotesByScore"),
    }
    spans = found[("ST405", "NotesByMeaning/Note")]
    assert spans.severity == "warning" and spans.line == line_of(MISTAKES, 'VectorIndex("NotesByMeaning"')
    assert "declare partition='workspaceId'" in spans.message
    assert found[("ST406", "Unused")].message == "no entity stores a vector in other, so Unused stays empty"
    topic = found[("ST406", "NotesByTopic/Note")]
    assert topic.message.startswith("Note.topic (stored as topic) may be absent: NotesByTopic is partitioned")
    assert topic.line == line_of(MISTAKES, "class Note(Entity")
    assert found[("ST407", "NotesByScore")].severity == "note"


def test_the_docsearch_example_is_clean() -> None:
    assert check("singletable.examples.docsearch.design").findings == []


def test_what_dynamodb_refuses_is_st001_at_the_line_that_declares_it(tmp_path: Path) -> None:
    design = tmp_path / "too_wide.py"
    design.write_text(
        "from singletable.model import Table, VectorIndex\n"
        "\n"
        "t = Table(name='wide', vector_indexes=[\n"
        "    VectorIndex('Wide', vector='v', dimensions=5000),\n"
        "])\n"
    )
    (finding,) = check(str(design)).findings
    assert finding.rule == "ST001" and finding.line == 4
    assert finding.message == (
        "DeclarationError: VectorIndex 'Wide': dimensions is 5000; DynamoDB's vector indexes have 1 to 4096 "
        "dimensions"
    )


# -- synth ---------------------------------------------------------------------------------------------------


def test_cloudformation_declares_the_vector_index_as_aws_documents_it() -> None:
    template = yaml.safe_load(to_cloudformation(help_centre))
    assert template == cloudformation_template(help_centre)
    (resource,) = template["Resources"].values()
    properties = resource["Properties"]
    assert properties["VectorIndexes"] == help_centre.create_table_params()["VectorIndexes"]
    (index,) = properties["VectorIndexes"]
    assert set(index) == {
        "IndexName",
        "VectorAttribute",
        "Dimensions",
        "DistanceFunction",
        "Projection",
        "SearchSchema",
    }
    defined = {d["AttributeName"] for d in properties["AttributeDefinitions"]}
    assert {"tenantId", "lang", "entityType"} <= defined


def test_cfn_lint_finds_nothing_but_the_property_its_schema_predates(tmp_path: Path) -> None:
    """The installed cfn-lint's resource schema predates vector indexes: it reports VectorIndexes as unknown
    and, not knowing them, the search-schema attributes as undefined keys -- and nothing else."""
    path = tmp_path / "docsearch.yaml"
    path.write_text(to_cloudformation(help_centre))
    rules = {(m.rule.id, "VectorIndexes" in m.message or "tenantId" in m.message) for m in lint_file(path)}
    assert rules <= {("E3002", True), ("E3039", True)}


def test_the_cdk_app_declares_the_vector_index_with_cfn_table_property_classes() -> None:
    source = to_cdk(help_centre)
    compile(source, "app.py", "exec")
    assert "vector_indexes=[" in source
    assert "dynamodb.CfnTable.VectorIndexProperty(index_name='DocsByMeaning'" in source
    assert "vector_attribute=dynamodb.CfnTable.VectorAttributeProperty(attribute_name='embedding')" in source
    assert (
        "dynamodb.CfnTable.SearchSchemaElementProperty(attribute_name='tenantId', "
        "search_schema_element_type='HASH')"
    ) in source


def test_terraform_refuses_naming_what_it_lacks() -> None:
    with pytest.raises(DesignExportError) as caught:
        to_terraform(help_centre)
    assert str(caught.value).startswith(
        "Terraform cannot express this design: the aws_dynamodb_table resource documents no vector index "
        "block, and the design declares vector index(es) DocsByMeaning"
    )
    result = CliRunner().invoke(
        main, ["synth", "singletable.examples.docsearch.design", "--format", "terraform"]
    )
    assert result.exit_code != 0 and result.output.startswith("Error: Terraform cannot express this design")
    assert "Traceback" not in result.output


def test_a_workbench_model_refuses_naming_what_it_lacks() -> None:
    result = CliRunner().invoke(
        main, ["synth", "singletable.examples.docsearch.design", "--format", "workbench"]
    )
    assert result.exit_code != 0
    assert result.output == (
        "Error: NoSQL Workbench models have no vector indexes, and the design declares DocsByMeaning: export "
        "CloudFormation or the CDK, which document VectorIndexes\n"
    )


# -- diff and docs: need a target with vector indexes --------------------------------------------------------

TARGETS = ["file", "serve"]


@pytest.fixture(params=TARGETS)
def target(request, tmp_path):
    if request.param == "file":
        return str(tmp_path / "live.db")
    return request.getfixturevalue("http_server").endpoint


def _name() -> str:
    return f"vecdiff-{os.getpid()}-{id(object())}"


def test_a_table_the_design_created_has_no_vector_differences(target) -> None:
    name = _name()
    with connect(help_centre, target, name=name) as db:
        db.create_table()
    assert diff_table(help_centre, target, name) == []


def test_every_vector_index_drift_is_found_with_its_fix(target) -> None:
    name = _name()
    other = Table(
        name="other",
        vector_indexes=[
            VectorIndex("DocsByMeaning", vector="embedding", dimensions=32, partition="tenantId"),
            VectorIndex("Extra", vector="summary", dimensions=8),
        ],
    )
    with connect(other, target, name=name) as db:
        db.create_table()
    found = {d.kind: d for d in diff_table(help_centre, target, name)}
    assert set(found) >= {"vector-index", "vector-index-extra"}
    changed = found["vector-index"]
    assert changed.design == (
        "VECTOR embedding (64 dimensions, COSINE), search schema tenantId HASH, lang INLINE_FILTER, "
        "entityType INLINE_FILTER, projection ALL"
    )
    assert (
        changed.table
        == "VECTOR embedding (32 dimensions, COSINE), search schema tenantId HASH, projection ALL"
    )
    assert "never changes in place" in changed.fix
    extra = found["vector-index-extra"]
    assert extra.subject == "Extra" and "VectorIndexUpdates Delete" in extra.fix

    plain = _name()
    with open_target(target) as live:
        live.call("CreateTable", **pk_sk_table(plain))
    missing = {d.kind: d for d in diff_table(help_centre, target, plain)}["vector-index-missing"]
    assert missing.subject == "DocsByMeaning" and missing.table == "none"
    assert missing.fix.startswith("UpdateTable VectorIndexUpdates Create")


def test_docs_show_the_vector_index_and_the_search(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["docs", "singletable.examples.docsearch.design", "--output", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    text = "\n".join(p.read_text() for p in tmp_path.glob("*.md"))
    assert "### Vector indexes" in text
    assert (
        "| `DocsByMeaning` | `embedding` | 64 | COSINE | `tenantId (S)` | `lang (S), entityType (S)` | ALL |"
        in text
    )
    assert "| `embedding` | `embedding` | Vector(64) | yes |" in text
    assert "Searched by similarity through `DocsByMeaning` (`by_meaning`, on `embedding`)." in text
