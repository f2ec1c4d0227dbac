"""A missing optional dependency fails with one line naming the extra to install, never a traceback.

Each test runs a real process in which the third-party modules of one extra cannot be imported, exactly as
when they are not installed: the command line prints one line and exits 1; the library raises an
``ImportError`` with the same kind of one-line message and no chained cause. Cases that block the same
modules and leave nothing imported behind (every demo's refusal without pydantic, each client function's
without boto3) share one process, as starting one costs more than the cases.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from serving import run_cli


def assert_one_line_failure(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr == f"Error: {message}\n"
    assert result.stdout == ""


def test_serve_without_the_server_extra():
    result = run_cli("serve", "--port", "1", without=("uvicorn",))
    assert_one_line_failure(
        result, "singletable serve needs the 'server' extra: pip install 'singletable[server]'"
    )


def test_serve_without_botocore_which_the_wire_codec_reads():
    result = run_cli("serve", "--port", "1", without=("botocore",))
    assert_one_line_failure(
        result, "singletable serve needs the 'server' extra: pip install 'singletable[server]'"
    )


DEMOS = ["fus-main", "hustlehub", "places", "wavyblog", "blog-api", "docsearch"]
# Each demo through the command line in-process, in one process where pydantic cannot be imported: the exit
# code and what it printed on stdout and stderr, by demo.
DEMOS_WITHOUT_PYDANTIC = """\
import json, sys
sys.modules["pydantic"] = None
from click.testing import CliRunner
from singletable._cli import main
results = {}
for name in sys.argv[1:]:
    result = CliRunner().invoke(main, ["demo", name])
    results[name] = [result.exit_code, result.stdout, result.stderr]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def demos_without_pydantic() -> dict[str, list]:
    command = [sys.executable, "-c", DEMOS_WITHOUT_PYDANTIC, *DEMOS]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", DEMOS)
def test_demo_without_pydantic(name, demos_without_pydantic):
    exit_code, stdout, stderr = demos_without_pydantic[name]
    message = f"singletable demo {name} needs the 'examples' extra: pip install 'singletable[examples]'"
    assert (exit_code, stdout, stderr) == (1, "", f"Error: {message}\n")


def test_wavyblog_demo_without_bcrypt():
    result = run_cli("demo", "wavyblog", without=("bcrypt",))
    assert_one_line_failure(
        result, "singletable demo wavyblog needs the 'examples' extra: pip install 'singletable[examples]'"
    )


def test_docsearch_demo_without_numpy():
    result = run_cli("demo", "docsearch", without=("numpy",))
    assert_one_line_failure(
        result, "singletable demo docsearch needs the 'examples' extra: pip install 'singletable[examples]'"
    )


def test_demo_on_an_endpoint_without_boto3():
    result = run_cli("demo", "places", "--endpoint", "http://127.0.0.1:1", without=("boto3",))
    assert_one_line_failure(
        result, "singletable demo --endpoint needs the 'client' extra: pip install 'singletable[client]'"
    )


@pytest.mark.parametrize("module", ["starlette", "jinja2"])
def test_ui_without_the_ui_extra(module):
    result = run_cli("ui", "app.db", "--port", "1", without=(module,))
    assert_one_line_failure(result, "singletable ui needs the 'ui' extra: pip install 'singletable[ui]'")


def test_quickstart_needs_only_the_engine():
    result = run_cli("demo", without=("pydantic", "bcrypt", "boto3", "botocore", "uvicorn"))
    assert result.returncode == 0, result.stderr
    assert "ConsumedCapacity" in result.stdout


def library_failures(codes: list[str], without: tuple[str, ...]) -> list[str]:
    """Run each of ``codes`` in turn in one process where ``without`` cannot be imported; what each raised,
    as 'Type: message | cause' (or what it printed)."""
    program = f"import sys; sys.modules.update(dict.fromkeys({list(without)!r}))\n"
    for code in codes:
        program += (
            "try:\n"
            f"    {code}\n"
            "except ImportError as error:\n"
            "    print(f'{type(error).__name__}: {error} | {error.__cause__!r}')\n"
        )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def library_failure(code: str, without: tuple[str, ...]) -> str:
    """Run ``code`` where ``without`` cannot be imported; what it raised, as 'Type: message | cause'."""
    return "\n".join(library_failures([code], without))


CLIENT_FUNCTIONS = ["client", "resource", "streams_client"]


def test_client_functions_without_boto3():
    codes = [f"import singletable; singletable.{function}(':memory:')" for function in CLIENT_FUNCTIONS]
    assert library_failures(codes, ("boto3",)) == [
        f"MissingExtra: singletable.{function}() needs the 'client' extra: "
        "pip install 'singletable[client]' | None"
        for function in CLIENT_FUNCTIONS
    ]


def test_importing_singletable_needs_no_extra():
    extras = ("boto3", "botocore", "pydantic", "uvicorn", "bcrypt")
    assert library_failure("import singletable; print(singletable.Engine.__name__)", extras) == "Engine"


@pytest.mark.parametrize("code", ["import singletable.model", "import singletable; singletable.connect"])
def test_model_without_pydantic(code):
    assert library_failure(code, ("pydantic",)) == (
        "MissingExtra: singletable.model needs the 'model' extra: pip install 'singletable[model]' | None"
    )


def test_check_without_pydantic():
    result = run_cli("check", "singletable.examples.hustlehub.design", without=("pydantic",))
    assert_one_line_failure(
        result, "singletable check needs the 'model' extra: pip install 'singletable[model]'"
    )
    assert library_failure("import singletable.design", ("pydantic",)) == (
        "MissingExtra: singletable.design needs the 'model' extra: pip install 'singletable[model]' | None"
    )


@pytest.mark.parametrize("module", ["starlette", "jinja2"])
def test_the_ui_library_without_the_ui_extra(module):
    assert library_failure("import singletable.ui", (module,)) == (
        "MissingExtra: singletable.ui needs the 'ui' extra: pip install 'singletable[ui]' | None"
    )


ASYNC_CONNECT = (
    "import asyncio, singletable.model as m; "
    "db = asyncio.run(m.connect_async(m.Table(name='abc'), {target!r})); print(type(db).__name__)"
)


def test_async_db_on_an_endpoint_without_aiobotocore():
    code = ASYNC_CONNECT.format(target="http://127.0.0.1:1")
    assert library_failure(code, ("aiobotocore",)) == (
        "MissingExtra: connect_async() to an endpoint needs the 'async' extra: "
        "pip install 'singletable[async]' | None"
    )


def test_async_db_on_the_engine_needs_no_async_extra():
    code = ASYNC_CONNECT.format(target=":memory:")
    assert library_failure(code, ("aiobotocore", "boto3", "botocore")) == "AsyncDB"


def test_a_broken_core_dependency_is_named_by_from_engine_import_engine():
    """``from singletable.engine import Engine`` is an ordinary import: when the engine cannot load (here its
    core dependency orjson is missing), the error names what is missing, not ``cannot import name``."""
    code = (
        "import sys; sys.modules['orjson'] = None\n"
        "try:\n    from singletable.engine import Engine\n"
        "except ImportError as error:\n    print(type(error).__name__, error)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("ModuleNotFoundError import of orjson halted"), result
