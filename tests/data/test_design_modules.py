"""Design modules are found one way by every command (``singletable._designs.load_design``), and guard items
are labelled by what they guard.

``import --schema MODULE`` finds a module in the current directory as ``--design`` does, and a schema that
cannot be loaded fails in one line before anything is created (no database, no reject file). ``scan
--design`` names a unique-value guard ``Customer email guard``, scoped guards (``STORE#{store_id}#EMAIL#...``)
included.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from singletable._cli import main
from singletable._designs import DesignError, LoadedDesign, load_design
from singletable.data import Design
from singletable.data import load_design as data_load_design
from singletable.data._design import load_design as old_load_design
from singletable.model import connect

_names = itertools.count()

DESIGN = """
from singletable.model import Entity, Keys, Pattern, Table

people = Table(name="people")


class Person(Entity, table=people, type="PERSON", unique=["email"]):
    person_id: str
    email: str
    keys = Keys(PK="PERSON#{person_id}", SK="PERSON")
    everyone = Pattern(scan=True)
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The working directory, holding a design module with a name no other test uses."""
    name = f"people_design_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(DESIGN)
    (tmp_path / "people.jsonl").write_text(
        '{"PK": {"S": "PERSON#1"}, "SK": {"S": "PERSON"}, "entityType": {"S": "PERSON"}}\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path, name


def test_every_command_finds_a_design_module_in_the_working_directory(here) -> None:
    _, name = here
    runner = CliRunner()
    imported = runner.invoke(main, ["import", "out.db", "people", "people.jsonl", "--schema", name])
    assert imported.exit_code == 0, imported.output
    assert "imported 1 line into people" in imported.output
    scanned = runner.invoke(main, ["scan", "out.db", "people", "--design", name, "--jsonl"])
    assert scanned.exit_code == 0, scanned.output
    for arguments in (["check", name], ["docs", name, "-o", "docs"], ["diff", name, "out.db"]):
        result = runner.invoke(main, arguments)
        assert result.exit_code == 0, (arguments, result.output)


def test_a_schema_that_cannot_be_loaded_creates_nothing(here) -> None:
    where, _ = here
    before = sorted(p.name for p in where.iterdir())
    for extra in ([], ["--on-error", "reject"]):
        result = CliRunner().invoke(
            main, ["import", "out.db", "people", "people.jsonl", "--schema", "no_such_design", *extra]
        )
        assert result.exit_code == 1
        assert result.output.startswith(
            "Error: schema no_such_design: not a DescribeTable JSON file, and cannot import design module "
            "no_such_design: ModuleNotFoundError: No module named 'no_such_design'\n"
        )
        assert "Traceback" not in result.output
        assert sorted(p.name for p in where.iterdir()) == before  # no database, reject file or checkpoint


def test_a_schema_module_that_raises_is_one_line_and_creates_nothing(here) -> None:
    where, _ = here
    (where / "broken_schema.py").write_text("raise RuntimeError('the design is broken')\n")
    result = CliRunner().invoke(
        main, ["import", "out.db", "people", "people.jsonl", "--schema", "broken_schema"]
    )
    assert result.exit_code == 1
    assert "cannot import design module broken_schema: RuntimeError: the design is broken" in result.output
    assert not (where / "out.db").exists()


def test_the_shared_loader_and_the_old_import(here) -> None:
    where, name = here
    loaded = load_design(name)
    assert isinstance(loaded, LoadedDesign) and loaded.table.name == "people"
    assert loaded.module.__name__ == name
    assert isinstance(data_load_design(name), Design) and old_load_design is data_load_design
    with pytest.raises(DesignError, match=r"name one: --design several:NAME$"):
        (where / "several.py").write_text(
            "from singletable.model import Table\na = Table(name='aaa')\nb = Table(name='bbb')\n"
        )
        data_load_design("several")
    with pytest.raises(DesignError, match=r"name one: several:NAME$"):
        load_design("several")
    with pytest.raises(DesignError, match="names no design module"):
        load_design(":table")


SCOPED = """
from singletable.model import Entity, Keys, Table

shop = Table(name="scoped-shop")


class Store(Entity, table=shop, type="STORE"):
    store_id: str
    keys = Keys(PK="STORE#{store_id}", SK="STORE")


class Customer(Entity, table=shop, type="CUSTOMER", unique={"email": "STORE#{store_id}#EMAIL#{email}"}):
    store_id: str
    customer_id: str
    email: str
    keys = Keys(PK="STORE#{store_id}", SK="CUSTOMER#{customer_id}")


class Product(Entity, table=shop, type="PRODUCT", unique=["sku"]):
    store_id: str
    product_id: str
    sku: str
    keys = Keys(PK="STORE#{store_id}", SK="PRODUCT#{product_id}")
"""


def test_guard_items_are_labelled_by_what_they_guard(tmp_path: Path, monkeypatch) -> None:
    """A default guard written by the model, and a scoped one as the model writes it (PK = SK = the rendered
    template, the owner's key in ``owner``), put directly so the test does not depend on the model's
    support for scoped guards."""
    name = f"scoped_shop_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(SCOPED)
    monkeypatch.chdir(tmp_path)
    design = data_load_design(name)
    module = design.module
    db = connect(design.table, str(tmp_path / "shop.db"))
    db.create_table()
    db.create(module.Store(store_id="acme"))
    db.create(module.Product(store_id="acme", product_id="p1", sku="SKU-1"))
    owner = {"M": {"PK": {"S": "STORE#acme"}, "SK": {"S": "CUSTOMER#c1"}}}
    guard = {"PK": {"S": "STORE#acme#EMAIL#a@x.com"}, "SK": {"S": "STORE#acme#EMAIL#a@x.com"}, "owner": owner}
    db.call("PutItem", {"TableName": "scoped-shop", "Item": guard})
    stray = {"PK": {"S": "STORE#acme#EMAIL#b@x.com"}, "SK": {"S": "OTHER"}}  # not a guard: keys differ
    db.call("PutItem", {"TableName": "scoped-shop", "Item": stray})
    db.close()
    result = CliRunner().invoke(
        main, ["scan", "shop.db", "scoped-shop", "--design", name], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]

    def row(pk: str, sk: str) -> str:
        (found,) = [line for line in lines if pk in line.split() and sk in line.split()]
        return found

    assert row("STORE#acme", "STORE").startswith("Store ")
    assert row("STORE#acme", "PRODUCT#p1").startswith("Product ")
    assert row("UNIQUE#PRODUCT#sku#SKU-1", "UNIQUE#PRODUCT#sku#SKU-1").startswith("Product sku guard ")
    guarded = "STORE#acme#EMAIL#a@x.com"
    assert row(guarded, guarded).startswith("Customer email guard ")
    assert row("STORE#acme#EMAIL#b@x.com", "OTHER").startswith("STORE#acme#EMAIL#b@x.com")  # no label
    assert design.label(guard) == "Customer email guard"
    assert design.label({**guard, "owner": {"S": "x"}}) == ""  # an owner that is not a key: not ours
