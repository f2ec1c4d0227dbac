"""``design_cost(design, traffic, prices)``: a design's monthly DynamoDB bill from measured capacity.

The arithmetic, per target (the table or one index), from :mod:`singletable.design._measure`:

- reads: calls per month x read units one call consumed (a Scan, whose size is the table's and not the
  sample's: every byte the profile stores, in 4 KB units, halved as eventually consistent); writes: items per
  month x write units one create, update or delete consumed (a transaction's table share is already doubled
  by DynamoDB);
- on-demand: read units / 10^6 x the price per million read request units, writes likewise;
- provisioned: each capacity pool -- the table with its LSIs (they share its throughput), and each GSI --
  gets ``ceil(units per month / seconds per month / target utilization)`` units, at least 1, billed per hour
  for the month; an average rate, so peaks need more;
- storage: items stored x (bytes per item + 100 bytes) in the table and again in each index that holds the
  item (at its projected size), / bytes per GB x the price per GB-month.

Each priced line carries what would make it cheaper, so the top cost drivers come with their fix.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from singletable.data import Design
from singletable.design._cost_inputs import Prices, Traffic
from singletable.design._measure import TABLE, Measurement, measure
from singletable.design._rules import RULES

OVERHEAD = 100  # bytes DynamoDB adds to every item it stores, in the table and in each index
READ_UNIT = 4096  # bytes one read unit reads (strongly consistent; half a unit eventually consistent)
KINDS = ("create", "update", "delete")


@dataclass
class Line:
    """One priced line: reads of a pattern, writes of an entity or storage of an entity, on one target."""

    kind: str  # "read", "write" or "storage"
    source: str  # "Post.by_author", "Post"
    target: str  # "table" or an index name
    units: float  # request units per month; for storage, bytes stored
    on_demand: float  # cost per month (storage: the same in both modes)
    fix: str = ""


@dataclass
class Pool:
    """Provisioned capacity for one pool (the table with its LSIs, or one GSI)."""

    name: str
    read_units: float
    write_units: float
    rcu: int
    wcu: int
    cost: float


@dataclass
class CostReport:
    """The month's bill: lines, totals in both modes, provisioned pools, GSI write amplification."""

    table: str
    origin: str
    prices: Prices
    lines: list[Line]
    pools: list[Pool]
    amplification: dict[str, dict[str, dict[str, float]]]
    unmeasured: dict[str, str]
    target_utilization: float
    reads: float = 0.0
    writes: float = 0.0
    storage: float = 0.0
    storage_bytes: float = 0.0
    provisioned_capacity: float = 0.0
    drivers: list[Line] = field(default_factory=list)

    @property
    def on_demand_total(self) -> float:
        return self.reads + self.writes + self.storage

    @property
    def provisioned_total(self) -> float:
        return self.provisioned_capacity + self.storage

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (``singletable cost --format json``); money rounded to a millionth of
        the currency, units and bytes as measured."""
        return {
            "table": self.table,
            "items": self.origin,
            "prices": asdict(self.prices),
            "on_demand": {
                "reads": _money(self.reads),
                "writes": _money(self.writes),
                "storage": _money(self.storage),
                "total": _money(self.on_demand_total),
            },
            "provisioned": {
                "target_utilization": self.target_utilization,
                "pools": [asdict(pool) | {"cost": _money(pool.cost)} for pool in self.pools],
                "capacity": _money(self.provisioned_capacity),
                "storage": _money(self.storage),
                "total": _money(self.provisioned_total),
            },
            "storage_bytes": self.storage_bytes,
            "lines": [asdict(line) | {"on_demand": _money(line.on_demand)} for line in self.lines],
            "gsi_write_amplification": self.amplification,
            "top_cost_drivers": [
                asdict(line) | {"on_demand": _money(line.on_demand)} for line in self.drivers
            ],
            "unmeasured": self.unmeasured,
        }


def _money(amount: float) -> float:
    """Money as a report shows it: float noise (0.15749999999999997) rounded away."""
    return round(amount, 6)


def design_cost(design: Design, traffic: Traffic, prices: Prices, *, top: int = 5) -> CostReport:
    """Measure ``design`` on the embedded engine and price ``traffic`` at ``prices``."""
    sizes = {name: entity.sizes for name, entity in traffic.entities.items() if entity.sizes}
    page_sizes = {name: p.page_size for name, p in traffic.patterns.items()}
    update_fields = {name: e.update_field for name, e in traffic.entities.items() if e.update_field}
    measured = measure(design, page_sizes=page_sizes, sizes=sizes, update_fields=update_fields)
    table_bytes = sum(  # what a Scan reads: the items' own bytes (the 100-byte overhead is not read)
        entity.stored * measured.storage[name].bytes.get(TABLE, 0.0)
        for name, entity in traffic.entities.items()
        if name in measured.storage
    )
    lines = _read_lines(measured, traffic, prices, design, table_bytes)
    lines += _write_lines(measured, traffic, prices, design) + _storage_lines(
        measured, traffic, prices, design
    )
    report = CostReport(
        design.table_name,
        measured.origin,
        prices,
        lines,
        _pools(design, lines, prices, traffic.target_utilization),
        _amplification(measured),
        dict(measured.failures),
        traffic.target_utilization,
    )
    report.reads = sum(line.on_demand for line in lines if line.kind == "read")
    report.writes = sum(line.on_demand for line in lines if line.kind == "write")
    report.storage = sum(line.on_demand for line in lines if line.kind == "storage")
    report.storage_bytes = sum(line.units for line in lines if line.kind == "storage")
    report.provisioned_capacity = sum(pool.cost for pool in report.pools)
    priced = [line for line in lines if line.on_demand > 0]
    report.drivers = sorted(priced, key=lambda line: (-line.on_demand, line.source, line.target))[:top]
    return report


def _read_lines(
    measured: Measurement, traffic: Traffic, prices: Prices, design: Design, table_bytes: float
) -> list[Line]:
    """Each pattern's reads per target. A Scan is the one read whose size is the table's, not the sample's:
    priced as reading every byte the profile stores (eventually consistent), when that is more."""
    lines = []
    for name, calls in traffic.patterns.items():
        found = measured.patterns.get(name)
        if found is None:
            continue
        if not found.consumed.reads:  # an empty partition: DynamoDB Local and the engine bill nothing
            fix = "this call read no items on the design's items, so its cost could not be measured"
            lines.append(Line("read", name, found.index or TABLE, 0.0, 0.0, fix))
        reads = dict(found.consumed.reads)
        if found.scan and found.index is None:
            reads[TABLE] = max(reads.get(TABLE, 0.0), math.ceil(table_bytes / READ_UNIT) / 2)
        for target, units in sorted(reads.items(), key=_target_order):
            monthly = calls.calls * units
            cost = monthly / 1e6 * prices.read_request_units_per_million
            lines.append(Line("read", name, target, monthly, cost, _read_fix(found, target, units, design)))
    return lines


def _write_lines(measured: Measurement, traffic: Traffic, prices: Prices, design: Design) -> list[Line]:
    """Each entity's writes per target, and the reads some writes make first (a delete reading the item
    whose guards it removes), priced as reads."""
    lines = []
    for name, entity in traffic.entities.items():
        writes = measured.writes.get(name, {})
        written: dict[str, float] = {}
        read: dict[str, float] = {}
        transactional = False
        for kind in KINDS:
            count = getattr(entity, kind + "s")
            consumed = writes.get(kind)
            if consumed is None or not count:
                continue
            transactional |= "TransactWriteItems" in consumed.operations
            for totals, units in ((written, consumed.writes), (read, consumed.reads)):
                for target, unit in units.items():
                    totals[target] = totals.get(target, 0.0) + count * unit
        for target, monthly in sorted(written.items(), key=_target_order):
            cost = monthly / 1e6 * prices.write_request_units_per_million
            lines.append(
                Line("write", name, target, monthly, cost, _write_fix(name, target, transactional, design))
            )
        for target, monthly in sorted(read.items(), key=_target_order):
            cost = monthly / 1e6 * prices.read_request_units_per_million
            fix = f"{name} writes read the stored item first (to remove its guards or derived items)"
            lines.append(Line("read", f"{name} writes", target, monthly, cost, fix))
    return lines


def _storage_lines(measured: Measurement, traffic: Traffic, prices: Prices, design: Design) -> list[Line]:
    lines = []
    for name, entity in traffic.entities.items():
        found = measured.storage.get(name)
        if found is None or not entity.stored:
            continue
        for target in sorted(found.items, key=lambda t: _target_order((t, 0))):
            stored = entity.stored * (found.bytes[target] + OVERHEAD * found.items[target])
            cost = stored / prices.bytes_per_gb * prices.storage_gb_month
            lines.append(Line("storage", name, target, stored, cost, _storage_fix(name, target, design)))
    return lines


def _target_order(entry: tuple[str, Any]) -> tuple[int, str]:
    return (0 if entry[0] == TABLE else 1, entry[0])


def _pools(design: Design, lines: list[Line], prices: Prices, utilization: float) -> list[Pool]:
    """Provisioned units per pool: the table with its LSIs, then each GSI, in declaration order."""
    pool_of = {TABLE: TABLE} | {i.name: TABLE if i.local else i.name for i in design.table.indexes}
    names = [TABLE] + [i.name for i in design.table.indexes if not i.local]
    seconds = prices.hours_per_month * 3600
    pools = []
    for name in names:
        reads = sum(line.units for line in lines if line.kind == "read" and pool_of.get(line.target) == name)
        writes = sum(
            line.units for line in lines if line.kind == "write" and pool_of.get(line.target) == name
        )
        rcu = max(1, math.ceil(round(reads / seconds / utilization, 9)))
        wcu = max(1, math.ceil(round(writes / seconds / utilization, 9)))
        hourly = rcu * prices.read_capacity_unit_hour + wcu * prices.write_capacity_unit_hour
        pools.append(Pool(name, reads, writes, rcu, wcu, hourly * prices.hours_per_month))
    return pools


def _amplification(measured: Measurement) -> dict[str, dict[str, dict[str, float]]]:
    """Per entity and write: the table's units, each index's, and all of them over the table's."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, writes in measured.writes.items():
        for kind, consumed in writes.items():
            table = consumed.writes.get(TABLE, 0.0)
            indexes = {t: u for t, u in sorted(consumed.writes.items()) if t != TABLE}
            factor = (table + sum(indexes.values())) / table if table else 0.0
            out.setdefault(name, {})[kind] = {TABLE: table, **indexes, "factor": round(factor, 3)}
    return out


