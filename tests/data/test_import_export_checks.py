"""Importing an export directory that lies: manifests naming files outside the export, malformed manifest
entries, data files that do not match their md5Checksum or itemCount (truncated, flipped bytes, wrong
manifest). Every data file is imported whole or not at all, every item is committed or counted as
rejected, and the counts add up."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path

import pytest
from hostile_support import build_export, gzipped, item, md5_base64, rejects, stored
from hypothesis import example, given, settings
from hypothesis import strategies as st
from look_support import run
from transfer_support import SPEC

from draws import examples
from singletable.data import FormatError, TransferError, import_table

SCHEMA = {"Table": SPEC}
SECRET = [{"PK": {"S": "secret"}, "SK": {"N": "1"}, "password": {"S": "hunter2"}}]

# -- paths out of the export ------------------------------------------------------------------------------

ESCAPES = st.sampled_from(
    [
        "../../../secret.json.gz",
        "../secret.json.gz",
        "/{root}/secret.json.gz",
        "prefix/AWSDynamoDB/x/data/../../../../secret.json.gz",
        "data/../../../secret.json.gz",
        "data/./../../../secret.json.gz",
        "data/link.json.gz",  # a symbolic link to the secret file
        "data/../../../no-such-file.json.gz",
    ]
)


@settings(max_examples=examples(12))
@given(key=ESCAPES, position=st.integers(0, 2))
def test_a_data_file_key_leading_out_of_the_export_is_refused_naming_the_entry(key, position):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        (root / "secret.json.gz").write_bytes(gzipped(SECRET))
        files = [gzipped([item(n, 0)]) for n in range(3)]
        export = build_export(root / "bucket", files)
        (export / "data" / "link.json.gz").symlink_to(root / "secret.json.gz")
        entries = [json.loads(line) for line in (export / "manifest-files.json").read_text().splitlines()]
        entries[position]["dataFileS3Key"] = key.format(root=str(root).strip("/"))
        (export / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
        reject_file, db = root / "rejects.jsonl", root / "t.db"
        for on_error in ("stop", "reject"):
            with pytest.raises(FormatError) as caught:
                import_table(
                    str(db), "tbl", export, schema=SCHEMA, on_error=on_error, reject_file=reject_file
                )
            message = str(caught.value)
            assert message.startswith(f"{export / 'manifest-files.json'} line {position + 1}: dataFileS3Key ")
            assert message.endswith(f"leads out of the export directory {export}: refused")
        assert "hunter2" not in (reject_file.read_text() if reject_file.exists() else "")
        assert ("secret", "1") not in stored(db, "tbl")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
FIELDS = st.sampled_from(["dataFileS3Key", "itemCount", "md5Checksum"])


@settings(max_examples=examples(40))
@example(field="itemCount", value=3, whole=None)  # more items promised than the file holds
@given(field=FIELDS, value=JSON_VALUES, whole=st.none() | JSON_VALUES)
def test_every_malformed_manifest_entry_is_a_one_line_error_naming_file_and_line(field, value, whole):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        data = gzipped([item(0, 0), item(0, 1)])
        export = build_export(root, [data])
        entry = json.loads((export / "manifest-files.json").read_text())
        entry[field] = value
        text = json.dumps(entry if whole is None or isinstance(whole, dict) else whole)
        (export / "manifest-files.json").write_text(text + "\n")
        try:
            summary = import_table(str(root / "t.db"), "tbl", export, schema=SCHEMA, on_error="reject")
        except FormatError as error:
            assert str(error).startswith(f"{export / 'manifest-files.json'} line 1: ")
            assert "\n" not in str(error)
            return
        assert summary.read == summary.items + summary.rejected
        if summary.damaged:  # a count or checksum the file does not match: the file is rejected whole,
            # counted as what it holds or promises, the larger (what a truncated file lost)
            assert summary.items == 0 and summary.rejected == max(2, entry.get("itemCount") or 0)
        else:  # accepted: the entry was well formed after all (an itemCount of 2, a missing checksum...)
            assert summary.read == 2


def test_manifest_entry_errors_say_what_is_wrong(tmp_path):
    export = build_export(tmp_path, [gzipped([item(0, 0)])])
    manifest = export / "manifest-files.json"
    good = json.loads(manifest.read_text())
    cases = [
        ("[1, 2]", "a JSON list, not an object naming a data file"),
        ("{", "not JSON (each line is one JSON object naming a data file)"),
        (
            json.dumps({**good, "dataFileS3Key": 7}),
            "dataFileS3Key must be the data file's S3 key (text), not 7",
        ),
        (json.dumps({**good, "itemCount": "3"}), "itemCount must be a whole number of items, not '3'"),
        (json.dumps({**good, "itemCount": True}), "itemCount must be a whole number of items, not True"),
        (json.dumps({**good, "md5Checksum": "abc"}), "md5Checksum must be an MD5 in base64"),
        (
            json.dumps({**good, "dataFileS3Key": "data/a\u0000b"}),
            "is not a file name here (embedded null byte)",
        ),
        (json.dumps(good) + "\n" + json.dumps(good), "names the same data file as line 1"),
    ]
    for text, expected in cases:
        manifest.write_text(text + "\n")
        with pytest.raises(FormatError, match=r"manifest-files\.json line \d: ") as caught:
            import_table(str(tmp_path / "t.db"), "tbl", export, schema=SCHEMA)
        assert expected in str(caught.value)


# -- data files against their manifest entries ------------------------------------------------------------

DAMAGE = st.one_of(
    st.just(("none",)),
    st.tuples(st.just("truncate"), st.floats(0.0, 0.99)),
    st.tuples(st.just("flip"), st.floats(0.0, 0.999), st.integers(1, 255)),
    st.tuples(st.just("flip without md5"), st.floats(0.0, 0.999), st.integers(1, 255)),
    st.tuples(
        st.just("md5"),
    ),
    st.tuples(st.just("count"), st.integers(-3, 3).filter(bool)),
)


def _damage(data: bytes, entry: dict, damage: tuple) -> tuple[bytes, bool]:
    """The file's bytes and manifest entry after ``damage``; whether the file must be refused."""
    kind = damage[0]
    if kind == "truncate":
        return data[: int(len(data) * damage[1])], True
    if kind.startswith("flip"):
        position = int(len(data) * damage[1])
        flipped = data[:position] + bytes([data[position] ^ damage[2]]) + data[position + 1 :]
        if kind == "flip without md5":
            del entry["md5Checksum"]
            return flipped, None  # the gzip stream may or may not tell (a flipped header byte is harmless)
        return flipped, True
    if kind == "md5":
        entry["md5Checksum"] = md5_base64(b"another file")
        return data, True
    if kind == "count":
        entry["itemCount"] = max(0, entry["itemCount"] + damage[1])
        return data, entry["itemCount"] != len(gzip.decompress(data).splitlines())
    return data, False


