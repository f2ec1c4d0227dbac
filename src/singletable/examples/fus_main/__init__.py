"""Seed 000, ``fus-main`` (``singletable demo fus-main``): a catalog of web sites with tags, star ratings,
comments and custom RBAC groups on one table.

``design`` declares the table, entities and access patterns; ``service`` is the app's API with the design's
roles enforced (``SiteCatalog``); ``sample`` holds deterministic sample data; ``walkthrough`` the demo's
steps. README.md records the choices the design left open.
"""

from singletable.examples.fus_main.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
