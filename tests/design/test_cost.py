"""``singletable cost``: a month of traffic priced from the capacity each pattern and write really consumes
on the embedded engine -- checked against a hand calculation, on the five seeds and a design written from
scratch, with every bad profile or prices file refused with its file, line and key."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from singletable._cli import main
from singletable.data import load_design
from singletable.design import CostError, CostReport, design_cost, load_prices, load_traffic
from singletable.design._measure import measure, pattern_calls

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LEDGER = str(HERE / "ledger_cost.py")
TRACKER = str(HERE / "tracker_docs_cost.py")
SEEDS = ("fus_main", "hustlehub", "places", "wavyblog", "blog_api")

LEDGER_PROFILE = """\
[patterns]
"Entry.by_account" = 4_000_000

[entities.Entry]
creates = 1_000_000
updates = 2_000_000
deletes = 500_000
stored = 10_000_000
sizes = { memo = 1000 }
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def ledger_report(tmp_path_factory) -> CostReport:
    design = load_design(LEDGER)
    profile = write(tmp_path_factory.mktemp("ledger"), "traffic.toml", LEDGER_PROFILE)
    return design_cost(design, load_traffic(profile, design), load_prices())


def test_the_packaged_prices_are_us_east_on_demand_and_provisioned() -> None:
    prices = load_prices()
    assert (prices.region, prices.currency) == ("us-east-1", "USD")
    assert prices.write_request_units_per_million == 0.625
    assert prices.read_request_units_per_million == 0.125
    assert prices.storage_gb_month == 0.25
    assert (prices.write_capacity_unit_hour, prices.read_capacity_unit_hour) == (0.00065, 0.00013)
    assert (prices.hours_per_month, prices.bytes_per_gb) == (730, 1_000_000_000)


def test_a_month_of_the_ledger_matches_the_hand_calculation(ledger_report) -> None:
    """The ledger's items are generated with a 1000-character memo (``sizes``), so every size is known:

    a stored Entry: PK "E#entry_id-0" 2+12, SK "E" 2+1, GSI1PK "A#account-0" 6+11, GSI1SK "E#entry_id-0"
    6+12, entityType "E" 10+1, entryId 7+10, account 7+9, memo 4+1000 = 1100 bytes; its KEYS_ONLY index
    entry holds the four keys, 14+3+17+18 = 52 bytes. The entity whose writes are measured
    (entry_id-1000, account-1000) is 1115 bytes: 2 write units in the table, 1 for its 52-byte index
    entry; an update changes the memo only, which the KEYS_ONLY index does not hold (no index write).
    """
    report = ledger_report
    assert report.origin == "generated" and report.unmeasured == {}
    # One call: the index page (1 entry of 52 bytes: 0.5) and the hydrating BatchGetItem (1100 bytes: 0.5).
    # Reads: 4,000,000 calls x (0.5 + 0.5) = 4,000,000 RRU x $0.125 / 10^6 = $0.50
    assert report.reads == pytest.approx(4_000_000 / 1e6 * 0.125) == pytest.approx(0.50)
    # Writes, table: (1,000,000 creates + 2,000,000 updates + 500,000 deletes) x 2 = 7,000,000 WRU
    #         index: (1,000,000 creates + 500,000 deletes) x 1 = 1,500,000 WRU
    # 8,500,000 WRU x $0.625 / 10^6 = $5.3125
    assert report.writes == pytest.approx(8_500_000 / 1e6 * 0.625) == pytest.approx(5.3125)
    # Storage: 10,000,000 x (1100 + 100) = 12 GB in the table, 10,000,000 x (52 + 100) = 1.52 GB in the
    # index: 13.52 GB x $0.25 = $3.38
    assert report.storage_bytes == 10_000_000 * (1100 + 100) + 10_000_000 * (52 + 100)
    assert report.storage == pytest.approx(13.52 * 0.25) == pytest.approx(3.38)
    assert report.on_demand_total == pytest.approx(0.50 + 5.3125 + 3.38)
    # Provisioned over 730 h = 2,628,000 s at 70 % utilization:
    # table: reads 2,000,000 / 2,628,000 / 0.7 = 1.09 -> 2 RCU;
    #        writes 7,000,000 / 2,628,000 / 0.7 = 3.81 -> 4 WCU
    #        (2 x $0.00013 + 4 x $0.00065) x 730 = $2.0878
    # index: reads 2,000,000 -> 2 RCU; writes 1,500,000 / 2,628,000 / 0.7 = 0.82 -> 1 WCU
    #        (2 x $0.00013 + 1 x $0.00065) x 730 = $0.6643
    table, index = report.pools
    assert (table.name, table.rcu, table.wcu, table.cost) == ("table", 2, 4, pytest.approx(2.0878))
    assert (index.name, index.rcu, index.wcu, index.cost) == ("byAccount", 2, 1, pytest.approx(0.6643))
    assert report.provisioned_total == pytest.approx(2.0878 + 0.6643 + 3.38)
    assert report.amplification == {
        "Entry": {
            "create": {"table": 2.0, "byAccount": 1.0, "factor": 1.5},
            "update": {"table": 2.0, "factor": 1.0},
            "delete": {"table": 2.0, "byAccount": 1.0, "factor": 1.5},
        }
    }


