"""``singletable tables|describe|get|query|scan|put|delete|count``: look at any table (docs/data.md).

Each command is a thin layer over a function of :mod:`singletable.data`: it opens the TARGET (an existing
database file, or an http(s) endpoint URL), turns its arguments into the call (keys as ``NAME=VALUE``, typed
from DescribeTable), and prints the answer with :mod:`singletable._cli._output`. Exit codes fit a shell:
0 done, 1 the target refused or could not be reached (one line: DynamoDB's error code and message, or an
item ``get`` did not find), 2 a usage error (click's, and arguments this module cannot read). The command
group words the library's refusals for every command (:mod:`singletable._cli._failures`).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import click

from singletable import data
from singletable._cli._options import (
    json_option,
    output_options,
    plain_option,
    segments_option,
    target_argument,
)
from singletable._cli._output import Format, description_table, show, write_items, write_json
from singletable.data.shared import is_url, loads, split_argument


@contextlib.contextmanager
def _opened(target: str, *, read_only: bool = True) -> Iterator[data.Target]:
    """The TARGET: an endpoint URL, or a database file that must already exist (looking never creates one),
    opened read-only unless the command writes (``put``, ``delete``): looking never changes a file."""
    if is_url(target):
        from singletable._extras import require

        require("client", ("boto3",), "a TARGET URL")
        from botocore.config import Config

        opened = data.open_target(target, config=Config(retries={"mode": "standard", "max_attempts": 3}))
    else:
        # DatabaseFileError (an OSError): one line, as every data command
        opened = data.open_target(target, read_only=read_only, create=False)
    with opened:
        yield opened


_item_output = output_options(
    "Write a JSON array (DynamoDB JSON).",
    "Write one JSON item per line.",
    plain_help="Plain JSON instead of DynamoDB JSON (in and out).",
    pager=True,
)


@dataclass(frozen=True)
class _Read:
    """What ``query`` and ``scan`` share: the index, the filter and its placeholders, limit, consistency,
    design."""

    index: str | None
    filter_text: str | None
    values: str | None
    names: str | None
    limit: int | None
    consistent: bool
    design: str | None

    def filter(self, plain: bool) -> data.Expression | None:
        return _filter(self.filter_text, self.values, self.names, plain)

    def loaded_design(self) -> data.Design | None:
        return data.load_design(self.design) if self.design else None


def _read_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of :class:`_Read`, given to the command as one ``read``."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        read = _Read(**{name: kwargs.pop(name) for name in _Read.__dataclass_fields__})
        command(*args, read=read, **kwargs)

    for option in reversed(
        (
            click.option("--index", "-i", metavar="NAME", help="Read this secondary index."),
            click.option("--filter", "filter_text", metavar="EXPR", help="A DynamoDB FilterExpression."),
            click.option("--values", metavar="JSON", help="Its :placeholders, a JSON object."),
            click.option("--names", metavar="JSON", help="Its #placeholders, a JSON object of names."),
            click.option("--limit", "-n", type=click.IntRange(min=1), help="Stop after this many items."),
            click.option("--consistent", is_flag=True, help="Strongly consistent read."),
            click.option("--design", metavar="MODULE", help="A design module: label items by entity."),
        )
    ):
        run = option(run)
    return run


def _filter(text: str | None, values: str | None, names: str | None, plain: bool) -> data.Expression | None:
    if text is None:
        if values or names:
            raise click.UsageError("--values and --names go with --filter")
        return None
    parsed_values = {}
    if values:
        try:
            parsed_values = data.parse_item(values, plain=plain)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--values") from None
    parsed_names = _json_object(names, "--names") if names else {}
    return data.Expression(text, parsed_names, parsed_values)


def _json_object(text: str, hint: str) -> dict[str, Any]:
    try:
        value = loads(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=hint) from None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise click.BadParameter('a JSON object of names, like {"#s": "status"}', param_hint=hint)
    return value


def _key(
    target: data.Target, table: str, arguments: tuple[str, ...], key_json: str | None, plain: bool
) -> Any:
    if key_json is not None:
        if arguments:
            raise click.UsageError("give the key as NAME=VALUE arguments or --key-json, not both")
        return data.parse_item(key_json, plain=plain)
    return data.key_from_arguments(arguments, data.describe_keys(target, table))


def _item_keys(target: data.Target, table: str, index: str | None, design: data.Design | None) -> list[str]:
    if design is not None:
        return design.key_attributes(index)
    description = data.describe(target, table)
    names = data.key_schema(description).names
    if index is not None:
        names += [n for n in data.key_schema(description, index).names if n not in names]
    return names


@click.command()
@target_argument()
@output_options("Write a JSON array of names.", "Write one JSON string per line.")
def tables(target: str, form: Format) -> None:
    """List the tables of TARGET (a database file or an endpoint URL), one name per line."""
    with _opened(target) as opened:
        names = list(data.tables(opened))
    if form.kind == "json":
        write_json(names, form)
    for name in names if form.kind != "json" else ():
        if form.kind == "jsonl":
            write_json(name, form)
        else:
            click.echo(name)


@click.command()
@target_argument()
@click.argument("table")
@json_option("Write DescribeTable's answer as JSON.")
@click.option(
    "--settings",
    is_flag=True,
    help="Write the table's settings as JSON (DescribeTable's Table with TimeToLiveDescription and Tags): "
    "what import --schema reads to create the table like this one.",
)
def describe(target: str, table: str, as_json: bool, settings: bool) -> None:
    """Show a table's keys, indexes, item count and settings (DescribeTable)."""
    with _opened(target) as opened:
        if settings:
            _write_settings(opened, table)
            return
        description = data.describe(opened, table)
    if as_json:
        write_json(description, Format("json"))
    else:
        show(description_table(description), Format())


