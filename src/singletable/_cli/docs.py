"""``singletable docs MODULE``: a design's Markdown, item-collection pictures and HTML page
(``singletable.design.design_docs`` and ``write_docs``)."""

from __future__ import annotations

import click

from singletable._extras import require


@click.command()
@click.argument("module")
@click.option(
    "-o",
    "--output",
    "output",
    default="design-docs",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Directory to write README.md, index.html and the SVG pictures into (created if missing).",
)
def docs(module: str, output: str) -> None:
    """Document the design in MODULE (myapp.design, myapp.design:TABLE or a .py file): table,
    indexes, entities and key templates, each access pattern's exact request, and a picture of the item
    collections of the table and of each index, drawn from the design's sample data (or generated items)."""
    require("model", ("pydantic",), "singletable docs")
    from singletable.data import DesignError, load_design
    from singletable.design import SampleError, design_docs, write_docs

    try:
        written = write_docs(design_docs(load_design(module, option=""), source=module), output)
    except (DesignError, SampleError, OSError) as error:
        raise click.ClickException(str(error)) from None
    for path in written:
        click.echo(str(path))
