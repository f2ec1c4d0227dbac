"""singletable.design: tools that read a single-table design module and check, document, price or export it.

Each tool takes the design through the modeling layer's introspection (``Table.describe()``) and
:func:`singletable.data.load_design`; docs/design-tools.md shows each one's output.

- :func:`design_docs` -- the design's documentation (:class:`DesignDocs`: Markdown, SVG pictures of the item
  collections, one HTML page); :func:`write_docs` writes it into a directory.
- :class:`SampleError` -- items cannot be generated for a design without sample data.
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.design")

from singletable.design._docs import DesignDocs, design_docs, write_docs
from singletable.design._samples import SampleError

__all__ = ["DesignDocs", "SampleError", "design_docs", "write_docs"]
