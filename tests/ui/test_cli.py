"""``singletable ui TARGET``: a real process, on loopback unless told, with one-line failures (checked
in-process, one of them in a real process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from reference import free_port
from serving import refused_in_process, run_cli

HERE = Path(__file__).resolve().parent


def test_ui_serves_a_file_on_loopback_and_stops_cleanly(tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "singletable",
            "ui",
            str(tmp_path / "app.db"),
            "--port",
            str(port),
            "--design",
            "console_design",
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as response:
                    page = response.read().decode()
                    break
            except OSError:
                assert process.poll() is None, process.stderr.read()
                assert time.monotonic() < deadline, "singletable ui did not answer"
                time.sleep(0.1)
        assert "Create ui" in page  # the design's table, offered for creation in the new file
    finally:
        process.terminate()
        process.wait(15)
    banner = process.stderr.read()
    assert f"singletable console for {tmp_path / 'app.db'} on http://127.0.0.1:{port}/" in banner
    assert "Traceback" not in banner


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--design", "no_such_design_module"), "Error: cannot import design module no_such_design_module"),
        (("--table", "x"), "--table names the design's table: it needs --design MODULE"),
        (("--allow-host", "evil.example:80"), "'evil.example:80' is not a host name or IP address"),
        (("--host", "a b"), "'a b' is not a host name or IP address"),
        (("--allow-host", "*.example"), "'*.example' is not a host name or IP address"),
    ],
)
def test_ui_mistakes_fail_in_one_line(tmp_path, args, message):
    result = refused_in_process("ui", str(tmp_path / "app.db"), "--port", "1", *args)
    assert result.returncode in (1, 2)
    assert message in result.stderr and "Traceback" not in result.stderr


def test_a_ui_mistake_ends_a_real_process_with_one_line(tmp_path):
    result = run_cli("ui", str(tmp_path / "app.db"), "--port", "1", "--table", "x")
    assert result.returncode == 2
    assert "--table names the design's table: it needs --design MODULE" in result.stderr
    assert "Traceback" not in result.stderr
