"""Documents searched by meaning (``singletable demo docsearch``): a multi-tenant help centre on one table.

``design`` declares the table, its vector index and the entities; ``embedding`` turns text into a vector
deterministically (hashed words, no model to download); ``service`` is the app's API (``HelpCentre``);
``sample`` holds the sample documents of two tenants; ``walkthrough`` the demo's steps. README.md records the
design's choices.
"""

from singletable.examples.docsearch.walkthrough import EXAMPLE

__all__ = ["EXAMPLE"]
