"""singletable.design: tools that read a single-table design module and check, document, price or export it.

Each tool takes the design through the modeling layer's introspection (``Table.describe()``) and
:func:`singletable.data.load_design`; docs/design-tools.md shows each one's output.

- :func:`design_docs` -- the design's documentation (:class:`DesignDocs`: Markdown, SVG pictures of the item
  collections, one HTML page); :func:`write_docs` writes it into a directory.
- :func:`design_cost` -- the monthly bill of a traffic profile (:class:`CostReport`), from the capacity every
  pattern and write really consumes on the embedded engine; :func:`load_traffic` reads the profile,
  :func:`load_prices` the prices (:class:`Prices`; US East by default), :class:`Traffic` is a profile.
- :class:`SampleError` -- items cannot be generated for a design without sample data; :class:`CostError` --
  a traffic or prices file that cannot be used.
"""

from singletable._extras import MissingExtra, missing

if missing(("pydantic",)):
    raise MissingExtra("model", "singletable.design")

from singletable.design._cost import CostReport, design_cost
from singletable.design._cost_inputs import CostError, Prices, Traffic, load_prices, load_traffic
from singletable.design._docs import DesignDocs, design_docs, write_docs
from singletable.design._items import SampleError

__all__ = [
    "CostError",
    "CostReport",
    "DesignDocs",
    "Prices",
    "SampleError",
    "Traffic",
    "design_cost",
    "design_docs",
    "load_prices",
    "load_traffic",
    "write_docs",
]