# -- what would cut each line ------------------------------------------------------------------------------


def _index(design: Design, name: str) -> Any:
    return next((i for i in design.table.indexes if i.name == name), None)


def _check_rule(rule_id: str) -> str:
    """The ``singletable check`` rule that flags the same cost driver, so a reader can find (or ignore) it."""
    return f" (singletable check {rule_id} {RULES[rule_id].name})"


def _read_fix(found: Any, target: str, units: float, design: Design) -> str:
    if found.scan:
        return (
            f"a Scan reads the whole table on every call ({units:,g} units for what the profile stores): "
            "give the pattern a key, a GSI on what it selects" + _check_rule("ST301")
        )
    if target == TABLE and found.index is not None:
        return (
            f"{found.index} does not project what {found.name} returns, so every call reads the items again "
            f"from the table (BatchGetItem): project those attributes (INCLUDE) in {found.index}"
            + _check_rule("ST401")
        )
    if found.filtered:
        return (
            f"{found.name} filters: DynamoDB bills every item it reads, kept or not; put the condition "
            "in the sort key or a sparse index" + _check_rule("ST302")
        )
    if units > 0.5:
        return (
            f"one call reads {units:g} units ({units * 8:g} KB at most, eventually consistent): return fewer "
            "items per page, or keep large attributes out of the items this pattern reads"
        )
    return "one call is already the minimum (half a unit); only fewer calls (a cache) cut this"


def _write_fix(name: str, target: str, transactional: bool, design: Design) -> str:
    index = _index(design, target)
    if index is not None:
        projection = index.projection_type
        return (
            f"every {name} write that changes its {index.name} entry writes it too (projection "
            f"{projection}): make the {index.name} key sparse so only the {name} items a pattern reads are "
            "indexed"
            + (
                ", or project fewer attributes so fewer updates change the entry"
                if projection != "KEYS_ONLY"
                else ""
            )
        )
    if transactional:
        return (
            f"{name} writes are transactions (unique guards or derived items) at twice the units: keep "
            "uniqueness only where it is needed, and items under 1 KB"
        )
    return f"writes are billed per 1 KB: keep {name} items small (large attributes in a separate item)"


def _storage_fix(name: str, target: str, design: Design) -> str:
    index = _index(design, target)
    if index is not None and index.projection_type == "ALL":
        return (
            f"{index.name} stores a full copy of each {name} it holds (projection ALL): project only what "
            "its patterns read"
        )
    if index is not None:
        return f"{index.name} keeps a copy of each {name} with its key: make it sparse if few patterns use it"
    return f"shorter attribute names and smaller {name} items; expire old ones with TTL"
