"""``singletable cost MODULE --traffic PROFILE.toml``: a design's monthly bill, measured on the embedded
engine (``singletable.design.design_cost``), as rich tables for a person or JSON for a script."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text  # names from the design are shown as they are, never read as rich markup

from singletable._extras import require

if TYPE_CHECKING:
    from singletable.design import CostReport


@click.command()
@click.argument("module")
@click.option(
    "--traffic",
    "traffic_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="TOML profile: calls per month per pattern, items written and stored per entity.",
)
@click.option(
    "--prices",
    "prices_file",
    default=None,
    type=click.Path(dir_okay=False),
    help="TOML file of prices to use instead of the packaged US East (N. Virginia) ones.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Tables for a person, or the whole report as JSON.",
)
def cost(module: str, traffic_file: str, prices_file: str | None, output: str) -> None:
    """Price the design in MODULE for a month of the traffic in PROFILE: every named pattern and each entity's
    create, update and delete replayed on the embedded engine, their ConsumedCapacity (table and each index)
    priced on-demand and provisioned, with storage, GSI write amplification and the top cost drivers."""
    require("model", ("pydantic",), "singletable cost")
    from singletable.data import DesignError, load_design
    from singletable.design import CostError, SampleError, design_cost, load_prices, load_traffic

    try:
        design = load_design(module, option="")
        report = design_cost(design, load_traffic(traffic_file, design), load_prices(prices_file))
    except (DesignError, CostError, SampleError) as error:
        raise click.ClickException(str(error)) from None
    if output == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    show_report(report, Console(width=120))


def show_report(report: CostReport, console: Console) -> None:
    """The report as a person reads it: totals, top drivers, lines, provisioned pools, amplification."""

    def money(value: float) -> str:
        return f"{value:,.2f}" if value >= 0.01 or value == 0 else f"{value:.4f}"

    items = "the design's sample data" if report.origin == "sample" else "items generated from field types"
    console.print(
        Text(f"{report.table}: one month, {report.prices.region} prices in {report.prices.currency}")
    )
    console.print(Text(f"measured on the embedded engine with {items}"))
    totals = _table("Monthly cost", ["", "reads", "writes", "storage", "total"])
    od = (report.reads, report.writes, report.storage, report.on_demand_total)
    _row(totals, "on-demand", *(money(v) for v in od))
    utilization = f"provisioned ({report.target_utilization:.0%} target utilization)"
    capacity = money(report.provisioned_capacity)
    _row(
        totals,
        utilization,
        "",
        capacity + " (capacity)",
        money(report.storage),
        money(report.provisioned_total),
    )
    console.print(totals)
    drivers = _table("Top cost drivers (on-demand)", ["what", "on", "per month", "what would cut it"])
    for line in report.drivers:
        what = f"{line.source} {'storage' if line.kind == 'storage' else line.kind + 's'}"
        _row(drivers, what, line.target, money(line.on_demand), line.fix)
    console.print(drivers)
    lines = _table("Lines", ["kind", "what", "on", "units or bytes / month", "on-demand"])
    for line in report.lines:
        _row(lines, line.kind, line.source, line.target, f"{line.units:,.0f}", money(line.on_demand))
    console.print(lines)
    pools = _table("Provisioned capacity", ["pool", "RCU", "WCU", "per month"])
    for pool in report.pools:
        _row(pools, pool.name, str(pool.rcu), str(pool.wcu), money(pool.cost))
    console.print(pools)
    amplification = _table(
        "GSI write amplification (write units of one write)", ["entity", "write", "units", "x"]
    )
    for entity, writes in report.amplification.items():
        for kind, units in writes.items():
            shares = ", ".join(f"{t} {u:g}" for t, u in units.items() if t != "factor")
            _row(amplification, entity, kind, shares, f"{units['factor']:g}")
    console.print(amplification)
    for what, why in report.unmeasured.items():
        console.print(Text(f"not measured: {what}: {why}"))


def _table(title: str, columns: list[str]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(Text(column), overflow="fold")
    return table


def _row(table: Table, *cells: str) -> None:
    """A row of plain text: a name from the design (``[x]``) is never read as rich markup."""
    table.add_row(*(Text(cell) for cell in cells))
