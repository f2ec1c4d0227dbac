"""The design tools on a multi-tenant shop (``shop_design.py``: stores, customers with a per-store unique
email, products with a per-store SKU and a ``version=``, orders with lines, a sparse index of open orders, a
counter) and on minimal designs: docs and cost on versioned entities, cost's numbers against what the
engine reports for the same writes, check's guard and counter rules, and one clear line where a design
cannot be used.

The shop's customers and products are guarded per store (``STORE#{store_id}#EMAIL#{email}``); where the
model on this tree cannot yet write such a guard, the tests that write them say so and are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from singletable._cli import main
from singletable.data import load_design
from singletable.design import check, design_cost, design_docs, load_prices, load_traffic
from singletable.design._measure import Consumed, _all_writes
from singletable.engine import Engine
from singletable.model import ModelError, connect

HERE = Path(__file__).resolve().parent
SHOP = str(HERE / "shop_design.py")
CHECK_DESIGNS = HERE / "check_designs"


def _scoped_guards_work() -> bool:
    design = load_design(SHOP)
    module = design.module
    db = connect(design.table, ":memory:")
    try:
        db.create_table()
        db.create(module.sample_customer("acme", 1))
        return True
    except ModelError:
        return False
    finally:
        db.close()


needs_scoped_guards = pytest.mark.skipif(
    not _scoped_guards_work(), reason="the model on this tree cannot write a guard scoped to another field"
)

VERSIONED = """
from pydantic import Field
from singletable.model import GSI, Entity, Key, Keys, Pattern, Table

t = Table(name="stock", indexes=[GSI("low", pk="GSI1PK", sk="GSI1SK")])


class Product(Entity, table=t, type="PRODUCT", version="version"):
    product_id: str
    name: str
    state: str = "active"
    stock: int = Field(default=0, ge=0)
    version: int = 0
    keys = Keys(
        PK="PRODUCT#{product_id}",
        SK="PRODUCT",
        GSI1PK=Key("ACTIVE", when=lambda state: state == "active"),
        GSI1SK=Key("{product_id}", when=lambda state: state == "active"),
    )
    active = Pattern(index="low")
