"""The quick start (``singletable demo``): customers and their orders in one table, on the engine."""

from singletable.examples.quickstart.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
