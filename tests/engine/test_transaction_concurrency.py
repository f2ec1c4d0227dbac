"""Transactions under real concurrency: threads sharing an Engine and processes sharing a database file.

Engine only: DynamoDB Local cannot be made to produce TransactionConflict on demand, and these tests
exercise our own locking design (see ``engine/_transactions.py`` and docs/compatibility.md).
"""

from __future__ import annotations

import random
import select
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from backends import expect_error
from singletable.engine import DynamoDBError, Engine

ACCOUNTS = 6
OPENING = 100
TABLE = "t_bank"

TRANSFERS = textwrap.dedent(
    """
    import random, sys
    from singletable.engine import DynamoDBError, Engine

    def transfer(engine, source, target, amount):
        key = lambda i: {"PK": {"S": f"acct{i}"}}
        v = {":a": {"N": str(amount)}}
        engine.transact_write_items(TransactItems=[
            {"Update": {"TableName": "t_bank", "Key": key(source), "ConditionExpression": "balance >= :a",
                        "UpdateExpression": "SET balance = balance - :a", "ExpressionAttributeValues": v}},
            {"Update": {"TableName": "t_bank", "Key": key(target),
                        "UpdateExpression": "SET balance = balance + :a", "ExpressionAttributeValues": v}},
        ])

    if __name__ == "__main__":
        engine = Engine(sys.argv[1])
        rng = random.Random(int(sys.argv[3]))
        done = refused = 0
        for _ in range(int(sys.argv[2])):
            source, target = rng.sample(range(6), 2)
            try:
                transfer(engine, source, target, rng.randint(1, 60))
                done += 1
            except DynamoDBError as error:
                assert error.code == "TransactionCanceledException", error
                refused += 1
        engine.close()
        print(done, refused)
    """
)

HOLDER = textwrap.dedent(
    """
    import select, sys
    from singletable.engine import Engine
    engine = Engine(sys.argv[1])
    with engine.storage.write():
        print("locked", flush=True)
        select.select([sys.stdin], [], [], float(sys.argv[2]))  # until told to let go, or the seconds pass
    engine.close()
    """
)


def _namespace() -> dict:
    namespace: dict = {}
    exec(TRANSFERS, namespace)  # the same transfer code the subprocesses run
    return namespace


def _key(i: int) -> dict:
    return {"PK": {"S": f"acct{i}"}}


def _open_bank(path: str) -> None:
    with Engine(path) as engine:
        engine.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        engine.batch_write_item(
            RequestItems={
                TABLE: [
                    {"PutRequest": {"Item": {**_key(i), "balance": {"N": str(OPENING)}}}}
                    for i in range(ACCOUNTS)
                ]
            }
        )


def _balances(engine: Engine) -> list[int]:
    response = engine.transact_get_items(
        TransactItems=[{"Get": {"TableName": TABLE, "Key": _key(i)}} for i in range(ACCOUNTS)]
    )
    return [int(r["Item"]["balance"]["N"]) for r in response["Responses"]]


def test_threads_running_conditional_transfers_conserve_money(tmp_path: Path):
    path = str(tmp_path / "bank.sqlite3")
    _open_bank(path)
    transfer = _namespace()["transfer"]
    engine = Engine(path)
    outcomes: list[str] = []
    snapshots: list[int] = []
    stop = threading.Event()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(150):
            source, target = rng.sample(range(ACCOUNTS), 2)
            try:
                transfer(engine, source, target, rng.randint(1, 60))
                outcomes.append("done")
            except DynamoDBError as error:
                assert error.code == "TransactionCanceledException"
                assert error.extra["CancellationReasons"][0]["Code"] == "ConditionalCheckFailed"
                outcomes.append("refused")

    def auditor() -> None:  # TransactGetItems must never see half a transfer
        while not stop.is_set():
            snapshots.append(sum(_balances(engine)))

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(4)]
    watcher = threading.Thread(target=auditor)
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()
    balances = _balances(engine)
    engine.close()
    assert len(outcomes) == 600 and "done" in outcomes
    assert sum(balances) == ACCOUNTS * OPENING
    assert min(balances) >= 0
    assert snapshots and set(snapshots) == {ACCOUNTS * OPENING}


