"""``singletable serve --ui``: the console under /ui/ beside the API on one port, on the API's engine.

Real ``singletable serve`` processes: the API answers as before while the console's pages, links and writes
live under /ui/; with several worker processes a form served by one is accepted by another (one secret);
``--ui`` refuses ``--credentials`` (the console would bypass the signatures) and a design that cannot load.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from ui_support import Client
from walker_support import ALLOWED_NAME, request

from serving import ServerProcess, refused_in_process

HERE = Path(__file__).resolve().parent
DESIGN_PATH = {"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module", params=["1", "2"], ids=["one-worker", "two-workers"])
def served(request, tmp_path_factory) -> ServerProcess:
    folder = tmp_path_factory.mktemp("serve-ui")
    server = ServerProcess(
        folder / "app.db",
        args=(
            "--ui",
            "--ui-design",
            "console_design",
            "--workers",
            request.param,
            "--allow-host",
            ALLOWED_NAME,
        ),
        env=DESIGN_PATH,
    )
    yield server
    server.stop()


def test_the_api_and_the_console_share_one_port_and_one_database(served):
    api = served.client()
    table = "served"
    api.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        client = Client(served.endpoint + "/ui")
        listing = client.get("/")
        assert listing.status == 200
        assert f'href="/ui/tables/{table}"' in listing.text  # links keep the /ui/ prefix
        assert 'href="/ui/static/console.css"' in listing.text
        assert client.get("/static/console.css").status == 200
        for number in range(6):  # with two workers, forms and posts land on either process
            token = client.csrf(f"/tables/{table}/new")
            body = json.dumps({"PK": "ITEM", "SK": f"{number}"})
            reply = client.post(f"/tables/{table}/items", {"csrf": token, "format": "plain", "body": body})
            assert reply.status == 303, reply.text[-2000:]
            assert reply.location.startswith(f"/ui/tables/{table}/item?")
        items = api.query(
            TableName=table,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "ITEM"}},
        )["Items"]
        assert [item["SK"]["S"] for item in items] == [str(n) for n in range(6)]
    finally:
        api.delete_table(TableName=table)


def test_ui_redirects_to_its_root_and_the_health_check_is_unchanged(served):
    with urllib.request.urlopen(served.endpoint + "/ui") as response:  # follows the 308
        assert response.url.endswith("/ui/") and response.status == 200
    with urllib.request.urlopen(served.endpoint + "/") as response:
        assert response.read().startswith(b"healthy: ")


def test_the_mounted_console_answers_only_its_own_host_names(served):
    """In every worker: the console under /ui/ refuses a foreign Host (DNS rebinding) and a foreign origin,
    and answers the loopback names and the one given with --allow-host."""
    for path in ("/ui/", "/ui/static/console.css", "/ui/tables/x/new"):
        for _ in range(4):  # with two workers, each is asked
            refused = request(served.port, "GET", path, host=f"evil.example:{served.port}")
            assert (
                refused.status == 400 and "is not served: this server answers only loopback" in refused.text
            )
            assert "start it with --allow-host evil.example" in refused.text and "csrf" not in refused.text
    for host in (f"localhost:{served.port}", f"[::1]:{served.port}", f"{ALLOWED_NAME}:{served.port}"):
        for _ in range(4):
            assert request(served.port, "GET", "/ui/", host=host).status == 200, host
    client = Client(served.endpoint + "/ui")
    token = client.csrf("/tables/x/new")
    cookie = "; ".join(f"{c.name}={c.value}" for c in client.jar)
    foreign = request(
        served.port,
        "POST",
        "/ui/tables/x/delete",
        headers={"Cookie": cookie, "Origin": "http://evil.example"},
        body=f"csrf={token}&confirm=x".encode(),
    )
    assert foreign.status == 403 and "comes from another site" in foreign.text


def test_without_ui_there_is_no_console(http_server):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(http_server.endpoint + "/ui/")
    assert refused.value.code == 404


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--ui", "--credentials", __file__),
            "--ui cannot be combined with --credentials: the console has no sign-in",
        ),
        (("--ui-read-only",), "--ui-design and --ui-read-only go with --ui"),
        (("--ui", "--allow-host", "http://x:1"), "'http://x:1' is not a host name or IP address"),
        (
            ("--ui", "--ui-design", "no_such_design_module"),
            "cannot import design module no_such_design_module",
        ),
    ],
)
def test_serve_ui_mistakes_fail_in_one_line(args, message):
    result = refused_in_process("serve", "--port", "1", *args)
    assert result.returncode in (1, 2), result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
