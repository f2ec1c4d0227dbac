"""``singletable check``: the three output formats, the exit codes CI relies on, pyproject.toml ignores,
usage errors, and one run as a real subprocess.

The SARIF log is validated against a JSON schema of the SARIF 2.1.0 properties this tool writes and code
scanning reads (written here from the OASIS standard's required members: the full schema is not on PyPI),
and structurally: every result's rule is in ``tool.driver.rules`` at its ``ruleIndex``.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from serving import run_cli
from singletable._cli import main

DESIGNS = Path(__file__).resolve().parent / "check_designs"
FUS = "singletable.examples.fus_main.design"

SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {"$ref": "#/$defs/message"},
                                                "fullDescription": {"$ref": "#/$defs/message"},
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {"level": {"$ref": "#/$defs/level"}},
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message", "ruleId", "level"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": {"$ref": "#/$defs/level"},
                                "message": {"$ref": "#/$defs/message"},
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {
                                                            "uri": {"type": "string", "minLength": 1}
                                                        },
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1}
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
    "$defs": {
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
    },
}


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in an empty directory: no pyproject.toml unless a test writes one."""
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def test_rich_output_for_a_person(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", FUS])
    assert result.exit_code == 0, result.output
    assert "warning ST203 sort-key-prefix-collision" in result.output
    assert (
        "Rating.mine: begins_with(SK, …) on 'USER#{user_id}' with SK prefix 'SITE#' also reads"
        in result.output
    )
    assert "fus_main/design.py:" in result.output and "why: a Query reads every item" in result.output
    assert result.output.rstrip().endswith("0 errors, 4 warnings, 0 notes")


def test_no_findings_says_so(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", str(DESIGNS / "shop.py"), "--strict"])
    assert result.exit_code == 0
    assert result.output.strip() == f"No findings in {DESIGNS / 'shop.py'}."


def test_json_output(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", FUS, "--format", "json"])
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["design"] == FUS and report["counts"] == {"error": 0, "warning": 4, "note": 0}
    first = report["findings"][0]
    assert set(first) == {
        "rule",
        "name",
        "severity",
        "subject",
        "entity",
        "message",
        "why",
        "fix",
        "file",
        "line",
    }
    assert {(f["rule"], f["subject"]) for f in report["findings"]} >= {("ST203", "Rating.mine")}
    assert all(f["file"].endswith("fus_main/design.py") and f["line"] > 0 for f in report["findings"])


def test_sarif_output_is_valid_sarif(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", str(DESIGNS / "mistakes.py"), "--format", "sarif"])
    assert result.exit_code == 0
    log = json.loads(result.output)
    jsonschema.validate(log, SARIF_SUBSET)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules) and rules[0]["id"] == "ST001"
    assert len(run["results"]) == 15
    for entry in run["results"]:
        assert rules[entry["ruleIndex"]]["id"] == entry["ruleId"]
        assert entry["level"] == rules[entry["ruleIndex"]]["defaultConfiguration"]["level"]
        location = entry["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == (DESIGNS / "mistakes.py").as_uri()  # outside the cwd
        assert location["region"]["startLine"] > 0


def test_sarif_paths_are_relative_below_the_working_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DESIGNS.parent)
    result = CliRunner().invoke(main, ["check", "check_designs/mistakes.py", "--format", "sarif"])
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(result.output)["runs"][0]["results"]
    }
    assert uris == {"check_designs/mistakes.py"}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ([FUS], 0),  # findings, but not --strict
        ([FUS, "--strict"], 1),  # warnings reach the default threshold
        ([FUS, "--strict", "--fail-on", "error"], 0),  # no errors
        ([str(DESIGNS / "mistakes.py"), "--strict", "--fail-on", "error"], 1),
        ([str(DESIGNS / "shop.py"), "--strict", "--fail-on", "note"], 0),
    ],
)
def test_strict_exit_codes(runner: CliRunner, args: list[str], code: int) -> None:
    assert runner.invoke(main, ["check", *args]).exit_code == code


def test_pyproject_ignores_and_threshold(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.singletable.check]\n"
        'ignore = ["ST102", "sort-key-prefix-collision"]\n'
        'fail-on = "warning"\n'
        "[tool.singletable.check.per-entity]\n"
        'Site = ["ST101"]\n'
        'Group = ["static-partition-key"]\n'
    )
    result = runner.invoke(main, ["check", FUS, "--strict"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"No findings in {FUS} (4 ignored by {tmp_path / 'pyproject.toml'})."
    (tmp_path / "pyproject.toml").write_text(
        '[tool.singletable.check]\nignore = ["ST102"]\nfail-on = "error"\n'
    )
    assert runner.invoke(main, ["check", FUS, "--strict"]).exit_code == 0  # warnings left, threshold error
    assert runner.invoke(main, ["check", FUS, "--strict", "--fail-on", "warning"]).exit_code == 1


def test_a_config_file_given_explicitly(runner: CliRunner, tmp_path: Path) -> None:
    config = tmp_path / "ci.toml"
    config.write_text('[tool.singletable.check]\nignore = ["ST101", "ST102", "ST203"]\n')
    result = runner.invoke(main, ["check", FUS, "--strict", "--config", str(config), "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.output)["ignored"] == 4


@pytest.mark.parametrize(
    ("args", "pyproject", "message"),
    [
        (["nope.design"], None, "cannot import design module nope.design: ModuleNotFoundError"),
        # The quick start declares its table as a raw CreateTable request, not a model Table.
        (["singletable.examples.quickstart.design"], None, "must declare one singletable.model Table, not 0"),
        ([FUS], '[tool.singletable.check]\nignore = ["ST999"]\n', "unknown rule 'ST999'"),
        ([FUS, "--format", "xml"], None, "'xml' is not one of 'rich', 'json', 'sarif'"),
        ([FUS, "--traffic", "missing.jsonl"], None, "'missing.jsonl' does not exist"),
    ],
)
def test_usage_errors_exit_2(
    runner: CliRunner, tmp_path: Path, args: list[str], pyproject: str | None, message: str
) -> None:
    if pyproject:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    result = runner.invoke(main, ["check", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_a_bad_traffic_line_is_a_usage_error_naming_file_and_line(runner: CliRunner, tmp_path: Path) -> None:
    traffic = tmp_path / "traffic.jsonl"
    traffic.write_text('{"operation": "Scan", "params": {}}\n{not json\n')
    result = runner.invoke(main, ["check", FUS, "--traffic", str(traffic)])
    assert result.exit_code == 2
    assert f"{traffic}:2: not JSON" in result.output


def test_as_a_real_subprocess(tmp_path: Path) -> None:
    done = run_cli("check", "singletable.examples.blog_api.design", "--strict", "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert {(f["rule"], f["subject"]) for f in report["findings"]} == {
        ("ST101", "Category.GSI1PK"),
        ("ST102", "User.GSI2PK"),
        ("ST203", "Comment.of_post"),
    }  # a module that cannot be imported exits 2: test_usage_errors_exit_2, in-process
