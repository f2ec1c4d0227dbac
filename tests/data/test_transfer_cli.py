"""``singletable export``, ``import`` and ``copy`` as a user runs them: summaries on stdout, nothing else in
a pipe, one-line errors and what was committed on stderr, exit codes fit for scripts. One test runs each
command as a real process; the rest run the same command line in this process (tests/cli_runs.py)."""

from __future__ import annotations

import json
from functools import partial

from transfer_support import SPEC, contents, create, full_item, load, table_name

from cli_runs import run_in_process
from serving import run_cli
from singletable.data import open_target, render_item
from singletable.engine import Engine

item_json = partial(render_item, spaced=True)  # one item as export writes it


def _source(tmp_path, n=40):
    name = table_name()
    db = str(tmp_path / "a.db")
    with open_target(db) as target:
        create(target, name)
        load(target, name, [full_item(i) for i in range(n)])
    return db, name


def test_export_import_copy_on_files_print_one_line_each_and_nothing_on_stderr(tmp_path):
    # real processes: what a script in a pipe sees of each command (nothing on stderr, exit status 0)
    db, name = _source(tmp_path)
    (tmp_path / "schema.json").write_text(json.dumps({"Table": SPEC}))
    exported = run_cli("export", db, name, str(tmp_path / "out"))
    assert exported.returncode == 0 and exported.stderr == ""
    assert (
        exported.stdout.startswith("exported 40 items (")
        and f"from {name} to {tmp_path / 'out'}" in exported.stdout
    )
    imported = run_cli(
        "import",
        str(tmp_path / "b.db"),
        name,
        str(tmp_path / "out"),
        "--schema",
        str(tmp_path / "schema.json"),
    )
    assert imported.returncode == 0 and imported.stderr == ""
    assert imported.stdout.startswith(f"imported 40 lines into {name} in ")
    assert imported.stdout.strip().endswith(
        ": 40 new items, 0 replacing an item with the same key, 0 rejected"
    )
    copied = run_cli("copy", db, str(tmp_path / "c.db"), "--table", name)
    assert copied.returncode == 0 and copied.stderr == ""
    assert copied.stdout.startswith(f"copied 40 items of {name} in ")
    assert copied.stdout.rstrip().endswith(f"count: 40 in {db}, 40 in {tmp_path / 'c.db'}")
    assert (
        contents(str(tmp_path / "c.db"), name) == contents(db, name) == contents(str(tmp_path / "b.db"), name)
    )


def test_formats_are_guessed_from_the_file_name_and_json_summaries(tmp_path):
    db, name = _source(tmp_path, 5)
    for file_name in ("items.jsonl", "items.csv", "items.jsonl.gz"):
        out = run_in_process("export", db, name, str(tmp_path / file_name), "--json")
        assert json.loads(out.stdout)["items"] == 5, out.stderr
        back = run_in_process(
            "import",
            db,
            f"{name}-{file_name[6:9]}",
            str(tmp_path / file_name),
            "--json",
            "--schema",
            db_schema(tmp_path, db, name),
        )
        assert json.loads(back.stdout)["items"] == 5, back.stderr


def test_an_explicit_data_format_exports_with_no_word_of_synth(tmp_path):
    """export's --format names the data formats; only its old design spelling speaks of synth."""
    db, name = _source(tmp_path, 3)
    for format_ in ("dynamodb", "jsonl", "csv"):
        destination = tmp_path / f"out-{format_}"  # no suffix: the format comes from --format alone
        out = run_in_process("export", db, name, str(destination), "--format", format_, "--json")
        assert out.returncode == 0 and out.stderr == "", out.stderr
        assert json.loads(out.stdout)["items"] == 3
        assert destination.is_dir() if format_ == "dynamodb" else destination.is_file()
    assert (tmp_path / "out-jsonl").read_text().count("\n") == 3
    assert (tmp_path / "out-csv").read_text().count("\n") == 4  # the header, then the items


def db_schema(tmp_path, db, name):
    path = tmp_path / "described.json"
    with open_target(db) as target:
        path.write_text(json.dumps(target.call("DescribeTable", TableName=name), default=str))
    return str(path)


