"""Running a tool call over the model's :class:`~singletable.model.DB`, within the server's policy.

Every call is checked against its tool's schema and converted through the entity's field types before the
model sees it, so no text from the agent becomes an expression: key conditions come from the patterns'
templates, filters from typed equality on named fields. Each call runs inside a ``db.trace()``; a guard on
the DB's request function stops a call whose read capacity reached ``max_rcu_per_call`` before it sends
another request, and in confirm mode keeps every write request instead of sending it (the reads a write
plans with still run). Calls run one at a time (a lock): the guard replaces the DB's request function.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from singletable.mcp._describe import describe_design
from singletable.mcp._schema import ArgumentError, check_arguments, converted, converted_value
from singletable.mcp._tools import Policy, ToolSpec, design_tools
from singletable.model import DB, Collection, Cond, EntityMeta, ModelError, Page, Pattern, Query, Trace

log = logging.getLogger("singletable.mcp")

WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
READ_OPERATIONS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
PRIVATE = 0o600
COUNT_PAGE = 100  # entities per page while counting


class ToolError(Exception):
    """A call that cannot be answered: the message, for the agent, says what to change."""


class BudgetSpent(Exception):
    """The call's read capacity reached its limit before its next request."""

    def __init__(self, spent: float, requests: int) -> None:
        super().__init__(spent, requests)
        self.spent, self.requests = spent, requests


