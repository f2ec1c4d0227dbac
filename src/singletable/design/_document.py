"""A small document model and its two renderings: Markdown and one self-contained HTML page.

``docs`` says what a design document holds once, as blocks (headings, paragraphs of text, code and bold
runs, code blocks, tables, pictures), and this module writes them out. Every value is escaped for where it
lands: Markdown text escapes the characters Markdown or inline HTML would read (``<`` ``>`` ``&`` ``|``
``*`` ``_`` and backticks), code spans and fences grow past the longest backtick run they hold, and HTML
goes through :func:`html.escape` (quotes included). The HTML page has its CSS inline, its pictures as inline
SVG and a Content-Security-Policy that allows nothing else: no script, no external asset.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

Run = tuple[str, str]  # ("text" | "code" | "bold", text)


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Paragraph:
    runs: list[Run]


@dataclass
class CodeBlock:
    text: str


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    code_columns: frozenset[int] = field(default_factory=frozenset)


@dataclass
class Picture:
    """An SVG picture: linked by file name from Markdown, inlined in HTML."""

    file: str
    alt: str
    svg: str


Block = Heading | Paragraph | CodeBlock | Table | Picture

# What Markdown (or the HTML it allows inline) reads as markup anywhere in a line; ``_`` only where it can
# open or close emphasis (not inside a word), ``#`` only where it opens a heading.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|^#)")


def md_text(text: str) -> str:
    """Plain text for Markdown: special characters backslash-escaped, ``&`` as an entity, one line."""
    one_line = " ".join(text.replace("&", "&amp;").split("\n"))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", one_line)


def md_code(text: str) -> str:
    """A code span that holds any text: delimited by more backticks than the text's longest run."""
    text = text.replace("\n", " ")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_cell(text: str, code: bool) -> str:
    if not text:
        return ""
    return md_code(text).replace("|", "\\|") if code else md_text(text)


def _md_runs(runs: list[Run]) -> str:
    out = []
    for kind, text in runs:
        if kind == "code":
            out.append(md_code(text))
        elif kind == "bold":
            out.append(f"**{md_text(text)}**")
        else:
            out.append(md_text(text))
    return "".join(out)


def markdown(blocks: list[Block]) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append("#" * block.level + " " + md_text(block.text))
        elif isinstance(block, Paragraph):
            parts.append(_md_runs(block.runs))
        elif isinstance(block, CodeBlock):
            longest = max((len(m) for m in re.findall(r"`{3,}", block.text)), default=2)
            fence = "`" * (longest + 1)
            parts.append(f"{fence}\n{block.text}\n{fence}")
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(md_text(h) for h in block.header) + " |"]
            lines.append("|" + " --- |" * len(block.header))
            for row in block.rows:
                cells = [_md_cell(c, i in block.code_columns) for i, c in enumerate(row)]
                lines.append("| " + " | ".join(cells) + " |")
            parts.append("\n".join(lines))
        elif isinstance(block, Picture):
            parts.append(f"![{md_text(block.alt)}]({block.file})")
    return "\n\n".join(parts) + "\n"


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px;
       padding: 0 1rem; color: #1a1a1a; line-height: 1.45; }
h1 { border-bottom: 2px solid #ddd; padding-bottom: .3rem; }
h2 { border-bottom: 1px solid #eee; padding-bottom: .2rem; margin-top: 2rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; }
pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; border-radius: 4px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #ddd; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
figure { margin: 1rem 0; overflow-x: auto; }
""".strip()

# Nothing but the inline style and the inline SVG pictures may load or run.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _html_runs(runs: list[Run]) -> str:
    out = []
    for kind, text in runs:
        escaped = html.escape(text, quote=True)
        out.append(
            f"<code>{escaped}</code>"
            if kind == "code"
            else f"<b>{escaped}</b>"
            if kind == "bold"
            else escaped
        )
    return "".join(out)


def _html_table(block: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
    rows = []
    for row in block.rows:
        cells = []
        for i, cell in enumerate(row):
            text = html.escape(cell, quote=True)
            cells.append(
                f"<td><code>{text}</code></td>" if i in block.code_columns and cell else f"<td>{text}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def page(title: str, blocks: list[Block]) -> str:
    """One HTML page holding everything: styles inline, pictures as inline SVG, no script."""
    body: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            anchor = f' id="{html.escape(block.anchor, quote=True)}"' if block.anchor else ""
            body.append(f"<h{block.level}{anchor}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            body.append(f"<p>{_html_runs(block.runs)}</p>")
        elif isinstance(block, CodeBlock):
            body.append(f"<pre><code>{html.escape(block.text, quote=True)}</code></pre>")
        elif isinstance(block, Table):
            body.append(_html_table(block))
        elif isinstance(block, Picture):
            label = html.escape(block.alt, quote=True)
            body.append(f'<figure aria-label="{label}">{block.svg.strip()}</figure>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