def _write_settings(opened: data.Target, table: str) -> None:
    warnings: list[str] = []
    captured = data.TableSettings.capture(opened, table, warnings.append)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if captured is None:
        raise click.ClickException(
            f"ResourceNotFoundException: Requested resource not found: Table: {table} not found"
        )
    write_json(captured.to_json(table), Format("json"))


@click.command()
@target_argument()
@click.argument("table")
@click.argument("key", nargs=-1)
@click.option("--key-json", metavar="JSON", help="The key as a JSON object instead of NAME=VALUE arguments.")
@click.option("--consistent", is_flag=True, help="Strongly consistent read.")
@click.option("--design", metavar="MODULE", help="A design module: label the item by entity.")
@_item_output
def get(
    target: str,
    table: str,
    key: tuple[str, ...],
    key_json: str | None,
    consistent: bool,
    design: str | None,
    form: Format,
) -> None:
    """Show the item with KEY (NAME=VALUE for each key attribute: PK=USER#1 SK=PROFILE). Exit 1 if absent."""
    loaded = data.load_design(design) if design else None
    with _opened(target) as opened:
        the_key = _key(opened, table, key, key_json, form.plain)
        item = data.get(opened, table, the_key, consistent=consistent)
        keys = _item_keys(opened, table, None, loaded) if item is not None and form.kind == "table" else []
    if item is None:
        raise click.ClickException(f"no item in {table} with key {data.render_item(the_key, plain=True)}")
    if form.kind == "json":
        click.echo(data.render_item(item, plain=form.plain))
    else:
        write_items([item], form, keys=keys, label=loaded.label if loaded else None, title=table)


@click.command()
@target_argument()
@click.argument("arguments", nargs=-1, required=True, metavar="TABLE CONDITION... | PATTERN [FIELD=VALUE]...")
@_read_options
@click.option("--newest-first", "-r", is_flag=True, help="Descending sort-key order.")
@click.option(
    "--table",
    "-t",
    "table_name",
    metavar="NAME",
    help="With --design: the table's name on TARGET (default: the design's).",
)
@_item_output
def query(
    target: str,
    arguments: tuple[str, ...],
    newest_first: bool,
    table_name: str | None,
    read: _Read,
    form: Format,
) -> None:
    """Query TABLE by key: TARGET TABLE PK=VALUE [SORT-KEY CONDITION].

    \b
    The sort-key condition is one of SK=V, SK<V, SK<=V, SK>V, SK>=V, SK^=PREFIX (begins_with)
    or SK>=LOW SK<=HIGH (BETWEEN); values are typed by the table's key schema.
    With --design MODULE: TARGET ENTITY.PATTERN [VALUE...] [FIELD=VALUE...] runs a declared access pattern,
    and TARGET PK=VALUE [...] queries the design's table (or --table), labelling items by entity.
    """
    loaded = read.loaded_design()
    label = loaded.label if loaded else None
    index = read.index
    with _opened(target) as opened:
        if loaded is not None and not _is_condition(arguments[0]):
            if index or read.filter_text or read.consistent:
                raise click.UsageError(
                    "a pattern declares its own index and filter; drop --index, --filter and --consistent"
                )
            _pattern_query(
                opened, loaded, arguments, form, limit=read.limit, newest_first=newest_first, table=table_name
            )
            return
        if loaded is not None:
            table, conditions = table_name or loaded.table_name, arguments
        else:
            table, conditions = arguments[0], arguments[1:]
        items = data.query(
            opened,
            table,
            data.key_condition(conditions, data.describe_keys(opened, table, index)),
            index=index,
            filter=read.filter(form.plain),
            limit=read.limit,
            newest_first=newest_first,
            consistent=read.consistent,
        )
        write_items(items, form, keys=_item_keys(opened, table, index, loaded), label=label, title=table)