def test_processes_running_conditional_transfers_conserve_money(tmp_path: Path):
    path = str(tmp_path / "bank.sqlite3")
    _open_bank(path)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", TRANSFERS, path, "120", str(seed)], stdout=subprocess.PIPE, text=True
        )
        for seed in range(3)
    ]
    done = 0
    for child in children:
        out, _ = child.communicate(timeout=180)
        assert child.returncode == 0
        done += int(out.split()[0])
    assert done > 0
    with Engine(path) as engine:
        balances = _balances(engine)
    assert sum(balances) == ACCOUNTS * OPENING
    assert min(balances) >= 0


def test_a_writer_that_cannot_get_the_lock_sees_a_transaction_conflict(tmp_path: Path):
    path = str(tmp_path / "bank.sqlite3")
    _open_bank(path)
    engine = Engine(path)
    engine.storage.busy_timeout = 0.2  # give up quickly instead of after 30 s
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, path, "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        transfer = _namespace()["transfer"]
        with expect_error(
            "TransactionCanceledException",
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[TransactionConflict, TransactionConflict]",
        ) as info:
            transfer(engine, 0, 1, 10)
        assert (
            info.value.extra["CancellationReasons"]
            == [{"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}] * 2
        )
        with expect_error("TransactionConflictException", "Transaction is ongoing for the item"):
            engine.put_item(TableName=TABLE, Item={**_key(0), "balance": {"N": "0"}})
        request = {TABLE: [{"DeleteRequest": {"Key": _key(5)}}]}
        assert engine.batch_write_item(RequestItems=request) == {"UnprocessedItems": request}
        # Readers never wait for a writer.
        assert sum(_balances(engine)) == ACCOUNTS * OPENING
        assert engine.get_item(TableName=TABLE, Key=_key(0))["Item"]["balance"] == {"N": str(OPENING)}
    finally:
        holder.communicate("let go\n", timeout=30)
    transfer(engine, 0, 1, 10)
    assert _balances(engine)[:2] == [OPENING - 10, OPENING + 10]
    engine.close()


RECOVERING = textwrap.dedent(
    """
    # Look like a process recovering the WAL index: hold its write and recover locks (SQLite's shm lock
    # bytes 120 and 122) and leave the index header's two copies disagreeing, as a crash mid-commit does.
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1] + "-shm", os.O_RDWR)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 120)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 122)
    header = bytearray(os.pread(fd, 48, 0))
    header[8] ^= 0xFF  # iChange of the first copy
    os.pwrite(fd, bytes(header), 0)
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    print("releasing", flush=True)
    os.close(fd)
    """
)


def test_a_writer_waits_out_another_process_short_write(tmp_path: Path):
    path = str(tmp_path / "bank.sqlite3")
    _open_bank(path)
    engine = Engine(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, path, "0.5"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        engine.put_item(TableName=TABLE, Item={**_key(0), "balance": {"N": "7"}})
    finally:
        holder.wait(timeout=30)  # its half second is up: it let go by itself
        holder.stdin.close()
    assert engine.get_item(TableName=TABLE, Key=_key(0))["Item"]["balance"] == {"N": "7"}
    engine.close()


def test_a_read_that_finds_the_database_busy_is_retried(tmp_path: Path):
    """Readers wait for nobody in WAL mode, except a process recovering the WAL index after another was
    killed mid-commit: SQLite answers SQLITE_BUSY_RECOVERY, and the engine retries the read."""
    path = str(tmp_path / "bank.sqlite3")
    _open_bank(path)
    engine = Engine(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", RECOVERING, path, "0.5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert engine.get_item(TableName=TABLE, Key=_key(1))["Item"]["balance"] == {"N": str(OPENING)}
        # The answer came once the holder let go (it says so just before), not before.
        assert select.select([holder.stdout], [], [], 0)[0]
    finally:
        holder.wait(timeout=30)
    engine.close()
