"""Every design tool on small random designs: output, or one clear error line, never a traceback.

Hypothesis writes design modules as a person might -- entities with random key templates (fixed, one field,
several, numbers padded or not), a ``version=`` field, unique fields with good and broken guard templates
(scoped to another field, naming a field the entity lacks, fixed, empty), sparse GSI keys, counters,
patterns on the table and on indexes, sometimes no entity at all or a table name DynamoDB refuses -- and runs
``check``, ``docs``, ``cost``, ``diff`` and ``export`` on each through the command line.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable._cli import main

_names = itertools.count()

FIELDS = {  # name -> declaration
    "a": "a: str",
    "b": "b: str",
    "n": "n: int = Field(default=1, ge=0)",
    "status": 'status: str = "open"',
    "note": "note: str | None = None",
    "email": "email: str",
    "view_count": "view_count: int = 0",
    "at": "at: datetime",
    "kind": 'kind: Literal["a", "b"] = "a"',
    "tags": "tags: set[str] = set()",
    "day": "day: date | None = None",
}
LITERALS = st.sampled_from(["", "X#", "ITEM#", "A#", "STORE#"])
GUARDS = st.sampled_from(
    [None, "default", "EMAIL#{email}", "S#{a}#EMAIL#{email}", "EMAIL#{nosuch}", "EMAIL", "", "X#{a}"]
)


@st.composite
def templates(draw: st.DrawFn, fields: list[str]) -> str:
    chosen = draw(st.lists(st.sampled_from(fields), max_size=2, unique=True))
    text = draw(LITERALS)
    for name in chosen:
        spec = draw(st.sampled_from(["", ":04d"])) if name in ("n", "view_count") else ""
        text += "{" + name + spec + "}" + draw(st.sampled_from(["", "#"]))
    return text or "FIXED"


@st.composite
def entities(draw: st.DrawFn, index: int, indexes: int) -> str:
    fields = ["a", *draw(st.lists(st.sampled_from(sorted(set(FIELDS) - {"a"})), max_size=4, unique=True))]
    versioned = draw(st.booleans())
    guard = draw(GUARDS) if "email" in fields else None
    keywords = [f'type="E{index}"']
    if versioned:
        keywords.append('version="version"')
    if guard == "default":
        keywords.append('unique=["email"]')
    elif guard is not None:
        keywords.append(f'unique={{"email": "{guard}"}}')
    lines = [f"class E{index}(Entity, table=t, {', '.join(keywords)}):"]
    lines += [f"    {FIELDS[name]}" for name in fields]
    if versioned:
        lines.append("    version: int = 0")
    keys = [f'PK="{draw(templates(fields))}"', f'SK="{draw(templates(fields))}"']
    patterns = ["    on_table = Pattern()"] if draw(st.booleans()) else []
    for i in range(1, indexes + 1):
        if not draw(st.booleans()):
            continue
        pk, sk = draw(templates(fields)), draw(templates(fields))
        if draw(st.booleans()):  # sparse: only open items are in the index
            keys += [
                f'GSI{i}PK=Key("{pk}", when=lambda status: status == "open")',
                f'GSI{i}SK=Key("{sk}", when=lambda status: status == "open")',
            ]
            if "status" not in fields:
                lines.append(f"    {FIELDS['status']}")
                fields.append("status")
        else:
            keys += [f'GSI{i}PK="{pk}"', f'GSI{i}SK="{sk}"']
        patterns.append(f'    on_gsi{i} = Pattern(index="GSI{i}")')
    lines.append(f"    keys = Keys({', '.join(keys)})")
    return "\n".join(lines + patterns)


@st.composite
def designs(draw: st.DrawFn) -> str:
    indexes = draw(st.integers(0, 2))
    name = draw(st.sampled_from(["shop", "t", "my-table"]))
    gsis = ", ".join(f'GSI("GSI{i}", pk="GSI{i}PK", sk="GSI{i}SK")' for i in range(1, indexes + 1))
    head = [
        "from datetime import date, datetime",
        "from typing import Literal",
        "from pydantic import Field",
        "from singletable.model import GSI, Entity, Key, Keys, Pattern, Table",
        f't = Table(name="{name}", indexes=[{gsis}])',
    ]
    count = draw(st.integers(0, 3))
    return "\n\n".join(["\n".join(head), *(draw(entities(i, indexes)) for i in range(count))]) + "\n"


def _runs_cleanly(result, what: str) -> None:  # type: ignore[no-untyped-def]
    """Exit 0, 1 or 2 with output, never an exception escaping the command."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        what,
        result.output,
        result.exception,
    )
    assert "Traceback" not in result.output, (what, result.output)
    assert result.exit_code in (0, 1, 2), (what, result.exit_code, result.output)
    if result.exit_code and not (what.startswith("diff") and result.exit_code == 1):  # 1: it differs
        errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert errors, (what, result.output)


@settings(
    max_examples=examples(20),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=designs())
def test_every_tool_answers_on_any_small_design(tmp_path: Path, source: str) -> None:
    n = next(_names)
    module = tmp_path / f"random_design_{n}.py"
    module.write_text(source)
    profile = tmp_path / "traffic.toml"
    profile.write_text("")
    runner = CliRunner()
    for arguments in (
        ["check", str(module)],
        ["docs", str(module), "-o", str(tmp_path / f"docs{n}")],
        ["cost", str(module), "--traffic", str(profile)],
        ["diff", str(module), str(tmp_path / f"live{n}.db")],
        ["synth", str(module), "--format", "cloudformation"],
        ["synth", str(module), "--format", "workbench"],
    ):
        _runs_cleanly(runner.invoke(main, arguments), f"{arguments[0]} on\n{source}")
