"""Seed 003, WavyBlog (``singletable demo wavyblog``): a blog's users, posts and categories on one table.

``design`` declares the table and entities; ``service`` is the app's API (``WavyBlog``, ``open_blog``);
``sample`` holds deterministic sample data; ``walkthrough`` the demo's steps; ``errors`` the service's
errors and ``passwords`` its bcrypt hashing. README.md records the choices the design left open.
"""

from singletable.examples.wavyblog.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