"""


def _module(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return str(path)


def _consumed(trace) -> Consumed:  # type: ignore[no-untyped-def]
    consumed = Consumed()
    for request in trace.requests:
        consumed.add(request.operation, request.capacity)
    return consumed


# -- docs and cost on a versioned entity -----------------------------------------------------------------


def test_docs_and_cost_on_a_versioned_entity_without_sample_data(tmp_path: Path) -> None:
    """Generated items are created as new items (version 1); a put of a version-0 entity was refused."""
    module = _module(tmp_path, "versioned_design", VERSIONED)
    profile = tmp_path / "traffic.toml"
    profile.write_text('[entities.Product]\ncreates = 100\nupdates = 1000\nupdate_field = "stock"\n')
    docs = CliRunner().invoke(main, ["docs", module, "-o", str(tmp_path / "docs")])
    assert docs.exit_code == 0, docs.output
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert "Product (PRODUCT)" in readme and "version" in readme
    cost = CliRunner().invoke(main, ["cost", module, "--traffic", str(profile), "--format", "json"])
    assert cost.exit_code == 0, cost.output
    report = json.loads(cost.output)
    assert report["unmeasured"] == {}
    # the versioned update is measured (the stock is projected into the index too), and a create with the
    # default state is in the sparse index
    assert report["gsi_write_amplification"]["Product"]["update"] == {"table": 1.0, "low": 1.0, "factor": 2.0}
    assert report["gsi_write_amplification"]["Product"]["create"] == {"table": 1.0, "low": 1.0, "factor": 2.0}


@needs_scoped_guards
def test_docs_and_cost_on_the_shop(tmp_path: Path) -> None:
    docs = CliRunner().invoke(main, ["docs", SHOP, "-o", str(tmp_path / "docs")])
    assert docs.exit_code == 0, docs.output
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert (
        "STORE#{store_id}#EMAIL#{email}" in readme
        and "Customer email guard" in readme + (tmp_path / "docs" / "table.svg").read_text()
    )
    profile = tmp_path / "traffic.toml"
    profile.write_text(SHOP_MONTH)
    cost = CliRunner().invoke(main, ["cost", SHOP, "--traffic", str(profile), "--format", "json"])
    assert cost.exit_code == 0, cost.output
    assert json.loads(cost.output)["unmeasured"] == {}


# -- cost against the engine's ConsumedCapacity of the same writes ------------------------------------------

# How the shop's service changes things: checkout creates an open order, payment sets its status, a sale
# decrements a product's stock under its version.
UPDATE_FIELDS = {"Order": "status", "Product": "stock", "Store": "name", "Customer": "name"}


def _real_writes(module, scoped: bool) -> dict[str, dict[str, Consumed]]:  # type: ignore[no-untyped-def]
    """Each entity created, updated and deleted as the application does it, traced on the engine."""
    db = connect(module.shop, ":memory:")
    db.create_table()
    out: dict[str, dict[str, Consumed]] = {}
    writes = {
        "Store": (module.sample_store("acme"), lambda e: db.update(e, name="Acme Two")),
        "Order": (module.sample_order("acme", 7, "c1"), lambda e: db.update(e, status="paid")),
        "OrderLine": (module.sample_line("acme", 7, 1, "p1"), None),
    }
    if scoped:
        writes["Customer"] = (module.sample_customer("acme", 1), lambda e: db.update(e, name="B. Uyer"))
        writes["Product"] = (module.sample_product("acme", 1), lambda e: db.update(e, stock=e.stock - 1))
    try:
        for name, (entity, update) in writes.items():
            measured: dict[str, Consumed] = {}
            with db.trace(capacity="INDEXES") as trace:
                entity = db.create(entity)
            measured["create"] = _consumed(trace)
            if update is not None:
                with db.trace(capacity="INDEXES") as trace:
                    entity = update(entity)
                measured["update"] = _consumed(trace)
            with db.trace(capacity="INDEXES") as trace:
                db.delete(entity)
            measured["delete"] = _consumed(trace)
            out[name] = measured
    finally:
        db.close()
    return out


def test_cost_per_write_is_what_the_engine_reports_for_the_same_write() -> None:
    """cost's create, update and delete of each entity consume, table and index by index, exactly what the
    engine reports for the application's own writes: the open order's entry in the sparse index, the
    product's versioned stock change, the guards of a per-store unique value."""
    design = load_design(SHOP)
    scoped = _scoped_guards_work()
    failures: dict[str, str] = {}
    measured = _all_writes(design, {}, UPDATE_FIELDS, failures)
    real = _real_writes(design.module, scoped)
    for name, kinds in real.items():
        for kind, consumed in kinds.items():
            mine = measured[name][kind]
            assert (mine.reads, mine.writes) == (consumed.reads, consumed.writes), (name, kind)
    assert real["Order"]["create"].writes == {"table": 1.0, "openOrders": 1.0, "byCustomer": 1.0}
    assert real["Order"]["update"].writes == {"table": 1.0, "openOrders": 1.0, "byCustomer": 1.0}
    if scoped:
        assert failures == {}
        assert measured["Product"]["update"].writes == {"table": 1.0}  # measured, conditioned on its version
        assert measured["Customer"]["create"].writes == {
            "table": 4.0
        }  # the item and its guard, in a transaction
    else:
        assert set(failures) == {"Customer create", "Product create"}


SHOP_MONTH = """\
[patterns]
"Order.open_in_store" = 1_000_000
"order_with_lines" = 2_000_000

[entities.Order]
creates = 100_000
updates = 100_000
update_field = "status"
stored = 1_000_000

[entities.OrderLine]
creates = 300_000
stored = 3_000_000

[entities.Product]
creates = 1_000
updates = 300_000
update_field = "stock"
stored = 10_000

[entities.Customer]
creates = 20_000
stored = 100_000
"""


