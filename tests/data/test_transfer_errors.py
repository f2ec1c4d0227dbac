"""Bad input and refusing targets never lose data or hang: each gets a message naming file, line and key,
and the rest is completed (``on_error="reject"``) or resumable from the checkpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial

import pytest
from transfer_support import SPEC, ThrottlingProxy, contents, create, full_item, load, table_name

from serving import ServerProcess
from singletable.data import (
    TransferError,
    TransferInterrupted,
    copy_table,
    count,
    export_table,
    import_table,
    open_target,
    render_item,
)
from singletable.data._formats import FormatError

STREAMED = {**SPEC, "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
BIG = "x" * (400 * 1024)
item_json = partial(render_item, spaced=True)  # one item as export writes it


def _line(item):
    return item_json(item) + "\n"  # DynamoDB JSON, binary as base64


def _bad_file(path):
    """Line 2 is not JSON, 3 too large, 4 lacks its sort key, 5 is a JSON array; 1 and 6 are fine."""
    path.write_text(
        _line({"PK": {"S": "ok"}, "SK": {"N": "1"}})
        + '{"PK": {"S": "broken"}, "SK": \n'
        + _line({"PK": {"S": "big"}, "SK": {"N": "3"}, "blob": {"S": BIG}})
        + _line({"PK": {"S": "nosk"}})
        + "[1, 2]\n"
        + _line({"PK": {"S": "ok"}, "SK": {"N": "6"}})
    )
    return path


def test_stop_at_the_first_bad_line_after_committing_the_lines_before_it(endpoint, tmp_path):
    source, name = _bad_file(tmp_path / "items.jsonl"), table_name()
    with pytest.raises(TransferError) as caught:
        import_table(endpoint, name, source, format="jsonl", schema={"Table": SPEC})
    assert caught.value.message.startswith(f"{source} line 2: not JSON (")
    assert caught.value.summary.items == 1
    assert list(contents(endpoint, name)) == [("ok", "1")]
    checkpoint = json.loads((tmp_path / f"items.jsonl.{name}.import-checkpoint.json").read_text())
    assert checkpoint["position"]["file"] == 0 and checkpoint["position"]["line"] == 1


def test_reject_mode_reports_every_bad_line_with_file_line_and_key(endpoint, tmp_path):
    source, name = _bad_file(tmp_path / "items.jsonl"), table_name()
    rejects = tmp_path / "rejects.jsonl"
    summary = import_table(
        endpoint, name, source, format="jsonl", schema={"Table": SPEC}, on_error="reject", reject_file=rejects
    )
    assert (summary.items, summary.rejected) == (2, 4)
    assert sorted(contents(endpoint, name)) == [("ok", "1"), ("ok", "6")]
    records = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert [(r["file"], r["line"], r["key"]) for r in records] == [
        (str(source), 2, ""),
        (str(source), 3, '(key PK="big", SK=3)'),
        (str(source), 4, '(key PK="nosk")'),
        (str(source), 5, ""),
    ]
    assert records[0]["error"].startswith("not JSON (")
    assert records[1]["error"] == "ValidationException: Item size has exceeded the maximum allowed size"
    assert records[2]["error"] == "ValidationException: One of the required keys was not given a value"
    assert records[3]["error"] == "not an item: a JSON list, not an object"
    assert records[2]["text"] == '{"PK": {"S": "nosk"}}'


def test_the_stop_message_names_the_key_of_a_refused_item(tmp_path):
    source, name = tmp_path / "items.jsonl", table_name()
    source.write_text(_line({"PK": {"S": "a"}, "SK": {"N": "1"}}) + _line({"PK": {"S": "nosk"}}))
    with pytest.raises(TransferError) as caught:
        import_table(str(tmp_path / "a.db"), name, source, format="jsonl", schema={"Table": SPEC})
    assert caught.value.message == (
        f'{source} line 2 (key PK="nosk"): ValidationException: '
        "One of the required keys was not given a value"
    )
    assert caught.value.summary.items == 1


def test_a_truncated_data_file_is_refused_whole_and_rejected_with_its_item_count(tmp_path):
    name = table_name()
    with open_target(str(tmp_path / "a.db")) as target:
        create(target, name)
        load(target, name, [full_item(i) for i in range(50)])
        export = export_table(target, name, tmp_path / "export").destination
    manifest = os.path.join(export, "manifest-files.json")
    with open(manifest) as handle:
        data = json.loads(handle.readline())["dataFileS3Key"].split("/")[-1]
    truncated = os.path.join(export, "data", data)
    with open(truncated, "rb") as handle:
        whole = handle.read()
    with open(truncated, "wb") as handle:
        handle.write(whole[: len(whole) // 2])
    with pytest.raises(TransferError) as caught:
        import_table(str(tmp_path / "b.db"), name, export, schema={"Table": SPEC})
    message = caught.value.message
    assert message.startswith(f"{manifest} line 1: data file {truncated}: its MD5 is ")
    assert message.endswith("the file is damaged or not the one exported; none of its items imported")
    assert caught.value.summary.items == 0
    assert contents(str(tmp_path / "b.db"), name) == {}
    rejects = tmp_path / "rejects.jsonl"
    summary = import_table(
        str(tmp_path / "c.db"), name, export, schema={"Table": SPEC}, on_error="reject", reject_file=rejects
    )
    assert (summary.read, summary.items, summary.rejected, summary.damaged) == (50, 0, 50, [truncated])
    (record,) = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert (record["file"], record["line"], record["lines"]) == (truncated, None, 50)


def test_a_manifest_naming_a_missing_data_file_or_no_manifest_is_a_format_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match=r"no manifest-summary\.json here or below"):
        import_table(str(tmp_path / "a.db"), "tbl", tmp_path / "empty", schema={"Table": SPEC})
    export = tmp_path / "exp" / "AWSDynamoDB" / "01700000000000-a1b2c3d4"
    export.mkdir(parents=True)
    (export / "manifest-summary.json").write_text(json.dumps({"outputFormat": "ION"}))
    with pytest.raises(
        FormatError, match=r"manifest-summary\.json: outputFormat ION \(only DYNAMODB_JSON is read\)"
    ):
        import_table(str(tmp_path / "a.db"), "tbl", tmp_path / "exp")
    (export / "manifest-summary.json").write_text(json.dumps({"exportType": "INCREMENTAL_EXPORT"}))
    with pytest.raises(FormatError, match=r"exportType INCREMENTAL_EXPORT \(only FULL_EXPORT is read\)"):
        import_table(str(tmp_path / "a.db"), "tbl", tmp_path / "exp")
    (export / "manifest-summary.json").write_text(json.dumps({"outputFormat": "DYNAMODB_JSON"}))
    (export / "manifest-files.json").write_text(
        json.dumps({"dataFileS3Key": "p/AWSDynamoDB/x/data/gone.json.gz"})
    )
    with pytest.raises(
        FormatError, match=r"manifest-files\.json line 1: data file data/gone\.json\.gz is missing"
    ):
        import_table(str(tmp_path / "a.db"), "tbl", tmp_path / "exp")
    with pytest.raises(FormatError, match="no such file or directory"):
        import_table(str(tmp_path / "a.db"), "tbl", tmp_path / "nowhere.jsonl", format="jsonl")


def test_missing_table_without_schema(tmp_path):
    (tmp_path / "i.jsonl").write_text(_line({"PK": {"S": "a"}, "SK": {"N": "1"}}))
    open_target(str(tmp_path / "a.db")).close()
    with pytest.raises(TransferError) as caught:
        import_table(str(tmp_path / "a.db"), "absent", tmp_path / "i.jsonl", format="jsonl")
    assert (
        caught.value.message
        == f"table absent does not exist in {tmp_path / 'a.db'}: create it first, or give a schema"
    )


def _records(target, name):
    """How many change records the table's stream holds: one per item write."""
    engine = target.engine
    arn = engine.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    shard = engine.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = engine.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    total, it = 0, iterator["ShardIterator"]
    while it:
        page = engine.get_records(ShardIterator=it, Limit=1000)
        total += len(page["Records"])
        if not page["Records"]:
            return total
        it = page.get("NextShardIterator")
    return total


