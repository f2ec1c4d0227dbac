"""One writer process of ``test_sequence_in_transaction.py``: places orders through ``db.run_transaction``.

``python shop_order_worker.py TARGET TABLE WRITER COUNT GO`` connects to TARGET (a SQLite path, which it
opens as an Engine of its own, or an endpoint URL), waits until the file GO exists (so every writer starts
at once), places COUNT orders of a three-line cart as WRITER, and prints ``{"placed": [numbers...],
"retries": n}`` as JSON.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from shop_orders import orders, place, shop

from singletable.model import connect

CART = [("a", 1), ("b", 2), ("c", 1)]


def main() -> None:
    target, table, writer, count, go = sys.argv[1:6]
    numbers = orders()
    with connect(shop, target, name=table) as db:
        deadline = time.monotonic() + 60
        while not Path(go).exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        placed = [
            db.run_transaction(lambda tx: place(tx, numbers, CART, writer=writer)) for _ in range(int(count))
        ]
    print(json.dumps({"placed": placed, "retries": numbers.retries}))


if __name__ == "__main__":
    main()