@needs_scoped_guards
def test_a_month_of_the_shops_writes_is_priced_from_its_real_writes(tmp_path: Path) -> None:
    """The month's write units are the profile's counts times what each real write consumed."""
    design = load_design(SHOP)
    profile = tmp_path / "traffic.toml"
    profile.write_text(SHOP_MONTH)
    traffic = load_traffic(profile, design)
    report = design_cost(design, traffic, load_prices())
    real = _real_writes(design.module, True)
    expected = 0.0
    for name, entity in traffic.entities.items():
        for kind in ("create", "update", "delete"):
            count = getattr(entity, f"{kind}s")
            if count and kind in real[name]:
                expected += count * sum(real[name][kind].writes.values())
    units = sum(line.units for line in report.lines if line.kind == "write")
    assert units == pytest.approx(expected)
    assert report.writes == pytest.approx(expected / 1e6 * 0.625)


# -- check: guards and counters -----------------------------------------------------------------------------


def test_check_accepts_the_shops_guards_scoped_to_a_store() -> None:
    """Nothing but a note: the orders' byCustomer key glues two fields that a key of fields would hold."""
    (note,) = check(SHOP).findings
    assert (note.rule, note.subject, note.severity) == ("ST404", "Order.GSI2PK", "note")
    assert "GSI('byCustomer', pk=['store_id', 'customer_id'], sk=['placed_at'])" in note.message


def test_check_finds_counters_in_keys() -> None:
    path = CHECK_DESIGNS / "shop_mistakes.py"
    report = check(str(path))
    assert {(f.rule, f.subject) for f in report.findings} == {
        ("ST104", "Customer.GSI1SK"),
        ("ST104", "Store.GSI2SK"),
        ("ST404", "Customer.GSI1SK"),  # and a key of fields would let ADD count without rebuilding a key
        ("ST404", "Store.GSI2SK"),
    }
    by_subject = {f.subject: f for f in report.findings if f.rule == "ST104"}
    assert "reads order_count, an int named as a counter" in by_subject["Customer.GSI1SK"].message
    assert (
        "reads orders_placed, the field a Sequence draws numbers from" in by_subject["Store.GSI2SK"].message
    )
    lines = path.read_text().splitlines()
    assert lines[by_subject["Customer.GSI1SK"].line - 1].strip().startswith('GSI1SK="{order_count:06d}')
    assert [f.severity for f in report.findings] == ["warning", "warning", "note", "note"]
    from_table = check(load_design(str(path)).table)  # the Sequence is found beside the entities too
    found = [(f.rule, f.subject) for f in report.findings]
    assert [(f.rule, f.subject) for f in from_table.findings] == found


def test_check_finds_a_guard_naming_a_field_the_entity_lacks() -> None:
    """An error naming ``mail``: ST003 from check, or ST001 once the model refuses it at declaration."""
    path = CHECK_DESIGNS / "shop_broken_guard.py"
    (finding,) = check(str(path)).findings
    assert finding.rule in ("ST003", "ST001") and finding.severity == "error"
    assert "{mail}" in finding.message and finding.file == str(path)
    lines = path.read_text().splitlines()
    assert lines[finding.line - 1].startswith("class Customer(")


def _guard(described: dict, entity: str, guard: str) -> dict:  # type: ignore[type-arg]
    """The shop's describe() data with ``entity``'s unique guard template replaced by ``guard``."""
    copy = json.loads(json.dumps(described))
    for found in copy["entities"]:
        if found["class"] == entity:
            found["unique"][0]["guard"] = guard
    return copy


@pytest.mark.parametrize(
    ("entity", "guard", "says"),
    [
        ("Customer", "STORE#{store_id}#EMAIL#{mail}", "names mail, which Customer does not have"),
        ("Customer", "", "is empty"),
        ("Customer", "  ", "is empty"),
        ("Customer", "EMAIL", "does not contain {email}: every Customer shares one guard"),
        ("Customer", "STORE#{store_id}", "does not contain {email}: every Customer with the same store_id"),
        ("Customer", "STORE#{store_id}#SKU#{email}", "builds the same keys as the guard of Product.sku"),
    ],
)
def test_check_finds_each_guard_that_cannot_guard(entity: str, guard: str, says: str) -> None:
    design = load_design(SHOP)
    report = check(_guard(design.table.describe(), entity, guard))
    (finding,) = [f for f in report.findings if f.rule == "ST003" and f.subject == f"{entity}.email"]
    assert says in finding.message, finding.message
    assert finding.file == str(HERE / "shop_design.py") and finding.line


