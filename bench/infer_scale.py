"""Benchmark: ``singletable infer`` on a large table -- wall time and peak memory by ``--sample``.

    python3 bench/infer_scale.py [--items 100000] [--samples 1000,10000,100000] [--dir DIR]

Fills one database file with a SaaS design written as plain DynamoDB JSON (no model): accounts, their users
(with an e-mail guard item each), invoices keyed by zero-padded numbers and ISO dates, ULID ids, a type
attribute, a GSI and a sparse GSI -- ``--items`` items in all. Then runs ``python -m singletable infer FILE
TABLE --sample N`` in a fresh process for each N and reports its wall time, CPU time and peak resident memory
(GNU ``/usr/bin/time``'s maximum resident set size), and how many entities and key templates the module
holds, so a larger sample can be seen to buy nothing but cost.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

TABLE = "saas"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid(rng: random.Random, millis: int) -> str:
    head = "".join(_CROCKFORD[(millis >> (5 * (9 - i))) & 31] for i in range(10))
    return head + "".join(rng.choice(_CROCKFORD) for _ in range(16))


def _items(count: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    items: list[dict[str, Any]] = []
    account_no = 0
    while len(items) < count:
        account_no += 1
        millis = 1_700_000_000_000 + account_no * 60_000
        account = _ulid(rng, millis)
        items.append(
            {
                "PK": {"S": f"ACCOUNT#{account}"},
                "SK": {"S": "ACCOUNT"},
                "kind": {"S": "account"},
                "accountId": {"S": account},
                "name": {"S": f"Company {account_no}"},
                "plan": {"S": rng.choice(["free", "team", "enterprise"])},
            }
        )
        for user in range(rng.randrange(2, 8)):
            email = f"user{user}.{account_no}@example.com"
            items.append(
                {
                    "PK": {"S": f"ACCOUNT#{account}"},
                    "SK": {"S": f"USER#{email}"},
                    "kind": {"S": "user"},
                    "accountId": {"S": account},
                    "email": {"S": email},
                    "GSI1PK": {"S": f"USER#{email}"},
                    "GSI1SK": {"S": "USER"},
                }
            )
            items.append({"PK": {"S": f"EMAIL#{email}"}, "SK": {"S": f"EMAIL#{email}"}})
        for number in range(1, rng.randrange(5, 30)):
            at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(millis / 1000 + number * 86400))
            invoice = {
                "PK": {"S": f"ACCOUNT#{account}"},
                "SK": {"S": f"INVOICE#{number:06d}"},
                "kind": {"S": "invoice"},
                "accountId": {"S": account},
                "number": {"N": str(number)},
                "issuedAt": {"S": at},
                "amount": {"N": str(rng.randrange(100, 99999) / 100)},
                "GSI1PK": {"S": f"ACCOUNT#{account}"},
                "GSI1SK": {"S": f"ISSUED#{at}#{number:06d}"},
            }
            if rng.random() < 0.2:  # unpaid: on the sparse index
                invoice |= {"dueAt": {"S": at}, "GSI2PK": {"S": "UNPAID"}, "GSI2SK": {"S": f"{at}#{account}"}}
            items.append(invoice)
    return items[:count]


def fill(path: str, count: int) -> None:
    from singletable.engine import Engine

    gsi = [
        {
            "IndexName": name,
            "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [
                {"AttributeName": f"{name}PK", "KeyType": "HASH"},
                {"AttributeName": f"{name}SK", "KeyType": "RANGE"},
            ],
        }
        for name in ("GSI1", "GSI2")
    ]
    names = ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")
    with Engine(path) as engine:
        engine.create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=gsi,
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in names],
        )
        items = _items(count)
        for start in range(0, len(items), 25):
            batch = [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]
            engine.batch_write_item(RequestItems={TABLE: batch})


def measure(path: str, sample: int) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system: what a busy machine does not inflate), the child's peak
    RSS in MiB (GNU time's %M), and the inferred module's summary."""
    command = [sys.executable, "-m", "singletable", "infer", path, TABLE, "--sample", str(sample)]
    started = time.perf_counter()
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M", *command], capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - started
    user, system, peak_kib = result.stderr.strip().splitlines()[-1].split()
    classes = result.stdout.count("(Entity,") + result.stdout.count("    Entity,\n")
    keys = sum(1 for line in result.stdout.splitlines() if line.startswith("        ") and "='" in line)
    cpu = float(user) + float(system)
    return elapsed, cpu, int(peak_kib) / 1024, f"{classes} entities, {keys} key templates"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--samples", default="1000,10000,100000")
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="infer-scale-")
    path = os.path.join(directory, f"infer-{args.items}.db")
    if not os.path.exists(path):
        started = time.perf_counter()
        fill(path, args.items)
        print(f"filled {path}: {args.items} items in {time.perf_counter() - started:.1f} s")
    print(f"{'--sample':>9}  {'wall s':>8}  {'CPU s':>8}  {'peak MiB':>8}  module")
    for sample in (int(s) for s in args.samples.split(",")):
        elapsed, cpu, peak, note = measure(path, sample)
        print(f"{sample:>9}  {elapsed:>8.2f}  {cpu:>8.2f}  {peak:>8.1f}  {note}")


if __name__ == "__main__":
    main()