@settings(max_examples=examples(30))
@given(
    sizes=st.lists(st.integers(0, 40), min_size=1, max_size=4),
    damages=st.lists(DAMAGE, min_size=4, max_size=4),
)
def test_each_data_file_is_imported_whole_or_rejected_whole_and_the_counts_add_up(sizes, damages):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        originals = [[item(n, i, balance=1000 + i) for i in range(size)] for n, size in enumerate(sizes)]
        export = build_export(root / "ok", [gzipped(items) for items in originals])
        entries = [json.loads(line) for line in (export / "manifest-files.json").read_text().splitlines()]
        refused: list[bool | None] = []
        for number, entry in enumerate(entries):
            path = export / "data" / f"file{number}.json.gz"
            data, refuse = _damage(path.read_bytes(), entry, damages[number])
            path.write_bytes(data)
            refused.append(refuse)
        (export / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
        reject_file, db = root / "rejects.jsonl", root / "t.db"
        summary = import_table(
            str(db), "tbl", export, schema=SCHEMA, on_error="reject", reject_file=reject_file
        )
        table = stored(db, "tbl")
        records = rejects(reject_file)
        assert summary.read == summary.items + summary.rejected
        assert summary.rejected == sum(r.get("lines", 1) for r in records)
        expected_items = 0
        for number, items in enumerate(originals):
            path = str(export / "data" / f"file{number}.json.gz")
            keys = {(it["PK"]["S"], it["SK"]["N"]) for it in items}
            was_refused = path in summary.damaged
            if refused[number] is not None:
                assert was_refused == refused[number], (number, damages[number])
            if was_refused:
                assert not keys & set(table), "a refused data file was partly imported"
                (record,) = [r for r in records if r["file"] == path]
                assert record["lines"] >= len(items) and record["line"] is None
            else:
                expected_items += len(items)
                for it in items:  # every item as exported: no flipped digit committed
                    assert table[(it["PK"]["S"], it["SK"]["N"])]["balance"] == {"N": int(it["balance"]["N"])}
        assert summary.items == expected_items == len(table)


def test_stop_mode_names_the_entry_and_commits_nothing_of_the_damaged_file(tmp_path):
    files = [gzipped([item(0, i) for i in range(5)]), gzipped([item(1, i, balance=9042) for i in range(5)])]
    export = build_export(tmp_path, files)
    entries = [json.loads(line) for line in (export / "manifest-files.json").read_text().splitlines()]
    # a corrupted but parseable file: the balance 1042 became 9042, and the manifest says what was exported
    entries[1]["md5Checksum"] = md5_base64(gzipped([item(1, i) for i in range(5)]))
    (export / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
    with pytest.raises(TransferError) as caught:
        import_table(str(tmp_path / "t.db"), "tbl", export, schema=SCHEMA)
    message = caught.value.message
    assert message.startswith(
        f"{export / 'manifest-files.json'} line 2: data file {export / 'data' / 'file1.json.gz'}: its MD5 is "
    )
    assert message.endswith("the file is damaged or not the one exported; none of its items imported")
    assert caught.value.summary.items == 5
    assert sorted(stored(tmp_path / "t.db", "tbl")) == [(f"f0#{i}", str(i)) for i in range(5)]


def test_the_cli_exits_1_when_a_data_file_is_rejected_whole(tmp_path):
    data = gzipped([item(0, i) for i in range(2542)])
    export = build_export(tmp_path / "bucket", [gzipped([item(1, 0)]), data[: len(data) // 2]])
    entries = [json.loads(line) for line in (export / "manifest-files.json").read_text().splitlines()]
    entries[1].update(itemCount=2542, md5Checksum=md5_base64(data))
    (export / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
    db = tmp_path / "t.db"
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    done = run(
        "import", str(db), "tbl", str(tmp_path / "bucket"), "--schema", str(schema), "--on-error", "reject"
    )
    assert done.exit_code == 1, done.output
    assert done.stdout.startswith("imported 2,543 lines into tbl in ")
    assert done.stdout.strip().endswith(": 1 new item, 0 replacing an item with the same key, 2,542 rejected")
    damaged = export / "data" / "file1.json.gz"
    assert done.stderr == (
        f"Error: 1 source file could not be read whole (what could not be read is in no reject file): "
        f"{damaged}\n"
    )
    assert "Traceback" not in done.stderr
    assert os.stat(tmp_path / "bucket.tbl.rejects.jsonl").st_mode & 0o777 == 0o600
