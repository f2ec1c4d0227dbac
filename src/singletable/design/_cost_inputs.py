"""What ``cost`` reads from files: the prices (``prices.toml`` shipped here, or ``--prices FILE``) and the
traffic profile (``--traffic FILE``), both TOML.

Prices are data, not code, so a new price list or another region is a file, and the packaged defaults cite
their source in their comments. A profile names the design's own patterns and entities; anything else is
refused with the file, the line and the key (``traffic.toml:4: [patterns] "Post.by_autor": no such access
pattern; this design has: ...``), never silently priced as zero.

A traffic profile::

    [patterns]                      # calls per month of each named access pattern
    "Post.by_author" = 3_000_000
    "Post.in_category" = { calls = 10_000_000, page_size = 10 }   # page_size: entities per call (25)

    [entities.Post]                 # items per month written, and items stored
    creates = 30_000
    updates = 10_000
    deletes = 500
    stored = 1_000_000
    sizes = { body = 4000 }         # characters of a string field: items are then generated at that size
    update_field = "title"          # what an update changes (default: the first field outside any key)

    [provisioned]
    target_utilization = 0.7        # provisioned capacity = average rate / this (auto scaling's default)
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from singletable.data import Design
from singletable.design._measure import DEFAULT_PAGE_SIZE, pattern_calls

DEFAULT_UTILIZATION = 0.7


class CostError(ValueError):
    """A prices or traffic file that cannot be used, named with its file, line and key."""


@dataclass(frozen=True)
class Prices:
    """Unit prices, per million request units, per capacity-unit hour and per GB-month."""

    region: str
    currency: str
    write_request_units_per_million: float
    read_request_units_per_million: float
    storage_gb_month: float
    write_capacity_unit_hour: float
    read_capacity_unit_hour: float
    hours_per_month: float
    bytes_per_gb: float


@dataclass(frozen=True)
class PatternTraffic:
    calls: float
    page_size: int = DEFAULT_PAGE_SIZE


@dataclass(frozen=True)
class EntityTraffic:
    creates: float = 0
    updates: float = 0
    deletes: float = 0
    stored: float = 0
    sizes: dict[str, int] = field(default_factory=dict)
    update_field: str | None = None  # the field an update changes (else the first outside keys and guards)


@dataclass(frozen=True)
class Traffic:
    """A month of traffic: calls per pattern, writes and stored items per entity."""

    patterns: dict[str, PatternTraffic] = field(default_factory=dict)
    entities: dict[str, EntityTraffic] = field(default_factory=dict)
    target_utilization: float = DEFAULT_UTILIZATION


def load_prices(path: str | Path | None = None) -> Prices:
    """The packaged US East prices, with any key ``path`` sets in their place."""
    packaged = resources.files("singletable.design").joinpath("prices.toml").read_text(encoding="utf-8")
    values: dict[str, Any] = tomllib.loads(packaged)
    if path is not None:
        where, text, given = _read(path)
        for key, value in given.items():
            known = {f.name: f.type for f in fields(Prices)}
            if key not in known:
                raise CostError(
                    f"{where}:{_line(text, key)}: {key}: not a price; prices are {', '.join(known)}"
                )
            if key in ("region", "currency"):
                if not isinstance(value, str):
                    raise CostError(f"{where}:{_line(text, key)}: {key}: a string, not {value!r}")
            else:
                _number(where, text, key, value, positive=key in ("hours_per_month", "bytes_per_gb"))
            values[key] = value
    return Prices(**values)


def load_traffic(path: str | Path, design: Design) -> Traffic:
    """The profile at ``path``, checked against ``design``'s pattern names and entity class names."""
    patterns, entities = pattern_calls(design), design.entities
    where, text, data = _read(path)
    unknown = sorted(set(data) - {"patterns", "entities", "provisioned"})
    if unknown:
        raise CostError(
            f"{where}:{_line(text, unknown[0])}: [{unknown[0]}]: not a section; a profile has "
            "[patterns], [entities.NAME] and [provisioned]"
        )
    return Traffic(
        {
            name: _pattern(where, text, name, value, patterns)
            for name, value in _table(where, text, data, "patterns")
        },
        {
            name: _entity(where, text, name, value, entities)
            for name, value in _table(where, text, data, "entities")
        },
        _utilization(where, text, data.get("provisioned", {})),
    )


def _read(path: str | Path) -> tuple[str, str, dict[str, Any]]:
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise CostError(f"{where}: {error.strerror or error}") from None
    try:
        return where, text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column \d+\)", str(error))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        raise CostError(f"{where}:{found[1] if found else 1}: not TOML: {reason}") from None


def _line(text: str, key: str) -> int:
    """The line that first names ``key`` (bare, quoted or in a [section] header); 1 when none does."""
    pattern = re.compile(r'(^|[\s.{\[,"])' + re.escape(key) + r'"?\s*[=\].]')
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.search(_without_comment(line)):
            return number
    return 1