def _pattern_query(
    opened: data.Target,
    design: data.Design,
    arguments: tuple[str, ...],
    form: Format,
    **options: Any,
) -> None:
    """``ENTITY.PATTERN [VALUE...] [FIELD=VALUE...]``: run the pattern, label and print its items."""
    name, rest = arguments[0], arguments[1:]
    positional = [a for a in rest if not _is_condition(a)]
    fields = dict(_field_argument(a) for a in rest if _is_condition(a))
    items = data.run_pattern(opened, design, name, fields, positional=positional, **options)
    keys = design.key_attributes(design.pattern(name).index)
    write_items(items, form, keys=keys, label=design.label, title=name)


def _is_condition(argument: str) -> bool:
    try:
        split_argument(argument)
    except ValueError:
        return False
    return True


def _field_argument(argument: str) -> tuple[str, str]:
    name, op, value = split_argument(argument)
    if op != "=":
        raise click.UsageError(f"a pattern takes FIELD=VALUE arguments, not {argument!r}")
    return name, value


@click.command()
@target_argument()
@click.argument("table", required=False)
@_read_options
@segments_option("Parallel-scan segments.", show_default=False)
@click.option("--segment", type=click.IntRange(min=0), help="Read only this segment of --segments.")
@_item_output
def scan(
    target: str, table: str | None, segments: int, segment: int | None, read: _Read, form: Format
) -> None:
    """Every item of TABLE (the design's table with --design), --segments N read at once."""
    loaded = read.loaded_design()
    if table is None:
        if loaded is None:
            raise click.UsageError("Missing argument 'TABLE'.")
        table = loaded.table_name
    with _opened(target) as opened:
        items = data.scan(
            opened,
            table,
            index=read.index,
            filter=read.filter(form.plain),
            limit=read.limit,
            segments=segments,
            segment=segment,
            consistent=read.consistent,
        )
        label = loaded.label if loaded else None
        write_items(items, form, keys=_item_keys(opened, table, read.index, loaded), label=label, title=table)


@click.command()
@target_argument()
@click.argument("table")
@click.argument("item", required=False)
@plain_option("The items are plain JSON, not DynamoDB JSON.")
def put(target: str, table: str, item: str | None, plain: bool) -> None:
    """Write ITEM (a JSON object), or each line of JSON Lines on stdin when ITEM is - or missing."""
    lines = [(0, item)] if item not in (None, "-") else list(enumerate(sys.stdin, start=1))
    items = []
    for number, text in lines:
        if number and not text.strip():
            continue
        try:
            items.append((number, data.parse_item(text, plain=plain)))
        except ValueError as error:
            where = f"line {number}" if number else "ITEM"
            raise click.UsageError(f"{where}: {error} (nothing was written)") from None
    with _opened(target, read_only=False) as opened:
        for written, (number, parsed) in enumerate(items):
            try:
                data.put(opened, table, parsed)
            except data.TargetError as error:
                where = f"line {number}: " if number else ""
                raise click.ClickException(
                    f"{where}{error.code}: {error.message} ({_count(written)} written before it)"
                ) from None
    click.echo(f"{_count(len(items))} written to {table}", err=True)


def _count(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


@click.command()
@target_argument()
@click.argument("table")
@click.argument("key", nargs=-1)
@click.option("--key-json", metavar="JSON", help="The key as a JSON object instead of NAME=VALUE arguments.")
@plain_option("--key-json and the printed item are plain JSON.")
@json_option("Print the deleted item as JSON.")
def delete(
    target: str, table: str, key: tuple[str, ...], key_json: str | None, plain: bool, as_json: bool
) -> None:
    """Delete the item with KEY (NAME=VALUE for each key attribute). Deleting no item is not an error."""
    with _opened(target, read_only=False) as opened:
        old = data.delete(opened, table, _key(opened, table, key, key_json, plain))
    if as_json and old is not None:
        click.echo(data.render_item(old, plain=plain))
    click.echo("deleted 1 item" if old is not None else "no item had that key", err=True)


@click.command()
@target_argument()
@click.argument("table")
@click.argument("key_condition", nargs=-1)
@click.option("--index", "-i", metavar="NAME", help="Count in this secondary index.")
@click.option("--filter", "filter_text", metavar="EXPR", help="A DynamoDB FilterExpression.")
@click.option("--values", metavar="JSON", help="Its :placeholders, a JSON object.")
@click.option("--names", metavar="JSON", help="Its #placeholders, a JSON object of names.")
@plain_option("--values is plain JSON.")
def count(
    target: str,
    table: str,
    key_condition: tuple[str, ...],
    index: str | None,
    filter_text: str | None,
    values: str | None,
    names: str | None,
    plain: bool,
) -> None:
    """Print how many items TABLE holds, or how many match a key condition (as for query) and filter."""
    with _opened(target) as opened:
        condition = (
            data.key_condition(key_condition, data.describe_keys(opened, table, index))
            if key_condition
            else None
        )
        number = data.count(
            opened,
            table,
            key_condition=condition,
            index=index,
            filter=_filter(filter_text, values, names, plain),
        )
    click.echo(str(number))


COMMANDS = (tables, describe, get, query, scan, put, delete, count)
