"""Seed 002, places/posts/records (``singletable demo places``): an inverted-index single table.

``design`` declares the table and entities; ``service`` is the app's API (``Archive``); ``sample`` holds
deterministic sample data; ``walkthrough`` the demo's steps; ``legacy`` the older layout the design
describes, ``migrations`` the move from it (``migrate`` runs it from the command line). README.md records
the choices the design left open.
"""

from singletable.examples.places.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