def _without_comment(line: str) -> str:
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def _number(where: str, text: str, key: str, value: Any, *, positive: bool = False, label: str = "") -> float:
    name = label or key
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value < 0
        or (positive and value == 0)
    ):
        wanted = "a positive number" if positive else "a number, 0 or more"
        raise CostError(f"{where}:{_line(text, key)}: {name}: {wanted}, not {value!r}")
    return float(value)


def _table(where: str, text: str, data: Mapping[str, Any], section: str) -> list[tuple[str, Any]]:
    value = data.get(section, {})
    if not isinstance(value, dict):
        raise CostError(f"{where}:{_line(text, section)}: {section}: a table ([{section}]), not {value!r}")
    return list(value.items())


def _pattern(where: str, text: str, name: str, value: Any, known: Mapping[str, Any]) -> PatternTraffic:
    if name not in known:
        have = ", ".join(sorted(known)) or "none"
        raise CostError(
            f'{where}:{_line(text, name)}: [patterns] "{name}": no such access pattern; '
            f"this design has: {have}"
        )
    label = f'[patterns] "{name}"'
    if not isinstance(value, dict):
        return PatternTraffic(_number(where, text, name, value, label=label))
    extra = sorted(set(value) - {"calls", "page_size"})
    if extra or "calls" not in value:
        raise CostError(
            f"{where}:{_line(text, name)}: {label}: a number of calls, or {{calls = N, page_size = N}}"
        )
    size = value.get("page_size", DEFAULT_PAGE_SIZE)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 1000:
        raise CostError(
            f"{where}:{_line(text, name)}: {label}: page_size is a whole number from 1 to 1000, not {size!r}"
        )
    return PatternTraffic(_number(where, text, name, value["calls"], label=f"{label} calls"), size)


def _entity(where: str, text: str, name: str, value: Any, known: Mapping[str, Any]) -> EntityTraffic:
    if name not in known:
        have = ", ".join(known) or "none"
        raise CostError(
            f"{where}:{_line(text, name)}: [entities.{name}]: no such entity; this design has: {have}"
        )
    if not isinstance(value, dict):
        raise CostError(
            f"{where}:{_line(text, name)}: entities.{name}: a table ([entities.{name}]), not {value!r}"
        )
    allowed = ("creates", "updates", "deletes", "stored", "sizes", "update_field")
    numbers: dict[str, float] = {}
    for key, given in value.items():
        label = f"[entities.{name}] {key}"
        if key not in allowed:
            raise CostError(
                f"{where}:{_line(text, key)}: {label}: not a setting; an entity has {', '.join(allowed)}"
            )
        if key not in ("sizes", "update_field"):
            numbers[key] = _number(where, text, key, given, label=label)
    sizes = value.get("sizes", {})
    fields_of = known[name].model_fields
    if not isinstance(sizes, dict):
        raise CostError(
            f"{where}:{_line(text, 'sizes')}: [entities.{name}] sizes: a table of field = characters"
        )
    for field_name, chars in sizes.items():
        if field_name not in fields_of:
            raise CostError(
                f"{where}:{_line(text, field_name)}: [entities.{name}] sizes: {name} has no field "
                f"{field_name}; its fields: {', '.join(fields_of)}"
            )
        if isinstance(chars, bool) or not isinstance(chars, int) or not 0 < chars <= 400_000:
            raise CostError(
                f"{where}:{_line(text, field_name)}: [entities.{name}] sizes.{field_name}: characters "
                f"from 1 to 400000, not {chars!r}"
            )
    return EntityTraffic(
        **numbers, sizes=dict(sizes), update_field=_update_field(where, text, name, value, known)
    )


def _update_field(
    where: str, text: str, name: str, value: Mapping[str, Any], known: Mapping[str, Any]
) -> str | None:
    chosen = value.get("update_field")
    if chosen is None:
        return None
    meta = known[name].model_entity()
    if chosen not in meta.fields or chosen in meta.primary_fields:
        choices = ", ".join(f for f in meta.fields if f not in meta.primary_fields)
        raise CostError(
            f"{where}:{_line(text, 'update_field')}: [entities.{name}] update_field: {chosen!r} is not a "
            f"field of {name} outside its primary key; choose one of {choices}"
        )
    return str(chosen)


def _utilization(where: str, text: str, section: Any) -> float:
    if not isinstance(section, dict) or set(section) - {"target_utilization"}:
        raise CostError(f"{where}:{_line(text, 'provisioned')}: [provisioned]: holds target_utilization only")
    value = section.get("target_utilization", DEFAULT_UTILIZATION)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise CostError(
            f"{where}:{_line(text, 'target_utilization')}: [provisioned] target_utilization: a fraction "
            f"above 0 and at most 1, not {value!r}"
        )
    return float(value)
