"""Importing JSON Lines and CSV that are hostile or damaged: lines not JSON, not UTF-8, nested thousands
deep, far over any item's size; gzip truncated or expanding far past the memory an import may use; CSV with a
BOM, huge cells, other encodings. Every line is committed or reported (file, line, key), the counts add up,
memory stays bounded, nothing is a traceback."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest
from hostile_support import import_in_child, rejects, stored
from hypothesis import given, settings
from hypothesis import strategies as st
from look_support import run
from transfer_support import SPEC

from draws import examples
from serving import run_cli
from singletable.data import TransferError, export_table, import_table, open_target

SCHEMA = {"Table": SPEC}
MB = 1024 * 1024
MAX_LINE_BYTES = 8 * MB  # the documented bound on a line (docs/data.md)
# The memory an import may reach (its process and its readers): a few lines' worth over its own ~30 MB.
# A source that would have to be held whole is twice that, so holding it would break the bound.
PEAK_BOUND = 8 * MAX_LINE_BYTES
HUGE = 2 * PEAK_BOUND


def _item_line(key: int, value: str = "v") -> bytes:
    item = {"PK": {"S": f"k{key}"}, "SK": {"N": str(key)}, "s": {"S": value}}
    return json.dumps(item, ensure_ascii=False).encode()


def _deep(depth: int) -> bytes:
    value = '{"L": [' * depth + "]}" * depth
    return f'{{"PK": {{"S": "deep"}}, "SK": {{"N": "1"}}, "v": {value}}}'.encode()


LINES = st.lists(
    st.one_of(
        st.tuples(st.just("item"), st.integers(0, 30)),  # keys repeat: later lines replace earlier ones
        st.tuples(st.just("garbage"), st.binary(max_size=30).map(lambda b: b"#" + b.replace(b"\n", b""))),
        st.tuples(st.just("deep"), st.integers(33, 3000)),
        st.tuples(st.just("latin-1"), st.integers(0, 30)),
        st.tuples(st.just("blank"), st.just(0)),
    ),
    max_size=40,
)


def _write_lines(lines: list[tuple[str, object]], bom: bool) -> tuple[bytes, dict[int, str]]:
    """The file's bytes and, by line number, what each non-blank line is ('good' or 'bad')."""
    out, kinds = [], {}
    for number, (kind, value) in enumerate(lines, 1):
        if kind == "item":
            out.append(_item_line(value))  # type: ignore[arg-type]
        elif kind == "garbage":
            out.append(value)  # type: ignore[arg-type]
        elif kind == "deep":
            out.append(_deep(value))  # type: ignore[arg-type]
        elif kind == "latin-1":
            out.append(_item_line(value, "café").replace("é".encode(), b"\xe9"))  # type: ignore[arg-type]
        else:
            out.append(b"   ")
        if kind != "blank":
            kinds[number] = "good" if kind == "item" else "bad"
    data = b"\n".join(out) + (b"\n" if out else b"")
    return (b"\xef\xbb\xbf" + data if bom else data), kinds


@settings(max_examples=examples(30))
@given(lines=LINES, bom=st.booleans(), gzipped=st.booleans(), cut=st.none() | st.floats(0, 0.99))
def test_every_json_line_is_committed_or_rejected_and_the_counts_add_up(lines, bom, gzipped, cut):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        data, kinds = _write_lines(lines, bom)
        source = root / ("items.jsonl.gz" if gzipped else "items.jsonl")
        stored_bytes = gzip.compress(data, mtime=0) if gzipped else data
        kept = int(len(stored_bytes) * cut) if gzipped and cut is not None else len(stored_bytes)
        truncated = 0 < kept < len(stored_bytes)  # cut to nothing: an empty file, an empty source
        source.write_bytes(stored_bytes[:kept])
        reject_file, db = root / "rejects.jsonl", root / "t.db"
        summary = import_table(
            str(db), "tbl", source, format="jsonl", schema=SCHEMA, on_error="reject", reject_file=reject_file
        )
        records = rejects(reject_file)
        table = stored(db, "tbl")
        assert summary.read == summary.items + summary.rejected == summary.items + len(records)
        assert summary.items - summary.overwritten == len(table)
        rejected_lines = {r["line"] for r in records}
        if kept == 0:
            assert (summary.read, records, table) == (0, [], {})
            return
        if truncated:
            assert summary.damaged == [str(source)]
            assert any("gzip" in r["error"] for r in records)
            return
        assert summary.damaged == []
        assert rejected_lines == {n for n, kind in kinds.items() if kind == "bad"}
        assert summary.items == sum(kind == "good" for kind in kinds.values())
        for record in records:
            assert record["file"] == str(source) and record["error"]
        wanted = {(f"k{v}", str(v)) for kind, v in lines if kind == "item"}
        assert set(table) == wanted