def test_the_top_drivers_are_the_costliest_lines_with_their_fix(ledger_report) -> None:
    drivers = [
        (line.kind, line.source, line.target, round(line.on_demand, 4)) for line in ledger_report.drivers
    ]
    assert drivers == [
        ("write", "Entry", "table", 4.375),
        ("storage", "Entry", "table", 3.0),
        ("write", "Entry", "byAccount", 0.9375),
        ("storage", "Entry", "byAccount", 0.38),
        ("read", "Entry.by_account", "byAccount", 0.25),
    ]
    fixes = {(line.kind, line.target): line.fix for line in ledger_report.lines}
    assert fixes[("write", "table")] == (
        "writes are billed per 1 KB: keep Entry items small (large attributes in a separate item)"
    )
    assert fixes[("read", "table")].startswith(
        "byAccount does not project what Entry.by_account returns, so every call reads the items again"
    )
    assert fixes[("read", "table")].endswith("(singletable check ST401 projection-missing-attributes)")
    assert "make the byAccount key sparse" in fixes[("write", "byAccount")]


def test_a_prices_file_overrides_the_packaged_prices(tmp_path, ledger_report) -> None:
    prices = load_prices(write(tmp_path, "prices.toml", "write_request_units_per_million = 1.25\n"))
    assert prices.write_request_units_per_million == 1.25 and prices.read_request_units_per_million == 0.125
    design = load_design(LEDGER)
    report = design_cost(design, load_traffic(write(tmp_path, "t.toml", LEDGER_PROFILE), design), prices)
    assert report.writes == pytest.approx(8_500_000 / 1e6 * 1.25)  # the same units at the new price
    assert report.reads == pytest.approx(ledger_report.reads)


# -- the seeds and the tracker ------------------------------------------------------------------------------


