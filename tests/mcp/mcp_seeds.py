"""The seed designs the MCP server's tests run on, and how each one's sample data is loaded (shared by the
tests in this directory and their conftest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from singletable.model import DB


def load_wavyblog(db: DB) -> None:
    from singletable.examples.wavyblog.sample import load, open_service

    load(open_service(db))


def load_places(db: DB) -> None:
    from singletable.examples.places.sample import load
    from singletable.examples.places.service import Archive

    load(Archive(db))


def load_blog_api(db: DB) -> None:
    from singletable.examples.blog_api.sample import load, open_service

    load(open_service(db))


def load_fus_main(db: DB) -> None:
    from singletable.examples.fus_main.sample import load, open_service

    load(open_service(db))


def load_hustlehub(db: DB) -> None:
    from singletable.examples.hustlehub.sample import load, open_service

    load(open_service(db))


SEEDS: dict[str, tuple[str, Callable[[DB], None]]] = {
    "blog_api": ("singletable.examples.blog_api.design", load_blog_api),
    "wavyblog": ("singletable.examples.wavyblog.design", load_wavyblog),
    "places": ("singletable.examples.places.design", load_places),
    "fus_main": ("singletable.examples.fus_main.design", load_fus_main),
    "hustlehub": ("singletable.examples.hustlehub.design", load_hustlehub),
}
FIVE_SEEDS = sorted(SEEDS)


def design_table(seed: str) -> Any:
    from singletable._designs import load_design

    return load_design(SEEDS[seed][0]).table
