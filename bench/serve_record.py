"""What ``singletable serve --record FILE`` costs per request, in instructions (docs/design-tools.md).

Runs N PutItem + N GetItem requests through the server's request handler (``DynamoDBApp._handle``: the
dispatcher, the engine, and with a file the recorder) in process, without sockets, so that an instruction
count isolates what recording adds. Timings on the shared machine mean little; count instructions:

    PY=$(python3 -c "import sys; print(sys.executable)")
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $PY bench/serve_record.py - 0
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $PY bench/serve_record.py - 400
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $PY bench/serve_record.py /tmp/r.jsonl 400

(per request: the difference of the last two "Collected" counts over 800 requests, against the first.)
"""

from __future__ import annotations

import json
import sys

from singletable._server.app import DynamoDBApp
from singletable.engine import Engine


def main(record: str | None, rounds: int) -> None:
    engine = Engine(":memory:")
    engine.create_table(
        TableName="bench",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    app = DynamoDBApp(engine=engine, record=record)
    put = {b"x-amz-target": b"DynamoDB_20120810.PutItem"}
    get = {b"x-amz-target": b"DynamoDB_20120810.GetItem"}
    bodies = [
        (
            json.dumps(
                {"TableName": "bench", "Item": {"PK": {"S": f"k{n}"}, "v": {"S": "x" * 100}}}
            ).encode(),
            json.dumps({"TableName": "bench", "Key": {"PK": {"S": f"k{n}"}}}).encode(),
        )
        for n in range(50)
    ]
    for n in range(rounds):
        put_body, get_body = bodies[n % 50]
        app._handle({}, put, put_body)
        app._handle({}, get, get_body)
    app.close()


if __name__ == "__main__":
    main(None if sys.argv[1] == "-" else sys.argv[1], int(sys.argv[2]))