def open_private(path: str) -> int:
    """``path`` opened for appending, private (0600) from its creation whatever the umask; a file that
    others could read is narrowed to 0600. Raises OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) != PRIVATE:
            os.fchmod(fd, PRIVATE)
    except OSError:
        os.close(fd)
        raise
    return fd


def _json(value: Any) -> Any:
    """An entity (or a list of them) as plain JSON data."""
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if dump is not None else value


def _validation_words(tool: str, error: ValidationError) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(all)'}: {e['msg']}" for e in error.errors()[:5]]
    return f"{tool}: " + "; ".join(parts)


def _no_tool(name: str) -> str:
    if name.startswith(("put_", "update_", "delete_")):
        return (
            f"no tool {name!r} (writes need --allow-writes or --write ENTITY; deletes also --allow-deletes)"
        )
    return f"no tool {name!r}; describe_design lists the access patterns and their tools"


class DesignTools:
    """The tools of ``db``'s design under ``policy``; :meth:`call` runs one. ``record``: a file that gets one
    JSON line per call (created 0600)."""

    def __init__(self, db: DB, policy: Policy | None = None, *, record: str | None = None) -> None:
        self.db = db
        self.table = db.table
        self.policy = policy or Policy()
        self.tools = design_tools(self.table, self.policy)
        self.record_path = record
        self._record_fd = open_private(record) if record else -1
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the record file (the DB is the caller's)."""
        if self._record_fd >= 0:
            fd, self._record_fd = self._record_fd, -1
            os.close(fd)

    # -- one call ---------------------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Any:
        """The result of tool ``name`` (plain JSON data); :class:`ToolError` when it cannot be answered."""
        arguments = dict(arguments or {})
        with self._lock:
            planned: list[dict[str, Any]] | None = [] if self.policy.confirm else None
            trace: Trace | None = None
            try:
                spec = self.tools.get(name)
                if spec is None:
                    raise ToolError(_no_tool(name))
                check_arguments(name, spec.input_schema, arguments)
                with self.db.trace() as trace:
                    traced = self.db.call
                    self.db.call = self._guard(trace, traced, planned if not spec.read_only else None)
                    try:
                        result = self._run(spec, arguments)
                    finally:
                        self.db.call = traced
                if planned is not None and not spec.read_only:
                    result = {
                        "confirm": True,
                        "written": False,
                        "planned_requests": planned,
                        "note": "nothing was written: the server runs in --confirm mode",
                    }
            except Exception as error:
                message = self._message(name, error)
                self._record(name, arguments, trace, planned, message)
                raise ToolError(message) from None
            self._record(name, arguments, trace, planned, None)
            return result

    def _message(self, name: str, error: Exception) -> str:
        if isinstance(error, (ToolError, ArgumentError)):
            return str(error)
        if isinstance(error, BudgetSpent):
            return (
                f"{name}: this call's read budget ({self.policy.max_rcu_per_call:g} RCU) was spent after "
                f"{error.requests} requests ({error.spent:g} RCU) and nothing was returned; narrow the "
                "key arguments or `where`, or lower `limit`"
            )
        if isinstance(error, ValidationError):
            return _validation_words(name, error)
        if getattr(error, "code", None) == "ResourceNotFoundException":
            return f"{name}: the table {self.db.table_name} does not exist on this server's target"
        if any(c.__module__.startswith("botocore") for c in type(error).__mro__[:-2]):
            return f"{name}: {type(error).__name__}: {error}"  # the endpoint cannot be reached or refused us
        if isinstance(error, (ModelError, ValueError)):
            return f"{name}: {type(error).__name__}: {error}"
        log.exception("singletable mcp: tool %s failed", name)
        return f"{name}: internal error ({type(error).__name__}); the server's log has the details"

    def _guard(
        self, trace: Trace, send: Callable[[str, dict[str, Any]], Any], planned: list[dict[str, Any]] | None
    ) -> Callable[[str, dict[str, Any]], Any]:
        budget = self.policy.max_rcu_per_call

        def guarded(operation: str, params: dict[str, Any]) -> Any:
            if planned is not None and operation in WRITE_OPERATIONS:
                planned.append({"operation": operation, "params": params})
                return {}
            reads = [r for r in trace.requests if r.operation in READ_OPERATIONS]
            spent = sum(r.capacity_units for r in reads)
            if operation in READ_OPERATIONS and spent >= budget:
                raise BudgetSpent(spent, len(reads))
            return send(operation, params)

        return guarded

    # -- what each kind of tool does --------------------------------------------------------------------

    def _run(self, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        kind = spec.kind
        if kind == "describe":
            return describe_design(self.table, self.db.table_name, self.tools)
        if kind in ("pattern", "collection"):
            query = self._query(spec, arguments)
            limit = int(arguments.get("limit", min(25, self.policy.max_page_size)))
            page = self.db.page(query, size=limit, cursor=arguments.get("cursor"))
            return self._page(spec, page)
        if kind == "count":
            return self._count(arguments)
        meta = spec.entity
        assert meta is not None
        if kind == "get":
            found = self.db.get(meta.cls, **converted(spec.name, meta, arguments))
            return {"item": None if found is None else _json(found)}
        if kind == "put":
            stored = self.db.put(meta.cls.model_validate(arguments))
            return {"item": _json(stored)}
        if kind == "update":
            key = converted(spec.name, meta, arguments["key"], "key.")
            sets = converted(spec.name, meta, arguments["set"], "set.")
            updated = self.db.update(meta.cls.key(**key), **sets)
            return {"item": _json(updated)}
        if kind == "delete":
            self.db.delete(meta.cls, **converted(spec.name, meta, arguments))
            return {"deleted": dict(arguments)}
        raise AssertionError(kind)

    def _query(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> Query:
        given = {n: arguments[n] for n in spec.arguments if n in arguments}
        if isinstance(spec.source, Pattern):
            meta = spec.entity
            assert meta is not None
            query = spec.source(**converted(spec.name, meta, given))
            for name, bounds in (arguments.get("range") or {}).items():
                ends = {
                    e: converted_value(spec.name, meta, name, v, f"range.{name}.{e}")
                    for e, v in bounds.items()
                }
                low, high = ends.get("from"), ends.get("to")
                path = getattr(meta.cls.f, name)
                if low is not None and high is not None:
                    query = query.where(path.between(low, high))
                else:
                    query = query.where(path >= low if low is not None else path <= high)
            where = converted(spec.name, meta, arguments.get("where") or {}, "where.")
            conditions = [getattr(meta.cls.f, n) == v for n, v in where.items()]
            if conditions:
                condition: Cond = conditions[0]
                for more in conditions[1:]:
                    condition = condition & more
                query = query.filter(condition)
            return query
        assert isinstance(spec.source, Collection)
        owners: dict[str, EntityMeta] = {n: m for m in reversed(spec.source.metas) for n in m.fields}
        values: dict[str, Any] = {}
        for name, value in given.items():
            values.update(converted(spec.name, owners[name], {name: value}))
        return spec.source(**values)

    def _page(self, spec: ToolSpec, page: Page) -> dict[str, Any]:
        if spec.kind == "collection":
            items = [{"entity": type(e).__name__, "item": _json(e)} for e in page.items]
        else:
            items = [_json(e) for e in page.items]
        return {"items": items, "count": len(items), "cursor": page.cursor}

    def _count(self, arguments: dict[str, Any]) -> dict[str, Any]:
        spec = self.tools[arguments["pattern"]]
        given = dict(arguments.get("arguments") or {})
        for paging in ("limit", "cursor"):
            if paging in given:
                raise ToolError(f"count: arguments.{paging}: count pages by itself; `cursor` counts on")
        check_arguments(f"count ({spec.name})", spec.input_schema, given)
        query = self._query(spec, given)
        total, cursor, complete = 0, arguments.get("cursor"), False
        while True:
            try:
                page = self.db.page(query, size=COUNT_PAGE, cursor=cursor)
            except BudgetSpent:
                break
            total += len(page.items)
            cursor = page.cursor
            if cursor is None:
                complete = True
                break
        return {"count": total, "complete": complete, "cursor": None if complete else cursor}

    # -- the record -------------------------------------------------------------------------------------

    def _record(
        self,
        name: str,
        arguments: dict[str, Any],
        trace: Trace | None,
        planned: list[dict[str, Any]] | None,
        error: str | None,
    ) -> None:
        """One JSON line for the call; a line that cannot be written stops recording (said on the log)."""
        if self._record_fd < 0:
            return
        requests = [r.record() for r in trace.requests] if trace is not None else []
        line: dict[str, Any] = {
            "time": time.time(),
            "tool": name,
            "arguments": arguments,
            "ok": error is None,
            "error": error,
            "capacity_units": sum(r.capacity_units for r in trace.requests) if trace is not None else 0,
            "requests": requests,
        }
        if planned:
            line["planned_requests"] = planned
        try:
            data = orjson.dumps(line, default=str) + b"\n"
            while data:
                written = os.write(self._record_fd, data)
                data = data[written:]
        except Exception as problem:
            log.error("singletable mcp: cannot write %s (%s); recording stopped", self.record_path, problem)
            self.close()
