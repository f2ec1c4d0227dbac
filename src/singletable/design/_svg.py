"""The picture of item collections: partitions as rows, items as cells coloured by entity, a legend.

Built with :mod:`xml.etree.ElementTree`, which escapes every text and attribute value it writes, so a key
holding ``<script>``, quotes or ``&`` is drawn as text, never markup. Long keys are shortened in the cell and
given whole in the cell's ``<title>`` (the browser's tooltip). A large table is cut at a fixed number of
partitions and cells per partition, with what was left out counted, so pictures stay readable and output is a
pure function of the items (the same items give the same bytes).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from singletable.design._collections import Partition

MAX_PARTITIONS = 40
MAX_CELLS = 6
CELL_WIDTH, CELL_HEIGHT, GAP = 168, 24, 4
ROW_HEIGHT = CELL_HEIGHT + 6
CHAR_WIDTH = 7.2  # monospace 12px
MARGIN = 16
CELL_CHARS = 21
LABEL_CHARS = 36
FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"


# What XML 1.0 cannot hold at all (control characters, lone surrogates): a key may, a picture shows U+FFFD.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ink(colour: str) -> str:
    """Black or white text, whichever reads better on ``colour`` (by its relative luminance)."""
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "#111111" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.45 else "#ffffff"


def render(title: str, subtitle: str, rows: list[Partition], colours: Mapping[str, str]) -> str:
    """The SVG document (text) for one table or index."""
    shown = rows[:MAX_PARTITIONS]
    label_width = min(LABEL_CHARS, max([len(r.key) for r in shown] + [14])) * CHAR_WIDTH + 12
    width = int(MARGIN * 2 + label_width + MAX_CELLS * (CELL_WIDTH + GAP) + 70)
    svg = ET.Element(
        "svg",
        {"xmlns": "http://www.w3.org/2000/svg", "font-family": FONT, "font-size": "12", "role": "img"},
    )
    ET.SubElement(svg, "title").text = xml_safe(f"{title}: {subtitle}")
    ET.SubElement(svg, "rect", {"width": "100%", "height": "100%", "fill": "#ffffff"})
    _text(svg, MARGIN, 24, title, {"font-size": "15", "font-weight": "bold"})
    _text(svg, MARGIN, 42, subtitle, {"fill": "#444444"})
    y = 56
    _text(svg, MARGIN, y + 10, "partition key", {"fill": "#666666", "font-size": "10"})
    _text(
        svg, MARGIN + label_width, y + 10, "items in sort-key order", {"fill": "#666666", "font-size": "10"}
    )
    y += 16
    if not rows:
        _text(svg, MARGIN, y + 16, "(no items)", {"fill": "#666666"})
        y += ROW_HEIGHT
    for row in shown:
        _row(svg, row, y, label_width, colours)
        y += ROW_HEIGHT
    if len(rows) > len(shown):
        _text(svg, MARGIN, y + 16, f"+{len(rows) - len(shown)} more partitions", {"fill": "#666666"})
        y += ROW_HEIGHT
    y = _legend(svg, y + 10, width, [c.entity for r in rows for c in r.cells], colours)
    svg.set("width", str(width))
    svg.set("height", str(y + MARGIN))
    svg.set("viewBox", f"0 0 {width} {y + MARGIN}")
    return ET.tostring(svg, encoding="unicode") + "\n"


def _row(svg: ET.Element, row: Partition, y: int, label_width: float, colours: Mapping[str, str]) -> None:
    group = ET.SubElement(svg, "g", {"class": "partition"})
    ET.SubElement(group, "title").text = xml_safe(row.key)
    _text(group, MARGIN, y + 16, shorten(row.key, LABEL_CHARS), {"font-weight": "bold"})
    x = MARGIN + label_width
    for cell in row.cells[:MAX_CELLS]:
        colour = colours.get(cell.entity, "#dddddd")
        item = ET.SubElement(group, "g", {"class": "item"})
        keys = "\n".join(f"{name} = {value}" for name, value in cell.keys.items())
        ET.SubElement(item, "title").text = xml_safe(f"{cell.entity}\n{keys}")
        ET.SubElement(
            item,
            "rect",
            {"x": f"{x:g}", "y": str(y), "width": str(CELL_WIDTH), "height": str(CELL_HEIGHT), "rx": "4"}
            | {"fill": colour, "stroke": "#333333", "stroke-width": "0.5"},
        )
        _text(item, x + 6, y + 16, shorten(cell.sort_key or cell.entity, CELL_CHARS), {"fill": _ink(colour)})
        x += CELL_WIDTH + GAP
    if len(row.cells) > MAX_CELLS:
        _text(group, x + 4, y + 16, f"+{len(row.cells) - MAX_CELLS}", {"fill": "#666666"})


def _legend(svg: ET.Element, y: int, width: int, used: list[str], colours: Mapping[str, str]) -> int:
    """Swatches for the labels drawn, in the design's order, wrapping at the picture's width."""
    present = set(used)
    entries = [label for label in colours if label in present]
    x: float = MARGIN
    for label in entries:
        span = 22 + len(label) * CHAR_WIDTH + 18
        if x + span > width - MARGIN and x > MARGIN:
            x, y = MARGIN, y + 20
        ET.SubElement(
            svg,
            "rect",
            {"x": f"{x:g}", "y": str(y), "width": "14", "height": "14", "rx": "2", "fill": colours[label]}
            | {"stroke": "#333333", "stroke-width": "0.5"},
        )
        _text(svg, x + 20, y + 11, label)
        x += span
    return y + 20


def _text(parent: ET.Element, x: float, y: float, text: str, attrs: Mapping[str, str] | None = None) -> None:
    element = ET.SubElement(parent, "text", {"x": f"{x:g}", "y": f"{y:g}", **(attrs or {})})
    element.text = xml_safe(text)
