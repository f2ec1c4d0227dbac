"""Resuming an import against a source that changed since it stopped: refused, naming the file and what
changed, instead of skipping lines that are no longer the ones committed. An unchanged source resumes and
ends with every line counted once."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hostile_support import build_export, gzipped, item, stored
from hypothesis import given, settings
from hypothesis import strategies as st
from transfer_support import SPEC

from draws import examples
from singletable.data import FormatError, TransferInterrupted, import_table

SCHEMA = {"Table": SPEC}


def _line(i: int) -> str:
    return json.dumps({"PK": {"S": f"k{i}"}, "SK": {"N": str(i)}, "v": {"S": "abcdefgh"}}) + "\n"


def _interrupted(root: Path, source: Path, fmt: str = "jsonl") -> dict:
    with pytest.raises(TransferInterrupted):
        import_table(
            str(root / "t.db"), "tbl", source, format=fmt, schema=SCHEMA, chunk_size=50, stop_after_chunks=2
        )
    return os.stat(source)


def _same_times(path: Path, status: os.stat_result) -> None:
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


CHANGES = st.one_of(
    st.tuples(st.just("byte before"), st.integers(0, 99)),  # a line already imported, same size and time
    st.tuples(st.just("insert"), st.integers(0, 99)),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("append"), st.integers(1, 5)),
    st.tuples(st.just("touch"), st.just(0)),
    st.tuples(st.just("truncate"), st.integers(0, 99)),
)


@settings(max_examples=examples(20))
@given(change=CHANGES)
def test_resuming_a_changed_json_lines_file_is_refused_saying_what_changed(change):
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        source = root / "items.jsonl"
        lines = [_line(i) for i in range(300)]
        source.write_text("".join(lines))
        before = _interrupted(root, source)
        kind, at = change
        if kind == "byte before":
            lines[at] = lines[at].replace("abcdefgh", "abcdefgX")
        elif kind == "insert":
            lines.insert(at, _line(1000 + at))
        elif kind == "delete":
            del lines[at]
        elif kind == "append":
            lines += [_line(2000 + i) for i in range(at)]
        elif kind == "truncate":
            lines = lines[:at]
        source.write_text("".join(lines))
        if kind in ("byte before", "touch"):
            _same_times(source, before) if kind == "byte before" else os.utime(source, ns=(1, 1))
        with pytest.raises(FormatError) as caught:
            import_table(str(root / "t.db"), "tbl", source, format="jsonl", resume=True)
        message = str(caught.value)
        assert message.startswith(f"{source} changed since the import stopped: ")
        assert message.endswith("delete the checkpoint to start over")
        assert "\n" not in message
        assert len(stored(root / "t.db", "tbl")) == 100  # nothing more written


def test_an_unchanged_source_resumes_and_every_line_is_counted_once(tmp_path):
    source = tmp_path / "items.jsonl"
    source.write_text("".join(_line(i) for i in range(300)))
    _interrupted(tmp_path, source)
    summary = import_table(str(tmp_path / "t.db"), "tbl", source, format="jsonl", resume=True)
    assert (summary.read, summary.items, summary.overwritten, summary.rejected) == (300, 300, 0, 0)
    assert summary.resumed_from == 100


def test_a_changed_data_file_of_an_export_already_imported_is_refused(tmp_path):
    files = [gzipped([item(n, i) for i in range(60)]) for n in range(3)]
    export = build_export(tmp_path / "bucket", files)
    first = export / "data" / "file0.json.gz"
    _interrupted(tmp_path, tmp_path / "bucket", fmt="dynamodb")  # into file 1 by now
    first.write_bytes(gzipped([item(0, i) for i in range(61)]))
    with pytest.raises(FormatError) as caught:
        import_table(str(tmp_path / "t.db"), "tbl", tmp_path / "bucket", resume=True)
    assert str(caught.value).startswith(f"{first.resolve()} changed since the import stopped: its size was ")
