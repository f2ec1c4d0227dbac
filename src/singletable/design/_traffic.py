"""Checking recorded traffic: the requests an application really sent (``Trace.save`` or ``singletable serve
--record``), one JSON object per line.

Four rules read it: Scans (ST701), requests DynamoDB rejects (ST702: a recorded ValidationException, or a
Query or Scan that the engine's own validation refuses when it is replayed on an empty copy of the design's
table -- seed 001's ``GSI4PK IN (...)`` is one), partition key values that take most of the requests
(ST703) and reads whose filter drops most of what they read (ST704, from ScannedCount and Count). Each
finding points at the first line of the file where the problem appears.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from singletable.design._findings import Finding

HOT_MIN_REQUESTS = 20  # a key is judged hot only over at least this many requests to its table or index
HOT_SHARE = 0.5  # ... when it takes at least this share of them
WASTE_MIN_SCANNED = 10  # a read is judged wasteful only over at least this many items read
WASTE_KEPT = 0.5  # ... when it returns less than this share of them
SINGLE_ITEM = {"GetItem": "Key", "UpdateItem": "Key", "DeleteItem": "Key", "PutItem": "Item"}


@dataclass
class Recorded:
    """One recorded request and where it came from (file and line, for findings)."""

    record: dict[str, Any]
    file: str | None
    line: int | None

    @property
    def operation(self) -> str:
        return str(self.record.get("operation", ""))

    @property
    def params(self) -> dict[str, Any]:
        params = self.record.get("params")
        return params if isinstance(params, dict) else {}

    def units(self) -> float:
        capacity = self.record.get("capacity")
        reported = capacity if isinstance(capacity, list) else [capacity]
        return sum(float(c.get("CapacityUnits", 0)) for c in reported if isinstance(c, dict))

    def where(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line} if self.file else {}


def read_traffic(source: str | Path | Iterable[dict[str, Any]]) -> list[Recorded]:
    """The records of a JSON Lines file (ValueError naming the file and line of a bad one), or given ones."""
    if not isinstance(source, str | Path):
        return [Recorded(dict(r), None, None) for r in source]
    records = []
    with open(source, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise ValueError(f"{source}:{number}: not JSON ({error.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("operation"), str):
                raise ValueError(f"{source}:{number}: not a recorded request (no operation)")
            records.append(Recorded(record, str(source), number))
    return records


@dataclass
class _Group:
    """Requests that share a shape (operation, table, index, expressions), with their totals."""

    first: Recorded
    requests: int = 0
    scanned: int = 0
    returned: int = 0
    units: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, recorded: Recorded) -> None:
        self.requests += 1
        self.scanned += int(recorded.record.get("scanned_count") or 0)
        self.returned += int(recorded.record.get("count") or 0)
        self.units += recorded.units()


def traffic_findings(
    source: str | Path | Iterable[dict[str, Any]], table: Any
) -> tuple[list[Finding], dict[str, Any]]:
    """The findings of recorded traffic, and a summary of what it held. ``table`` is the design's
    :class:`~singletable.model.Table` (None: no replay, no key attributes, so no ST702 replay or ST703)."""
    records = read_traffic(source)
    findings = _scans(records) + _rejected(records, table) + _hot_keys(records, table) + _waste(records)
    times = [r.record["time"] for r in records if isinstance(r.record.get("time"), int | float)]
    summary = {
        "requests": len(records),
        "operations": dict(Counter(r.operation for r in records).most_common()),
        "seconds": round(max(times) - min(times), 3) if len(times) > 1 else 0,
        "capacity_units": round(sum(r.units() for r in records), 2),
    }
    return findings, summary


def _where(params: dict[str, Any]) -> str:
    index = params.get("IndexName")
    return f"{params.get('TableName')}" + (f" index {index}" if index else "")


def _scans(records: list[Recorded]) -> list[Finding]:
    groups: dict[tuple[Any, ...], _Group] = {}
    for recorded in records:
        if recorded.operation != "Scan" or recorded.record.get("error"):
            continue
        params = recorded.params
        shape = (params.get("TableName"), params.get("IndexName"), params.get("FilterExpression"))
        groups.setdefault(shape, _Group(recorded)).add(recorded)
    findings = []
    for (_, _, filter_text), group in groups.items():
        filtered = f" with filter {filter_text!r}" if filter_text else ""
        findings.append(
            Finding(
                "ST701",
                f"Scan {_where(group.first.params)}",
                f"{group.requests} Scan request(s){filtered} read {group.scanned:,} items and returned "
                f"{group.returned:,}, for {group.units:g} read units",
                **group.first.where(),
            )
        )
    return findings


def _rejected(records: list[Recorded], table: Any) -> list[Finding]:
    """ST702: requests refused with a ValidationException, as recorded or when replayed on the engine."""
    refusals: dict[tuple[str, str], tuple[Recorded, int]] = {}
    replay = _Replay(table) if table is not None else None
    for recorded in records:
        error = recorded.record.get("error") or {}
        message = None
        if error.get("code") == "ValidationException":
            message = str(error.get("message", ""))
        elif not error and replay is not None and recorded.operation in ("Query", "Scan"):
            message = replay.refusal(recorded)
        if message is None:
            continue
        key = (recorded.operation, message)
        first, count = refusals.get(key, (recorded, 0))
        refusals[key] = (first, count + 1)
    if replay is not None:
        replay.close()
    return [
        Finding(
            "ST702",
            f"{operation} {_where(first.params)}",
            f"{count} request(s) refused: ValidationException: {message}" + _expression_shown(first.params),
            **first.where(),
        )
        for (operation, message), (first, count) in refusals.items()
    ]


def _expression_shown(params: dict[str, Any]) -> str:
    text = params.get("KeyConditionExpression")
    return f" (KeyConditionExpression {text!r})" if text else ""


class _Replay:
    """An empty in-memory copy of the design's table, to run recorded reads through the engine's checks."""

    def __init__(self, table: Any) -> None:
        from singletable.engine import Engine

        self.table = table
        self.engine = Engine(":memory:")
        self.created: set[str] = set()
        self.seen: dict[str, str | None] = {}

    def refusal(self, recorded: Recorded) -> str | None:
        from singletable.data import item_from_json
        from singletable.engine import DynamoDBError

        params = dict(recorded.params)
        name = params.get("TableName")
        if not isinstance(name, str) or name != self.table.resolved_name():
            return None  # another table: the design says nothing of its keys
        shape = json.dumps([recorded.operation, params], sort_keys=True, default=str)
        if shape in self.seen:
            return self.seen[shape]
        if name not in self.created:
            self.engine.create_table(**self.table.create_table_params(name))
            self.created.add(name)
        for member in ("ExpressionAttributeValues", "ExclusiveStartKey"):
            if isinstance(params.get(member), dict):
                try:
                    params[member] = item_from_json(params[member])
                except ValueError:
                    return None  # not DynamoDB JSON: the recorded answer is all there is to go by
        try:
            self.engine.execute(recorded.operation, params)
            refused = None
        except DynamoDBError as error:
            refused = error.message if error.code == "ValidationException" else None
        self.seen[shape] = refused
        return refused

    def close(self) -> None:
        self.engine.close()


def _hot_keys(records: list[Recorded], table: Any) -> list[Finding]:
    """ST703: a partition key value taking at least HOT_SHARE of HOT_MIN_REQUESTS or more requests."""
    if table is None:
        return []
    keys = _key_attributes(table)
    counts: dict[tuple[str, str | None], Counter[str]] = defaultdict(Counter)
    units: dict[tuple[str, str | None, str], float] = defaultdict(float)
    first: dict[tuple[str, str | None, str], Recorded] = {}
    for recorded in records:
        for place, value in _partition_values(recorded, keys):
            counts[place][value] += 1
            units[(*place, value)] += recorded.units()
            first.setdefault((*place, value), recorded)
    span = _span(records)
    findings = []
    for place, values in counts.items():
        total = sum(values.values())
        value, hits = values.most_common(1)[0]
        if total < HOT_MIN_REQUESTS or hits / total < HOT_SHARE:
            continue
        where = place[0] + (f" index {place[1]}" if place[1] else "")
        used = units[(*place, value)]
        rate = f", {used / span:,.1f} units/s over {span:,.1f} s" if span > 0 else ""
        findings.append(
            Finding(
                "ST703",
                f"{where} key {value}",
                f"{hits} of {total} requests ({hits / total:.0%}) used {', '.join(keys[place])} = {value} "
                f"({used:g} capacity units{rate}); {len(values)} distinct value(s) in all",
                **first[(*place, value)].where(),
            )
        )
    return findings


def _key_attributes(table: Any) -> dict[tuple[str, str | None], tuple[str, ...]]:
    name = table.resolved_name()
    found: dict[tuple[str, str | None], tuple[str, ...]] = {(name, None): (table.pk_name,)}
    for index in table.indexes:
        found[(name, index.name)] = index.pk_attributes  # every one, for a key of several attributes
    return found


def _partition_values(
    recorded: Recorded, keys: dict[tuple[str, str | None], tuple[str, ...]]
) -> Iterator[tuple[tuple[str, str | None], str]]:
    params, operation = recorded.params, recorded.operation
    if recorded.record.get("error"):
        return
    if operation in SINGLE_ITEM:
        place = (params.get("TableName"), None)
        item = params.get(SINGLE_ITEM[operation])
        if place in keys and isinstance(item, dict) and keys[place][0] in item:
            yield place, _shown_value(item[keys[place][0]])
    elif operation == "Query":
        place = (params.get("TableName"), params.get("IndexName"))
        if place in keys:
            parts = [_query_partition(params, attribute) for attribute in keys[place]]
            if all(part is not None for part in parts):
                yield place, " | ".join(p for p in parts if p is not None)


def _query_partition(params: dict[str, Any], attribute: str) -> str | None:
    """The partition key value of a Query's key condition (``PK = :v``), read with the engine's parser."""
    from singletable.engine.shared import (
        And,
        Comparison,
        NamePlaceholder,
        Path,
        ValuePlaceholder,
        parse_condition,
    )

    text = params.get("KeyConditionExpression")
    if not isinstance(text, str):
        return None
    try:
        node = parse_condition(text, "KeyConditionExpression")
    except Exception:  # refused text: ST702 reports it
        return None
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, And):
            stack += [part.left, part.right]
        elif isinstance(part, Comparison) and part.op == "=":
            for path, value in ((part.left, part.right), (part.right, part.left)):
                if isinstance(path, Path) and isinstance(value, ValuePlaceholder):
                    head = path.elements[0]
                    name = names.get(head.name) if isinstance(head, NamePlaceholder) else head
                    if name == attribute and value.name in values:
                        return _shown_value(values[value.name])
    return None


def _shown_value(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        return repr(inner) if isinstance(inner, str) else json.dumps(inner, default=str)
    return json.dumps(value, sort_keys=True, default=str)


def _span(records: list[Recorded]) -> float:
    times = [r.record["time"] for r in records if isinstance(r.record.get("time"), int | float)]
    return max(times) - min(times) if len(times) > 1 else 0.0


def _waste(records: list[Recorded]) -> list[Finding]:
    """ST704: Query shapes that returned under WASTE_KEPT of at least WASTE_MIN_SCANNED items read (a Scan's
    waste is in its ST701 finding already)."""
    groups: dict[tuple[Any, ...], _Group] = {}
    for recorded in records:
        params = recorded.params
        if recorded.operation != "Query" or not params.get("FilterExpression"):
            continue
        shape = (
            recorded.operation,
            params.get("TableName"),
            params.get("IndexName"),
            params.get("KeyConditionExpression"),
            params.get("FilterExpression"),
        )
        groups.setdefault(shape, _Group(recorded)).add(recorded)
    findings = []
    for (operation, _, _, _, filter_text), group in groups.items():
        if group.scanned < WASTE_MIN_SCANNED or group.returned >= WASTE_KEPT * group.scanned:
            continue
        dropped = group.scanned - group.returned
        findings.append(
            Finding(
                "ST704",
                f"{operation} {_where(group.first.params)}",
                f"filter {filter_text!r} kept {group.returned:,} of {group.scanned:,} items read "
                f"({group.returned / group.scanned:.0%}) over {group.requests} request(s): {dropped:,} "
                f"read, billed and dropped ({group.units:g} read units in all)",
                **group.first.where(),
            )
        )
    return findings