def uniform_profile(tmp_path: Path, design) -> Path:
    """A million calls of every pattern; 10,000 creates and updates, 1,000 deletes, 100,000 of each entity."""
    lines = ["[patterns]"] + [f'"{name}" = 1_000_000' for name in pattern_calls(design)]
    for entity in design.entities:
        lines += [f"[entities.{entity}]", "creates = 10_000", "updates = 10_000", "deletes = 1_000"]
        lines.append("stored = 100_000")
    return write(tmp_path, "uniform.toml", "\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def seed_reports(tmp_path_factory) -> dict[str, CostReport]:
    reports = {}
    for name in (*SEEDS, "tracker"):
        design = load_design(TRACKER if name == "tracker" else f"singletable.examples.{name}.design")
        profile = uniform_profile(tmp_path_factory.mktemp(name), design)
        reports[name] = design_cost(design, load_traffic(profile, design), load_prices())
    return reports


def reads_of(report: CostReport, source: str) -> dict[str, float]:
    return {
        line.target: line.units / 1_000_000
        for line in report.lines
        if line.kind == "read" and line.source == source
    }


@pytest.mark.parametrize("name", (*SEEDS, "tracker"))
def test_every_pattern_and_write_is_measured(seed_reports, name) -> None:
    report = seed_reports[name]
    design = load_design(TRACKER if name == "tracker" else f"singletable.examples.{name}.design")
    assert report.unmeasured == {}
    assert report.origin == ("generated" if name == "tracker" else "sample")
    read = {line.source for line in report.lines if line.kind == "read"}
    assert set(pattern_calls(design)) <= read
    assert set(report.amplification) == set(design.entities)
    assert all(set(writes) == {"create", "update", "delete"} for writes in report.amplification.values())
    assert report.on_demand_total > 0 and report.provisioned_total > report.storage


def test_keys_only_and_include_indexes_show_the_hydrating_reads(seed_reports) -> None:
    """hustlehub: GSI1 (KEYS_ONLY) and GSI4 hold ids only, so a call also reads the table; GSI2's INCLUDE
    projection holds what a list page shows, so the latest listings read the index alone -- 24 of them,
    3.5 units a call, the seed's costliest read."""
    report = seed_reports["hustlehub"]
    assert reads_of(report, "User.by_email") == {"table": 0.5, "GSI1-UserEmailIndex": 0.5}
    assert reads_of(report, "Listing.by_slug") == {"table": 0.5, "GSI4-SlugLookupIndex": 0.5}
    assert reads_of(report, "Listing.latest") == {"GSI2-ListingsByDateIndex": 3.5}
    # The sample listings are unsharded: the sharded pattern reads an empty partition (no units measured).
    (empty,) = [line for line in report.lines if line.source == "Listing.latest_in_shard"]
    assert (empty.target, empty.units, empty.on_demand) == ("GSI2-ListingsByDateIndex", 0.0, 0.0)
    assert empty.fix == "this call read no items on the design's items, so its cost could not be measured"
    top = report.drivers[0]
    assert (top.kind, top.source, top.target) == ("read", "Listing.latest", "GSI2-ListingsByDateIndex")
    assert top.fix.startswith("one call reads 3.5 units (28 KB at most, eventually consistent)")
    hydrating = [line for line in report.lines if line.kind == "read" and line.target == "table"]
    assert all("INCLUDE" in line.fix for line in hydrating if "." in line.source and "by_" in line.source)


def test_patterns_on_all_projections_never_read_the_table_again(seed_reports) -> None:
    for name in ("blog_api", "wavyblog", "fus_main"):
        report = seed_reports[name]
        design = load_design(f"singletable.examples.{name}.design")
        on_index = {n for n, (_m, _c, index, _a) in pattern_calls(design).items() if index is not None}
        assert [
            line.source for line in report.lines if line.source in on_index and line.target == "table"
        ] == []


def test_unique_guards_make_writes_transactions_at_twice_the_units(seed_reports) -> None:
    """wavyblog: a user is written with its email guard in one transaction: 2 items x 1 unit x 2; a post with
    its slug guard, and into its three GSIs."""
    amplification = seed_reports["wavyblog"].amplification
    assert amplification["User"]["create"] == {"table": 4.0, "GSI3": 1.0, "factor": 1.25}
    assert amplification["Post"]["create"] == {
        "table": 4.0,
        "GSI1": 1.0,
        "GSI2": 1.0,
        "GSI3": 1.0,
        "factor": 1.75,
    }
    assert amplification["Category"]["create"] == {"table": 1.0, "GSI3": 1.0, "factor": 2.0}
    user = next(
        line for line in seed_reports["wavyblog"].lines if line.kind == "write" and line.source == "User"
    )
    assert user.fix.startswith(
        "User writes are transactions (unique guards or derived items) at twice the units"
    )
    # A delete reads the item first, to find the guards it removes: priced as reads of the writes.
    assert reads_of(seed_reports["wavyblog"], "User writes") == {"table": 0.001}


def test_every_index_an_entity_writes_is_counted(seed_reports) -> None:
    amplification = seed_reports["blog_api"].amplification
    assert amplification["Post"]["create"] == {"table": 1.0, "GSI1": 1.0, "GSI2": 1.0, "factor": 3.0}
    assert amplification["CategoryChild"]["create"] == {"table": 1.0, "factor": 1.0}
    tracker = seed_reports["tracker"].amplification
    assert tracker["Issue"]["create"] == {"table": 1.0, "GSI1": 1.0, "LSI1": 1.0, "factor": 3.0}
    # The LSI shares the table's provisioned throughput: no pool of its own.
    assert [pool.name for pool in seed_reports["tracker"].pools] == ["table", "GSI1", "GSI2"]


# -- bad profiles and prices ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[patterns]\n"Entry.by_acount" = 5\n',
         '{f}:2: [patterns] "Entry.by_acount": no such access pattern; this design has: Entry.by_account'),
        ('[patterns]\n"Entry.by_account" = -5\n',
         '{f}:2: [patterns] "Entry.by_account": a number, 0 or more, not -5'),
        ('[patterns]\n"Entry.by_account" = "many"\n',
         "{f}:2: [patterns] \"Entry.by_account\": a number, 0 or more, not 'many'"),
        ('[patterns]\n"Entry.by_account" = { calls = 5, page_size = 0 }\n',
         '{f}:2: [patterns] "Entry.by_account": page_size is a whole number from 1 to 1000, not 0'),
        ('[patterns]\n"Entry.by_account" = { count = 5 }\n',
         '{f}:2: [patterns] "Entry.by_account": a number of calls, or {{calls = N, page_size = N}}'),
        ("[entities.Entri]\ncreates = 1\n",
         "{f}:1: [entities.Entri]: no such entity; this design has: Entry"),
        ("[entities.Entry]\ncreates = 1\nwrites = 2\n",
         "{f}:3: [entities.Entry] writes: not a setting; an entity has creates, updates, deletes, stored, "
         "sizes, update_field"),
        ("[entities.Entry]\nupdate_field = \"entry_id\"\n",
         "{f}:2: [entities.Entry] update_field: 'entry_id' is not a field of Entry outside its primary key; "
         "choose one of account, memo"),
        ("[entities.Entry]\nstored = true\n",
         "{f}:2: [entities.Entry] stored: a number, 0 or more, not True"),
        ("[entities.Entry]\nsizes = { body = 10 }\n",
         "{f}:2: [entities.Entry] sizes: Entry has no field body; its fields: entry_id, account, memo"),
        ("[entities.Entry]\nsizes = { memo = 500000 }\n",
         "{f}:2: [entities.Entry] sizes.memo: characters from 1 to 400000, not 500000"),
        ("[provisioned]\ntarget_utilization = 1.5\n",
         "{f}:2: [provisioned] target_utilization: a fraction above 0 and at most 1, not 1.5"),
        ("[writes]\nx = 1\n",
         "{f}:1: [writes]: not a section; a profile has [patterns], [entities.NAME] and [provisioned]"),
        ('[patterns]\n"Entry.by_account" = \n', "{f}:2: not TOML: Invalid value"),
    ],
)  # fmt: skip
def test_a_bad_profile_is_refused_with_its_file_line_and_key(tmp_path, text, message) -> None:
    path = write(tmp_path, "traffic.toml", text)
    with pytest.raises(CostError) as raised:
        load_traffic(path, load_design(LEDGER))
    assert str(raised.value) == message.format(f=path)
    result = CliRunner().invoke(main, ["cost", LEDGER, "--traffic", str(path)])
    assert (result.exit_code, result.output) == (1, f"Error: {message.format(f=path)}\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("storage_gb_month = -1\n", "{f}:1: storage_gb_month: a number, 0 or more, not -1"),
        ("hours_per_month = 0\n", "{f}:1: hours_per_month: a positive number, not 0"),
        ("# comment\nwcu_hour = 1\n", "{f}:2: wcu_hour: not a price; prices are region, currency, "
         "write_request_units_per_million, read_request_units_per_million, storage_gb_month, "
         "write_capacity_unit_hour, read_capacity_unit_hour, hours_per_month, bytes_per_gb"),
        ("region = 1\n", "{f}:1: region: a string, not 1"),
    ],
)  # fmt: skip
def test_a_bad_prices_file_is_refused_with_its_file_line_and_key(tmp_path, text, message) -> None:
    path = write(tmp_path, "prices.toml", text)
    with pytest.raises(CostError) as raised:
        load_prices(path)
    assert str(raised.value) == message.format(f=path)


