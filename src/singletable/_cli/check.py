"""``singletable check MODULE``: lint a design (and recorded traffic), over ``singletable.design.check``.

Output is rich text for a person, ``--format json`` for a script or ``--format sarif`` for code scanning.
Exit codes, for CI: 0 when nothing at or above the threshold was found, or without ``--strict``; 1 with
``--strict`` when a finding reaches the threshold (``--fail-on``, else ``fail-on`` in pyproject.toml, else
``warning``); 2 for a usage error (a design that cannot be found, a bad traffic file, a bad setting).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.text import Text

from singletable._extras import require

if TYPE_CHECKING:
    from singletable.design import CheckReport

SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "note": "cyan"}


@click.command()
@click.argument("module")
@click.option(
    "--format",
    "output",
    type=click.Choice(["rich", "json", "sarif"]),
    default="rich",
    show_default=True,
    help="rich text for a person, JSON for a script, SARIF 2.1.0 for code scanning.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when a finding reaches the --fail-on severity.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "note"]),
    default=None,
    help="The least severity --strict fails on (default: pyproject.toml's fail-on, else warning).",
)
@click.option(
    "--traffic",
    type=click.Path(exists=True, dir_okay=False),
    help="Also check requests recorded by Trace.save or singletable serve --record (JSON Lines).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False),
    help="Read [tool.singletable.check] from this file instead of ./pyproject.toml.",
)
def check(
    module: str,
    output: str,
    strict: bool,
    fail_on: str | None,
    traffic: str | None,
    config_path: str | None,
) -> None:
    """Check the design MODULE (myapp.design, myapp.design:TABLE or a .py path) for hot partitions, sort
    keys that do not sort, prefixes another type shares, scans, projections, sizes and TTL; see
    docs/design-tools.md for every rule."""
    require("model", ("pydantic",), "singletable check")
    from singletable._designs import DesignError
    from singletable.design import check as check_design
    from singletable.design import load_config

    try:
        config = load_config(config_path)
        report = check_design(module, traffic=traffic, config=config)
    except (DesignError, ValueError, OSError) as error:
        raise click.UsageError(str(error)) from None
    if output == "json":
        click.echo(report.to_json())
    elif output == "sarif":
        click.echo(json.dumps(report.to_sarif(_version()), indent=2))
    else:
        _show(report, config.source)
    threshold = fail_on or config.fail_on
    if strict and report.at_least(threshold):
        raise click.exceptions.Exit(1)


def _show(report: CheckReport, config_source: str | None) -> None:
    # soft_wrap: lines are not cut to the console's width (a terminal wraps them; a pipe keeps them whole)
    console = Console(highlight=False, soft_wrap=True)
    findings = report.findings
    for finding in findings:
        head = Text()
        if finding.location():
            head.append(f"{finding.location()}  ", style="bold")
        head.append(finding.severity, style=SEVERITY_STYLES[finding.severity])
        head.append(f" {finding.rule} {finding.name}", style="bold")
        console.print(head)
        for text, style in (
            (f"{finding.subject}: {finding.message}", ""),
            (f"why: {finding.why}", "dim"),
            (f"fix: {finding.remedy}", "green"),
        ):
            console.print(Text("  " + text, style=style))
    counts = report.counts()
    ignored = report.ignored
    dropped = f" ({ignored} ignored by {config_source})" if ignored else ""
    if not findings:
        console.print(Text(f"No findings in {report.design}{dropped}.", style="green"))
        return
    summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    console.print(Text(f"{len(findings)} finding(s) in {report.design}: {summary}{dropped}"))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # only for SARIF: keeps CLI start-up light

    try:
        return version("singletable")
    except PackageNotFoundError:
        return ""