@settings(max_examples=examples(15))
@given(lines=LINES)
def test_stop_mode_stops_at_the_first_bad_line_with_its_number(lines):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        data, kinds = _write_lines(lines, bom=False)
        source = root / "items.jsonl"
        source.write_bytes(data)
        bad = [n for n, kind in kinds.items() if kind == "bad"]
        if not bad:
            summary = import_table(str(root / "t.db"), "tbl", source, format="jsonl", schema=SCHEMA)
            assert summary.read == summary.items == len(kinds)
            return
        with pytest.raises(TransferError) as caught:
            import_table(str(root / "t.db"), "tbl", source, format="jsonl", schema=SCHEMA)
        assert caught.value.message.startswith(f"{source} line {bad[0]}")
        assert caught.value.summary.items == sum(1 for n in kinds if n < bad[0])


def test_what_each_bad_line_is_reported_as(tmp_path):
    source = tmp_path / "items.jsonl"
    source.write_bytes(
        b"\n".join(
            [
                _item_line(1),
                _deep(40),
                _deep(5000),
                _item_line(2, "café").replace("é".encode(), b"\xe9"),
                b"\xff\xfe not json",
            ]
        )
        + b"\n"
    )
    reject_file = tmp_path / "rejects.jsonl"
    summary = import_table(
        str(tmp_path / "t.db"),
        "tbl",
        source,
        format="jsonl",
        schema=SCHEMA,
        on_error="reject",
        reject_file=reject_file,
    )
    assert (summary.read, summary.items, summary.rejected) == (5, 1, 4)
    errors = {r["line"]: r["error"] for r in rejects(reject_file)}
    deep_path = "v" + "[0]" * 32
    assert errors[2] == f"{deep_path}: nested deeper than DynamoDB's 32 levels of lists and maps"
    assert errors[3] == "JSON nested deeper than DynamoDB's 32 levels of lists and maps"
    assert errors[4] == "not UTF-8 text (byte 0xe9 at byte 54 of the line): save the file as UTF-8"
    assert errors[5] == "not UTF-8 text (byte 0xff at byte 1 of the line): save the file as UTF-8"


# -- bounded memory ---------------------------------------------------------------------------------------


def _sparse_line(path: Path, size: int, before: bytes, after: bytes) -> None:
    """A file whose middle line is ``size`` NUL bytes, written as a hole (nothing of it on disk)."""
    with open(path, "wb") as handle:
        handle.write(before)
        handle.truncate(len(before) + size)
    with open(path, "ab") as handle:
        handle.write(b"\n" + after)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_line_twice_the_memory_bound_is_refused_in_bounded_memory_and_only_its_start_kept(tmp_path, fmt):
    if fmt == "jsonl":
        before, after = _item_line(1) + b"\n", _item_line(3) + b"\n"
    else:  # cells in DynamoDB JSON, as the CSV export writes them
        before = b'PK,SK\n"{""S"": ""k1""}","{""N"": ""1""}"\n'
        after = b'"{""S"": ""k3""}","{""N"": ""3""}"\n'
    source = tmp_path / f"big.{fmt}"
    _sparse_line(source, HUGE, before, after)
    reject_file = tmp_path / "rejects.jsonl"
    done = import_in_child(source, fmt, tmp_path / "t.db", reject_file)
    summary = done["summary"]
    assert (summary["read"], summary["items"], summary["rejected"]) == (3, 2, 1)
    assert done["peak"] < PEAK_BOUND, done["peak"]
    (record,) = rejects(reject_file)
    assert record["line"] == (2 if fmt == "jsonl" else 3)
    assert record["error"].startswith(f"a line of {HUGE:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit")
    assert len(record["text"]) <= 200
    assert reject_file.stat().st_size < 4096


def test_a_gzip_bomb_streams_through_in_bounded_memory(tmp_path):
    member = gzip.compress(bytes(MB), 9)  # 1 MB of NULs in about 1 KB; members one after another
    source = tmp_path / "bomb.jsonl.gz"
    source.write_bytes(
        gzip.compress(_item_line(1) + b"\n") + member * (HUGE // MB) + gzip.compress(b"\n" + _item_line(2))
    )
    reject_file = tmp_path / "rejects.jsonl"
    done = import_in_child(source, "jsonl", tmp_path / "t.db", reject_file)
    summary = done["summary"]
    assert (summary["read"], summary["items"], summary["rejected"], summary["damaged"]) == (3, 2, 1, [])
    assert done["peak"] < PEAK_BOUND, done["peak"]
    assert reject_file.stat().st_size < 4096


# -- CSV --------------------------------------------------------------------------------------------------

CELLS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20).map(lambda t: "x" + t)