def test_a_missing_file_is_refused_in_one_line(tmp_path) -> None:
    missing = tmp_path / "nope.toml"
    result = CliRunner().invoke(main, ["cost", LEDGER, "--traffic", str(missing)])
    assert (result.exit_code, result.output) == (1, f"Error: {missing}: No such file or directory\n")
    profile = write(tmp_path, "t.toml", LEDGER_PROFILE)
    result = CliRunner().invoke(main, ["cost", LEDGER, "--traffic", str(profile), "--prices", str(missing)])
    assert (result.exit_code, result.output) == (1, f"Error: {missing}: No such file or directory\n")


# -- the command line -------------------------------------------------------------------------------------


def test_the_command_prints_json_with_the_same_figures(tmp_path, ledger_report) -> None:
    profile = write(tmp_path, "t.toml", LEDGER_PROFILE)
    result = CliRunner().invoke(main, ["cost", LEDGER, "--traffic", str(profile), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # The hand calculation's figures, exactly: money is rounded to a millionth in the JSON.
    assert data["on_demand"] == {"reads": 0.5, "writes": 5.3125, "storage": 3.38, "total": 9.1925}
    assert (data["provisioned"]["capacity"], data["provisioned"]["total"]) == (2.7521, 6.1321)
    assert [p["name"] for p in data["provisioned"]["pools"]] == ["table", "byAccount"]
    assert data["gsi_write_amplification"] == ledger_report.to_json()["gsi_write_amplification"]
    assert (
        data["top_cost_drivers"][0]["source"] == "Entry" and data["top_cost_drivers"][0]["target"] == "table"
    )


def test_the_command_prints_tables_for_a_person(tmp_path) -> None:
    profile = write(tmp_path, "t.toml", LEDGER_PROFILE)
    result = CliRunner().invoke(main, ["cost", LEDGER, "--traffic", str(profile)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == [
        "ledger: one month, us-east-1 prices in USD",
        "measured on the embedded engine with items generated from field types",
    ]
    on_demand = next(line for line in lines if "on-demand" in line)
    assert [cell.strip() for cell in on_demand.strip("│ ").split("│")] == [
        "on-demand",
        "0.50",
        "5.31",
        "3.38",
        "9.19",
    ]
    for title in ("Top cost drivers (on-demand)", "Lines", "Provisioned capacity", "GSI write amplification"):
        assert any(line.startswith(title) for line in lines), title


def test_the_command_runs_as_a_real_process(tmp_path) -> None:
    profile = uniform_profile(tmp_path, load_design("singletable.examples.blog_api.design"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    command = ["cost", "singletable.examples.blog_api.design", "--traffic", str(profile), "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-m", "singletable", *command], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["table"] == "blog-api-dev-blog" and data["items"] == "sample" and data["unmeasured"] == {}


def test_a_design_that_cannot_be_loaded_fails_in_one_line(tmp_path) -> None:
    profile = write(tmp_path, "t.toml", LEDGER_PROFILE)
    result = CliRunner().invoke(main, ["cost", "no_such_design", "--traffic", str(profile)])
    assert (result.exit_code, result.output) == (
        1,
        "Error: cannot import design module no_such_design: ModuleNotFoundError: "
        "No module named 'no_such_design'\n",
    )


def test_a_scan_is_priced_as_reading_everything_the_profile_stores(seed_reports) -> None:
    """The tracker's admin report scans: on the sample that is half a unit, on the stored table it is every
    stored byte -- 100,000 items of each entity at their measured size (the overhead is not read) -- in 4 KB
    units, halved (eventually consistent), for each of the million calls."""
    report = seed_reports["tracker"]
    measured = measure(load_design(TRACKER))
    table_bytes = sum(100_000 * storage.bytes["table"] for storage in measured.storage.values())
    per_call = math.ceil(table_bytes / 4096) / 2
    (scan,) = [line for line in report.lines if line.source == "Org.every_org"]
    assert (scan.kind, scan.target, scan.units) == ("read", "table", pytest.approx(1_000_000 * per_call))
    assert per_call > 3000  # thousands of units a call, where the sample's scan cost half of one
    assert scan.fix.startswith(f"a Scan reads the whole table on every call ({per_call:,g} units for what")
    assert scan.fix.endswith("(singletable check ST301 scan-pattern)")  # the check rule that flags it too
    assert report.drivers[0] == scan  # by far the costliest line


def test_an_update_that_moves_an_index_key_costs_a_delete_and_a_put_there(tmp_path) -> None:
    """``update_field = "account"`` moves the entry in byAccount: its old entry deleted and a new one put,
    each 1 write unit (DynamoDB rounds each on its own), where the memo update wrote the table alone."""
    design = load_design(LEDGER)
    profile = write(tmp_path, "t.toml", LEDGER_PROFILE + 'update_field = "account"\n')
    report = design_cost(design, load_traffic(profile, design), load_prices())
    assert report.amplification["Entry"]["update"] == {"table": 2.0, "byAccount": 2.0, "factor": 2.0}
    index_writes = next(line for line in report.lines if line.kind == "write" and line.target == "byAccount")
    assert index_writes.units == 1_000_000 * 1 + 2_000_000 * 2 + 500_000 * 1


def test_the_output_in_the_docs_is_what_the_command_prints() -> None:
    """docs/design-tools.md ("## cost") shows a real run on the Blog API; it cannot drift from the code."""
    page = (ROOT / "docs" / "design-tools.md").read_text()
    profile = ROOT / "docs" / "traffic" / "blog_api.toml"
    result = CliRunner().invoke(
        main, ["cost", "singletable.examples.blog_api.design", "--traffic", str(profile)]
    )
    assert result.exit_code == 0, result.output
    command = "$ singletable cost singletable.examples.blog_api.design --traffic docs/traffic/blog_api.toml\n"
    assert command + result.output + "```" in page


def test_a_filtered_pattern_names_the_check_rule_that_flags_it_too() -> None:
    """No seed filters, so one measured call is restated as filtered: the fix is the filter's, with ST302."""
    from singletable.design._cost import _read_fix
    from singletable.design._measure import Consumed, PatternMeasure

    found = PatternMeasure("Entry.flagged", "byAccount", Consumed(), filtered=True, scan=False)
    fix = _read_fix(found, "byAccount", 0.5, load_design(LEDGER))
    assert fix == (
        "Entry.flagged filters: DynamoDB bills every item it reads, kept or not; put the condition in the "
        "sort key or a sparse index (singletable check ST302 filtered-pattern)"
    )