def test_resume_after_stopping_after_two_chunks_writes_nothing_twice(tmp_path):
    source, name, db = tmp_path / "items.jsonl", table_name(), str(tmp_path / "a.db")
    source.write_text("".join(_line(full_item(i)) for i in range(400)))
    with pytest.raises(TransferInterrupted) as caught:
        import_table(
            db, name, source, format="jsonl", schema={"Table": STREAMED}, chunk_size=150, stop_after_chunks=2
        )
    assert caught.value.summary.items == 300
    with pytest.raises(
        FormatError, match="exists \\(an interrupted import\\): resume it, or delete it to restart"
    ):
        import_table(db, name, source, format="jsonl", chunk_size=150)
    summary = import_table(db, name, source, format="jsonl", chunk_size=150, resume=True)
    assert (summary.items, summary.resumed_from) == (400, 300)
    assert not caught.value.checkpoint.exists()
    with open_target(db) as target:
        assert count(target, name) == 400
        assert _records(target, name) == 400  # each item written exactly once


def _start_import(tmp_path, n):
    source, name, db = tmp_path / "items.jsonl", table_name(), str(tmp_path / "a.db")
    source.write_text("".join(_line(full_item(i)) for i in range(n)))
    (tmp_path / "schema.json").write_text(json.dumps({"Table": STREAMED}))
    checkpoint = tmp_path / "ck.json"
    command = [
        sys.executable, "-m", "singletable", "import", db, name, str(source), "--schema",
        str(tmp_path / "schema.json"), "--chunk-size", "500", "--checkpoint", str(checkpoint),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not checkpoint.exists():
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return process, command, checkpoint, db, name


def _finish(command, db, name, n, done):
    finished = subprocess.run([*command, "--resume", "--json"], capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    summary = json.loads(finished.stdout)
    assert summary["items"] == n and summary["resumed_from"] >= done
    with open_target(db) as target:
        assert count(target, name) == n
        return _records(target, name)


@pytest.mark.slow
def test_a_killed_import_resumes_from_its_checkpoint(tmp_path):
    n = 30_000
    process, command, checkpoint, db, name = _start_import(tmp_path, n)
    process.send_signal(signal.SIGKILL)
    process.wait()
    done = json.loads(checkpoint.read_text())["items"]
    assert 0 < done < n
    # A kill between a chunk's commit and its checkpoint (milliseconds) makes the resumed run write that
    # chunk's items again: the same items, so the table ends identical; its stream sees them twice.
    assert n <= _finish(command, db, name, n, done) <= n + 500


@pytest.mark.slow
def test_ctrl_c_stops_after_the_chunk_in_flight_and_says_what_was_committed(tmp_path):
    n = 30_000
    process, command, checkpoint, db, name = _start_import(tmp_path, n)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130
    done = json.loads(checkpoint.read_text())["items"]
    assert 0 < done < n
    assert stderr.splitlines() == [
        f"Error: interrupted ({done:,} items committed to {name})",
        f"checkpoint {checkpoint}: run the same command with --resume to continue",
    ]
    assert _finish(command, db, name, n, done) == n  # every item written exactly once


def test_throttled_writes_are_retried_with_backoff(http_server, tmp_path):
    from botocore.config import Config

    proxy = ThrottlingProxy(http_server.endpoint, every=2)
    try:
        source, name = tmp_path / "items.jsonl", table_name()
        source.write_text("".join(_line(full_item(i)) for i in range(200)))
        with open_target(proxy.endpoint, config=Config(retries={"total_max_attempts": 1})) as target:
            summary = import_table(
                target,
                name,
                source,
                format="jsonl",
                schema={"Table": SPEC},
                loader_options={"base_delay": 0.001},
            )
        assert summary.items == 200 and summary.retries >= proxy.throttled > 0
        assert len(contents(http_server.endpoint, name)) == 200
    finally:
        proxy.close()


def test_a_target_that_keeps_refusing_stops_the_import_resumably(http_server, tmp_path):
    from botocore.config import Config

    proxy = ThrottlingProxy(http_server.endpoint, refuse="ProvisionedThroughputExceededException")
    source, name = tmp_path / "items.jsonl", table_name()
    source.write_text("".join(_line(full_item(i)) for i in range(60)))
    try:
        with (
            open_target(proxy.endpoint, config=Config(retries={"total_max_attempts": 1})) as target,
            pytest.raises(TransferError) as caught,
        ):
            import_table(
                target,
                name,
                source,
                format="jsonl",
                schema={"Table": SPEC},
                chunk_size=20,
                loader_options={"attempts": 3, "base_delay": 0.001},
            )
    finally:
        proxy.close()
    assert caught.value.message == (
        f"{name} refused writes: ProvisionedThroughputExceededException: The level of configured provisioned "
        "throughput for the table was exceeded"
    )
    assert caught.value.summary.items == 0 and proxy.calls == 3
    summary = import_table(http_server.endpoint, name, source, format="jsonl", resume=True)
    assert summary.items == 60
    assert len(contents(http_server.endpoint, name)) == 60


def test_wrong_credentials_are_a_clear_error(tmp_path):
    (tmp_path / "creds").write_text("AKIDGOOD:secretgood\n")
    server = ServerProcess(tmp_path / "s.db", args=("--credentials", str(tmp_path / "creds")))
    try:
        (tmp_path / "i.jsonl").write_text(_line({"PK": {"S": "a"}, "SK": {"N": "1"}}))
        target = open_target(server.endpoint, aws_access_key_id="AKIDBAD", aws_secret_access_key="bad")
        with pytest.raises(TransferError) as caught:
            import_table(target, "tbl", tmp_path / "i.jsonl", format="jsonl", schema={"Table": SPEC})
        assert caught.value.message == (
            "UnrecognizedClientException: The security token included in the request is invalid. "
            f"(endpoint {server.endpoint})"
        )
    finally:
        server.stop()


def test_copy_resumes_per_segment_without_writing_twice(tmp_path):
    """Each of the three segments is one scan page: two are copied before the stop, the resume copies the
    third alone."""
    name = table_name()
    with open_target(str(tmp_path / "a.db")) as source:
        create(source, name)
        load(source, name, [full_item(i) for i in range(300)])
        destination = open_target(str(tmp_path / "b.db"))
        create_streamed = {**STREAMED, "TableName": name}
        destination.call("CreateTable", **create_streamed)
        with pytest.raises(TransferInterrupted) as caught:
            copy_table(source, destination, name, segments=3, stop_after_chunks=2)
        assert 0 < caught.value.summary.items < 300
        summary = copy_table(source, destination, name, segments=3, resume=True)
        assert summary.items == 300 and summary.counts_match
        assert _records(destination, name) == 300
        destination.close()


def test_resume_cuts_rejects_written_after_the_last_checkpoint(tmp_path):
    source, name, db = tmp_path / "items.jsonl", table_name(), str(tmp_path / "a.db")
    rejects = tmp_path / "rejects.jsonl"
    good = [_line({"PK": {"S": "a"}, "SK": {"N": str(i)}}) for i in range(4)]
    source.write_text(good[0] + "not json\n" + good[1] + good[2] + "[]\n" + good[3])
    options = dict(format="jsonl", on_error="reject", reject_file=rejects, chunk_size=3)
    with pytest.raises(TransferInterrupted):
        import_table(db, name, source, schema={"Table": SPEC}, stop_after_chunks=1, **options)
    assert len(rejects.read_text().splitlines()) == 1  # line 2, in the committed first chunk
    with open(rejects, "a") as handle:  # what a killed run wrote for a chunk it never checkpointed
        handle.write('{"file": "x", "line": 5, "key": "", "error": "stale", "text": "[]"}\n')
    summary = import_table(db, name, source, resume=True, **options)
    assert (summary.items, summary.rejected) == (4, 2)
    assert [json.loads(line)["line"] for line in rejects.read_text().splitlines()] == [2, 5]
    assert [json.loads(line)["error"] for line in rejects.read_text().splitlines()][1] == (
        "not an item: a JSON list, not an object"
    )
