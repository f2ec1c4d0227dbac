"""Other DynamoDB clients, unchanged, against `singletable serve`: the AWS CLI and the JS SDK v3."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / ".node"
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_PAGER": "",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
}


def _aws(server, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``aws dynamodb ARGS`` against ``server`` as a process of its own: its exit code and output."""
    aws = shutil.which("aws")
    command = [aws] if aws else [sys.executable, "-m", "awscli"]
    return subprocess.run(
        [*command, "dynamodb", *args, "--endpoint-url", server.endpoint, "--output", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **AWS_ENV, **(env or {})},
    )


def _aws_here(server, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``aws dynamodb ARGS`` against ``server`` run by the AWS CLI's own driver in this process (a new one
    each time, reading this environment as its process would): the same requests, answers and exit code
    as ``_aws``, without starting a Python for each (``_aws`` keeps one run per test a real process)."""
    env = {**AWS_ENV, **(env or {})}
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        # ``import awscli`` adds its own data to the path: this context undoes it, and the call composes it.
        patch.delenv("AWS_DATA_PATH", raising=False)
        import awscli
        from awscli.clidriver import create_clidriver

        data = [*env.pop("AWS_DATA_PATH", "").split(os.pathsep), str(Path(awscli.__file__).with_name("data"))]
        patch.setenv("AWS_DATA_PATH", os.pathsep.join(filter(None, data)))
        for name, value in env.items():
            patch.setenv(name, value)
        code = create_clidriver().main(
            ["dynamodb", *args, "--endpoint-url", server.endpoint, "--output", "json"]
        )
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def test_aws_cli(http_server, table_name):
    pytest.importorskip(
        "awscli", reason="the AWS CLI (pip install awscli, in the test extra) is not installed"
    )
    created = _aws_here(
        http_server,
        "create-table",
        "--table-name",
        table_name,
        "--billing-mode",
        "PAY_PER_REQUEST",
        "--key-schema",
        "AttributeName=PK,KeyType=HASH",
        "--attribute-definitions",
        "AttributeName=PK,AttributeType=S",
    )
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["TableDescription"]["TableName"] == table_name
    item = json.dumps({"PK": {"S": "cli"}, "bin": {"B": "AAH+"}})
    put = _aws_here(http_server, "put-item", "--table-name", table_name, "--item", item)
    assert put.returncode == 0, put.stderr
    got = _aws_here(http_server, "get-item", "--table-name", table_name, "--key", '{"PK": {"S": "cli"}}')
    # CLI v1 takes a blob argument as raw bytes and base64-encodes it on the wire, and prints base64 back.
    assert json.loads(got.stdout)["Item"] == {"PK": {"S": "cli"}, "bin": {"B": "QUFIKw=="}}
    failed = _aws(
        http_server,
        "put-item",
        "--table-name",
        table_name,
        "--item",
        item,
        "--condition-expression",
        "attribute_not_exists(PK)",
    )
    assert failed.returncode in (254, 255)  # service error (v2 exits 254, v1 255), from a process of its own
    assert (
        "An error occurred (ConditionalCheckFailedException) when calling the PutItem operation: "
        "The conditional request failed"
    ) in failed.stderr
    listed = _aws_here(http_server, "list-tables")
    assert table_name in json.loads(listed.stdout)["TableNames"]


def _install_js_sdk() -> None:
    """Fetch @aws-sdk/client-dynamodb into .node/ once, as tests/reference.py fetches DynamoDB Local, so
    the README's test command runs this test too (.ci/run installs it ahead); skip, saying why, if npm
    cannot."""
    if (NODE_DIR / "node_modules" / "@aws-sdk" / "client-dynamodb").exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so @aws-sdk/client-dynamodb cannot be fetched into .node/")
    fetched = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(NODE_DIR),
            "--silent",
            "--no-audit",
            "--no-fund",
            "@aws-sdk/client-dynamodb@3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if fetched.returncode != 0:
        pytest.skip(f"npm install @aws-sdk/client-dynamodb@3 failed: {fetched.stderr.strip()[-500:]}")


def test_javascript_sdk_v3(http_server, table_name):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the JS SDK v3 test needs node; .ci/run installs it)")
    _install_js_sdk()
    script = Path(__file__).with_name("sdk_v3_smoke.mjs")
    result = subprocess.run(
        [node, str(script), http_server.endpoint, table_name],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SINGLETABLE_NODE_DIR": str(NODE_DIR)},
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["bin"] == [0, 1, 254]
    assert seen["n"] == "42"
    assert seen["failure"] == {
        "name": "ConditionalCheckFailedException",
        "message": "The conditional request failed",
        "modeled": True,
        "status": 400,
        "itemN": "42",
    }


def test_aws_cli_searches_vectors_once_it_knows_the_operation(http_server, table_name, tmp_path):
    """An AWS CLI whose bundled botocore predates SearchVectors (awscli 1.46 ships 1.43.62) learns it from
    a newer service model on its data path -- what ``aws configure add-model`` writes -- and then reaches
    serve's vector search like any other operation."""
    pytest.importorskip("awscli", reason="the AWS CLI (pip install awscli, the test extra) is not installed")
    pytest.importorskip("numpy", reason="vector search needs the vector extra (numpy)")
    model = Path(sysconfig.get_paths()["purelib"]) / "botocore/data/dynamodb/2012-08-10/service-2.json.gz"
    if b'"SearchVectors"' not in gzip.decompress(model.read_bytes()):
        pytest.skip(f"the installed botocore's model ({model}) predates SearchVectors")
    data = tmp_path / "models"
    (data / "dynamodb/2012-08-10").mkdir(parents=True)
    (data / "dynamodb/2012-08-10/service-2.json").write_bytes(gzip.decompress(model.read_bytes()))
    env = {"AWS_DATA_PATH": str(data)}
    index = {
        "IndexName": "byEmbedding",
        "VectorAttribute": {"AttributeName": "emb"},
        "Dimensions": 3,
        "DistanceFunction": "COSINE",
        "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    created = _aws_here(
        http_server,
        "create-table",
        "--table-name",
        table_name,
        "--billing-mode",
        "PAY_PER_REQUEST",
        "--key-schema",
        "AttributeName=pk,KeyType=HASH",
        "--attribute-definitions",
        "AttributeName=pk,AttributeType=S",
        "AttributeName=tenant,AttributeType=S",
        "--vector-indexes",
        json.dumps([index]),
        env=env,
    )
    assert created.returncode == 0, created.stderr
    for n in (1, 2, 3):
        vector = {"L": [{"N": str(n)}, {"N": "1"}, {"N": "0"}]}
        item = {"pk": {"S": f"d{n}"}, "tenant": {"S": "t1"}, "emb": vector}
        put = _aws_here(
            http_server, "put-item", "--table-name", table_name, "--item", json.dumps(item), env=env
        )
        assert put.returncode == 0, put.stderr
    found = _aws(
        http_server,
        "search-vectors",
        "--table-name",
        table_name,
        "--index-name",
        "byEmbedding",
        "--search-vector",
        json.dumps([{"N": "3"}, {"N": "1"}, {"N": "0"}]),
        "--top-k",
        "2",
        "--search-condition-expression",
        "tenant = :t",
        "--expression-attribute-values",
        json.dumps({":t": {"S": "t1"}}),
        env=env,
    )
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["SearchResults"]
    assert [r["Item"]["pk"]["S"] for r in results] == ["d3", "d2"]  # COSINE: the nearest first
    assert results[0]["Score"] == 0.0