@settings(max_examples=examples(25))
@given(
    rows=st.lists(st.tuples(CELLS, CELLS), max_size=15),
    bom=st.booleans(),
    latin=st.sets(st.integers(0, 14), max_size=3),
)
def test_csv_rows_with_quotes_newlines_and_a_bom_round_trip_and_bad_bytes_are_rejected(rows, bom, latin):
    import csv
    import io

    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        text = io.StringIO()
        writer = csv.writer(text)
        writer.writerow(["PK", "SK", "v"])
        encoded = [text.getvalue().encode()]
        bad_rows = set()
        for number, (pk, value) in enumerate(rows):
            line = io.StringIO()
            csv.writer(line).writerow([f"{pk}#{number}", str(number), value])
            raw = line.getvalue().encode()
            if number in latin:
                raw = raw.replace(b"x", b"\xe9", 1)
                bad_rows.add(number)
            encoded.append(raw)
        source = root / "items.csv"
        source.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"".join(encoded))
        reject_file, db = root / "rejects.jsonl", root / "t.db"
        summary = import_table(
            str(db),
            "tbl",
            source,
            format="csv",
            plain=True,
            schema=SCHEMA,
            on_error="reject",
            reject_file=reject_file,
        )
        assert summary.read == summary.items + summary.rejected == len(rows)
        assert summary.rejected == len(bad_rows)
        assert all("not UTF-8 text" in r["error"] for r in rejects(reject_file))
        table = stored(db, "tbl")
        for number, (pk, value) in enumerate(rows):
            if number not in bad_rows:
                assert table[(f"{pk}#{number}", str(number))]["v"] == {"S": value}


def test_our_own_csv_export_of_a_200_kb_attribute_imports_back(tmp_path):
    big = {"PK": {"S": "big"}, "SK": {"N": "1"}, "blob": {"S": "é" * 100_000 + "x" * 100_000}}
    with open_target(str(tmp_path / "a.db")) as target:
        target.call("CreateTable", TableName="tbl", **SPEC)
        target.call("PutItem", TableName="tbl", Item=big)
        export_table(target, "tbl", tmp_path / "items.csv", format="csv")
    summary = import_table(str(tmp_path / "b.db"), "tbl", tmp_path / "items.csv", format="csv", schema=SCHEMA)
    assert (summary.items, summary.rejected) == (1, 0)
    assert stored(tmp_path / "b.db", "tbl")[("big", "1")]["blob"] == big["blob"]


def test_utf16_csv_is_a_clear_error_naming_the_file(tmp_path):
    source = tmp_path / "items.csv"
    source.write_text("PK,SK\na,1\n", encoding="utf-16")
    with pytest.raises(TransferError) as caught:
        import_table(str(tmp_path / "t.db"), "tbl", source, format="csv", plain=True, schema=SCHEMA)
    assert caught.value.message == (
        f"{source} line 1: UTF-16 or UTF-32 text (its first bytes say so): import reads UTF-8; convert the "
        "file, for example with iconv -f UTF-16 -t UTF-8; the rest of this file is not read"
    )


# -- duplicate keys ---------------------------------------------------------------------------------------


def test_lines_replacing_an_item_are_counted_as_such(tmp_path):
    source = tmp_path / "items.jsonl"
    source.write_bytes(b"".join(_item_line(i % 10, str(i)) + b"\n" for i in range(100)))
    summary = import_table(str(tmp_path / "t.db"), "tbl", source, format="jsonl", schema=SCHEMA, chunk_size=7)
    assert (summary.read, summary.items, summary.overwritten, summary.rejected) == (100, 100, 90, 0)
    assert len(stored(tmp_path / "t.db", "tbl")) == 10
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    done = run("import", str(tmp_path / "u.db"), "tbl", str(source), "--schema", str(schema))
    assert done.exit_code == 0, done.output
    assert done.stdout.strip().endswith(": 10 new items, 90 replacing an item with the same key, 0 rejected")


# -- user JSON on the command line ------------------------------------------------------------------------

DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(
    "arguments",
    [
        ("put", "{db}", "tbl", '{{"PK": {{"L": {deep}}}}}'),
        ("get", "{db}", "tbl", "--key-json", '{{"PK": {{"L": {deep}}}}}'),
        ("scan", "{db}", "tbl", "--filter", "PK = :v", "--values", '{{":v": {{"L": {deep}}}}}'),
        ("scan", "{db}", "tbl", "--filter", "PK = :v", "--plain", "--values", '{{":v": {deep}}}'),
        ("scan", "{db}", "tbl", "--filter", "#p = :v", "--names", '{{"#p": {deep}}}', "--values", "{{}}"),
    ],
)
def test_json_nested_thousands_deep_on_the_command_line_is_one_error_line(tmp_path, arguments):
    db = _database_with_a_table(tmp_path)
    done = run(*(a.format(db=db, deep=DEEP) for a in arguments))
    assert (done.exit_code, type(done.exception)) == (2, SystemExit)
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(_too_deep(arguments[0]))


def test_json_nested_thousands_deep_ends_a_real_process_with_one_error_line(tmp_path):
    db = _database_with_a_table(tmp_path)
    done = run_cli("put", str(db), "tbl", f'{{"PK": {{"L": {DEEP}}}}}')
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(_too_deep("put"))


def _database_with_a_table(tmp_path: Path) -> Path:
    db = tmp_path / "t.db"
    with open_target(str(db)) as target:
        target.call("CreateTable", TableName="tbl", **SPEC)
    return db


def _too_deep(command: str) -> str:
    return "JSON nested deeper than DynamoDB's 32 levels of lists and maps" + (
        " (nothing was written)" if command == "put" else ""
    )
