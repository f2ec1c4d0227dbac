"""Every ``# type: ignore`` in ``src`` says why: mypy verifies the types, and an ignore is a place it does
not, so a reader must see the reason beside it -- after the ignore on its line (``# type: ignore[x]  # why``),
or in a comment on the line just above (the statement's own comment, or its block's opening line)."""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"
IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?")


def reason_above(lines: list[str], number: int) -> str:
    """The line above the run of ignores that ``number`` ends (one comment may explain a group of ignores
    on consecutive lines, never one ignore the next)."""
    i = number - 1
    while i >= 0 and (not lines[i].strip() or IGNORE.search(lines[i])):
        i -= 1
    return lines[i] if i >= 0 else ""


def unexplained(text: str, where: str) -> list[str]:
    """The ignores in ``text`` with no reason beside them, as ``where:line``."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines):
        match = IGNORE.search(line)
        if match is None:
            continue
        after = line[match.end() :]
        before = line[: match.start()]
        if re.match(r"\s*#\s*\S", after) or "#" in before or "#" in reason_above(lines, number):
            continue
        found.append(f"{where}:{number + 1}: {line.strip()}")
    return found


def test_every_type_ignore_says_why() -> None:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        found += unexplained(path.read_text(), str(path.relative_to(SOURCE.parent)))
    assert found == [], "\n".join(found)


def test_the_check_tells_an_ignore_with_a_reason_from_one_without() -> None:
    text = (
        "a = f()  # type: ignore[arg-type]\n"
        "b = f()  # type: ignore[arg-type]  # f is typed too narrowly upstream\n"
        "# g returns Any at runtime\n"
        "c = g()  # type: ignore\n"
        "d = g()  # type: ignore\n"
        "\n"
        "e = g()  # type: ignore\n"
    )
    assert unexplained(text, "x.py") == ["x.py:1: a = f()  # type: ignore[arg-type]"]
    unexplained_after = "a = 1\nb = f()  # type: ignore[arg-type]  # why\nc = f()  # type: ignore[arg-type]\n"
    assert unexplained(unexplained_after, "y.py") == ["y.py:3: c = f()  # type: ignore[arg-type]"]
