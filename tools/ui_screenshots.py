"""Regenerate the screenshots of ``docs/ui.md``: the web console on the Blog API example (seed 004).

Loads the example's deterministic sample data into a fresh database file, serves the console on it (a real
uvicorn on a free loopback port), and photographs the main pages in headless Chromium -- Debian's
``chromium`` driven by Playwright, exactly as tests/browser.py launches it (no browser download).

    python3 tools/ui_screenshots.py [OUT_DIR]      # default: docs/ui/
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))  # browser.py and reference.py, which it reads

import uvicorn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from browser import ARGS, CHROMIUM  # noqa: E402  (the tests' launch: system Chromium, its flags)
from singletable.data import Target, open_target  # noqa: E402
from singletable.examples import DEMO_CLOCK  # noqa: E402
from singletable.examples.blog_api import design, sample  # noqa: E402
from singletable.model import connect  # noqa: E402
from singletable.ui import console_app  # noqa: E402

VIEWPORT = {"width": 1100, "height": 720}
DESIGN = "singletable.examples.blog_api.design"


def pages(table: str) -> list[tuple[str, str]]:
    """(file name, path) of each screenshot, in the order docs/ui.md shows them."""
    thread = "partition=POST%23p-py-packaging"
    return [
        ("tables.png", "/"),
        ("table.png", f"/tables/{table}"),
        ("collections.png", f"/tables/{table}/items?{thread}&limit=8"),
        ("patterns.png", f"/tables/{table}/patterns"),
        (
            "pattern-run.png",
            f"/tables/{table}/patterns/run?pattern=Post.in_category&f.subcategory_id=python&limit=3",
        ),
        ("item.png", f"/tables/{table}/item?key=" + '{"PK":{"S":"USER%23bia"},"SK":{"S":"PROFILE%23bia"}}'),
    ]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    out = out.resolve()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the header shows the TARGET as given: blog.db
        with open_target("blog.db") as target:
            serve_and_shoot(target, out)


def serve_and_shoot(target: Target, out: Path) -> None:
    """Load the sample data, serve the console on it, photograph each page."""
    db = connect(design.blog, target.engine, clock=lambda: DEMO_CLOCK)
    db.create_table()
    sample.load(sample.open_service(db))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(console_app(target, design=DESIGN), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        shoot(f"http://127.0.0.1:{port}", db.table_name, out)
    finally:
        server.should_exit = True
        thread.join(10)


def shoot(base: str, table: str, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        for name, path in pages(table):
            page.goto(base + path)
            page.screenshot(path=str(out / name))
            print(f"{out / name}: {(out / name).stat().st_size:,} bytes")
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "ui")
