"""The quick start (``singletable demo``): customers and their orders on one table, on the engine's own API.

``design`` declares the table (a CreateTable request); ``sample`` holds the customer and orders;
``walkthrough`` the demo's steps, each printing its response. README.md explains what the run shows.
"""

from singletable.examples.quickstart.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