def test_check_finds_a_guard_whose_keys_are_an_entitys(tmp_path: Path) -> None:
    module = _module(
        tmp_path,
        "clashing_guard_design",
        """
from singletable.model import Entity, Keys, Table

t = Table(name="clash")


class Alias(Entity, table=t, type="ALIAS"):
    name: str
    keys = Keys(PK="NAME#{name}", SK="NAME#{name}")


class User(Entity, table=t, type="USER", unique={"nick": "NAME#{nick}"}):
    user_id: str
    nick: str
    keys = Keys(PK="USER#{user_id}", SK="USER")
""",
    )
    (finding,) = check(module).findings
    assert (finding.rule, finding.subject) == ("ST003", "User.nick")
    assert (
        "builds keys that Alias items also have (PK = 'NAME#{name}', SK = 'NAME#{name}')" in finding.message
    )


# -- minimal and empty designs ------------------------------------------------------------------------------

MINIMAL = 'from singletable.model import Table\n\nt = Table(name="{name}")\n'


def test_a_table_name_dynamodb_refuses(tmp_path: Path) -> None:
    module = _module(tmp_path, "tiny_design", MINIMAL.format(name="t"))
    (finding,) = check(module).findings
    assert finding.rule == "ST002" and "table name 't' is not one DynamoDB accepts" in finding.message
    profile = tmp_path / "traffic.toml"
    profile.write_text("")
    for arguments in (
        ["docs", module, "-o", str(tmp_path / "out")],
        ["cost", module, "--traffic", str(profile)],
    ):
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code == 1
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.output == (
            "Error: the design's table cannot be created: table name 't' is not one DynamoDB accepts: it "
            "must be 3 to 255 characters, each a letter, a digit, '_', '-' or '.'\n"
        )
    assert not (tmp_path / "out").exists()


def test_a_table_without_entities_through_every_tool(tmp_path: Path) -> None:
    module = _module(tmp_path, "bare_design", MINIMAL.format(name="bare"))
    assert check(module).findings == []
    runner = CliRunner()
    docs = runner.invoke(main, ["docs", module, "-o", str(tmp_path / "out")])
    assert docs.exit_code == 0, docs.output
    readme = (tmp_path / "out" / "README.md").read_text()
    assert "No entities declared" in readme and "No named access patterns or collections declared" in readme
    profile = tmp_path / "traffic.toml"
    profile.write_text("")
    cost = runner.invoke(main, ["cost", module, "--traffic", str(profile), "--format", "json"])
    assert cost.exit_code == 0, cost.output
    assert json.loads(cost.output)["on_demand"]["total"] == 0
    for form in ("cloudformation", "terraform", "cdk", "workbench"):
        exported = runner.invoke(main, ["synth", module, "--format", form])
        assert exported.exit_code == 0 and "bare" in exported.output, exported.output
    live = tmp_path / "live.db"
    Engine(str(live)).close()  # a database without the table
    diff = runner.invoke(main, ["diff", module, str(live)])
    assert diff.exit_code == 1 and "table-missing: bare" in diff.output


def test_a_module_without_a_table_is_one_line_for_every_tool(tmp_path: Path) -> None:
    module = _module(tmp_path, "no_table_design", "x = 1\n")
    profile = tmp_path / "traffic.toml"
    profile.write_text("")
    expected = f"design module {module} must declare one singletable.model Table, not 0 (none)"
    for arguments in (
        ["check", module],
        ["docs", module, "-o", str(tmp_path / "out")],
        ["cost", module, "--traffic", str(profile)],
        ["synth", module, "--format", "terraform"],
        ["diff", module, str(tmp_path / "live.db")],
    ):
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code in (1, 2) and expected in result.output, (arguments, result.output)
        assert "Traceback" not in result.output and "--design" not in result.output


def test_design_docs_of_the_shop_label_its_guards() -> None:
    """docs draws the per-store guards by what they guard (needs the guards written)."""
    if not _scoped_guards_work():
        pytest.skip("the model on this tree cannot write a guard scoped to another field")
    documented = design_docs(load_design(SHOP))
    assert "Customer email guard" in documented.pictures["table.svg"]
    assert "Product sku guard" in documented.pictures["table.svg"]