def test_a_bad_line_stops_the_import_with_its_file_line_key_and_the_committed_count(tmp_path):
    source = tmp_path / "items.jsonl"
    source.write_text(
        item_json({"PK": {"S": "a"}, "SK": {"N": "1"}}) + "\n" + item_json({"PK": {"S": "b"}}) + "\n"
    )
    (tmp_path / "schema.json").write_text(json.dumps({"Table": SPEC}))
    result = run_in_process(
        "import", str(tmp_path / "a.db"), "tbl", str(source), "--schema", str(tmp_path / "schema.json")
    )
    assert result.returncode == 1 and result.stdout == ""
    checkpoint = f"{source}.tbl.import-checkpoint.json"
    assert result.stderr.splitlines() == [
        f'Error: {source} line 2 (key PK="b"): ValidationException: '
        "One of the required keys was not given a value (1 item committed to tbl)",
        f"checkpoint {checkpoint}: run the same command with --resume to continue",
    ]
    again = run_in_process("import", str(tmp_path / "a.db"), "tbl", str(source))
    assert again.returncode == 1
    assert again.stderr == (
        f"Error: checkpoint {checkpoint} exists (an interrupted import): resume it, or delete it to restart\n"
    )
    rejected = run_in_process(
        "import", str(tmp_path / "a.db"), "tbl", str(source), "--resume", "--on-error", "reject"
    )
    assert rejected.returncode == 0, rejected.stderr
    assert ": 1 new item, 0 replacing an item with the same key, 1 rejected (" in rejected.stdout
    assert json.loads((tmp_path / "items.jsonl.tbl.rejects.jsonl").read_text())["line"] == 2


def test_unknown_table_and_missing_source_are_one_line_errors(tmp_path):
    Engine(str(tmp_path / "a.db")).close()
    missing = run_in_process("export", str(tmp_path / "a.db"), "absent", str(tmp_path / "out"))
    assert (missing.returncode, missing.stderr) == (
        1,
        f"Error: table absent does not exist in {tmp_path / 'a.db'}\n",
    )
    nowhere = run_in_process("import", str(tmp_path / "a.db"), "tbl", str(tmp_path / "nowhere.jsonl"))
    assert (nowhere.returncode, nowhere.stderr) == (
        1,
        f"Error: {tmp_path / 'nowhere.jsonl'}: no such file or directory\n",
    )


def test_copy_between_serve_and_a_file(http_server, tmp_path):
    db, name = _source(tmp_path, 30)
    up = run_in_process("copy", db, http_server.endpoint, "--table", name, "--segments", "2")
    assert up.returncode == 0, up.stderr
    down = run_in_process("copy", http_server.endpoint, str(tmp_path / "d.db"), "--table", name, "--json")
    summary = json.loads(down.stdout)
    assert (summary["source_count"], summary["destination_count"], summary["counts_match"]) == (30, 30, True)
    assert contents(str(tmp_path / "d.db"), name) == contents(db, name)


def test_copy_without_table_copies_every_table(tmp_path):
    db, first = _source(tmp_path, 3)
    with open_target(db) as target:
        create(target, "second")
        load(target, "second", [full_item(1)])
    result = run_in_process("copy", db, str(tmp_path / "all.db"))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 2
    with open_target(str(tmp_path / "all.db")) as target:
        assert sorted(target.call("ListTables")["TableNames"]) == sorted([first, "second"])


def test_an_unwritable_destination_and_an_unreadable_checkpoint_are_one_line_errors(tmp_path):
    db = str(tmp_path / "a.db")
    with open_target(db) as target:
        name = table_name()
        create(target, name)
    nowhere = tmp_path / "missing" / "out.jsonl"
    unwritable = run_in_process("export", db, name, str(nowhere))
    assert (unwritable.returncode, unwritable.stdout, unwritable.stderr) == (
        1,
        "",
        f"Error: [Errno 2] No such file or directory: '{nowhere}'\n",
    )
    source, checkpoint = tmp_path / "in.jsonl", tmp_path / "cp.json"
    source.write_text(item_json({"PK": {"S": "a"}, "SK": {"N": "1"}}) + "\n")
    checkpoint.write_text("not json")
    unreadable = run_in_process("import", db, name, str(source), "--checkpoint", str(checkpoint), "--resume")
    assert (unreadable.returncode, unreadable.stderr) == (
        1,
        f"Error: checkpoint {checkpoint} cannot be read (Expecting value: line 1 column 1 (char 0)): "
        "delete it to start over\n",
    )


def test_every_count_in_a_summary_agrees_in_number(tmp_path):
    """One line, one item: ``imported 1 line ... 1 new item``, ``exported 1 item``, ``copied 1 item``."""
    source = tmp_path / "one.jsonl"
    source.write_text(item_json({"PK": {"S": "a"}, "SK": {"N": "1"}}) + "\n")
    (tmp_path / "schema.json").write_text(json.dumps({"Table": SPEC}))
    db, schema = str(tmp_path / "a.db"), str(tmp_path / "schema.json")
    imported = run_in_process("import", db, "tbl", str(source), "--schema", schema)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("imported 1 line into tbl in ")
    assert imported.stdout.endswith(": 1 new item, 0 replacing an item with the same key, 0 rejected\n")
    exported = run_in_process("export", db, "tbl", str(tmp_path / "out.jsonl"))
    assert exported.stdout.startswith("exported 1 item (")
    copied = run_in_process("copy", db, str(tmp_path / "b.db"))
    assert copied.stdout.startswith("copied 1 item of tbl in ")
