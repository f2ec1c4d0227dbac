"""Seed 004, the Blog API (``singletable demo blog-api``): users, posts, a category hierarchy, threaded
comments, likes, bookmarks and notifications on one table.

``design`` declares the table and entities; ``service`` is the app's API (``BlogService``); ``sample`` holds
deterministic sample data; ``walkthrough`` the demo's steps. README.md records the choices the design left
open.
"""

from singletable.examples.blog_api.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
