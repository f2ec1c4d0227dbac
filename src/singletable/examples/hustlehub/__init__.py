"""Seed 001, HustleHubDirectory (``singletable demo hustlehub``): a side-hustle directory on one table with
four GSIs.

``design`` declares the table and entities; ``service`` is the app's API (``HustleHub``); ``sample`` holds
deterministic sample data; ``walkthrough`` the demo's steps. README.md records the choices the design left
open.
"""

from singletable.examples.hustlehub.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
