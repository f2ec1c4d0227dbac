"""The seed examples that ship with singletable, and the small framework ``singletable demo`` runs them with.

Each example is a package here (``quickstart``, ``fus_main``, ``hustlehub``, ``places``, ``wavyblog``,
``blog_api``, ``docsearch``) whose ``__init__`` exposes ``EXAMPLE``; ``singletable demo NAME`` imports
``singletable.examples.<package>`` and runs it. README.md in this directory describes the packages' common
shape and how to write a walkthrough with the names below.
"""

from singletable.examples._demo import (
    DEMO_CLOCK,
    DEMO_CURSOR_SECRET,
    DemoError,
    EngineExample,
    Example,
    Step,
    run_demo,
)

__all__ = ["DEMO_CLOCK", "DEMO_CURSOR_SECRET", "DemoError", "EngineExample", "Example", "Step", "run_demo"]
