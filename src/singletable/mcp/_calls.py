"""Running a tool call over the model's :class:`~singletable.model.DB` or
:class:`~singletable.model.AsyncDB`, within the server's policy.

Every call is checked against its tool's schema and converted through the entity's field types before the
model sees it, so no text from the agent becomes an expression: key conditions come from the patterns'
templates, filters from typed equality on named fields, raw reads from typed conditions
(:mod:`singletable.mcp._raw`). Each call goes through a :class:`~singletable.mcp._door.Door` of its own,
which records its requests, stops it before a read once its reads consumed ``max_rcu_per_call``, and in
confirm mode keeps every write request instead of sending it (the reads a write plans with still run).
Nothing is shared between calls but the DB and the record file, so calls run side by side.
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import orjson
from pydantic import ValidationError

from singletable.mcp._count import count_items
from singletable.mcp._describe import describe_design
from singletable.mcp._door import BudgetSpent, CallLedger, Door, is_async
from singletable.mcp._raw import plain_items, raw_request, raw_tools, request_scope
from singletable.mcp._schema import ArgumentError, check_arguments, check_depth, converted, converted_value
from singletable.mcp._tools import Policy, ToolSpec, design_tools
from singletable.model import DB, Collection, Cond, EntityMeta, ModelError, Page, Pattern, Query, cursor

if TYPE_CHECKING:
    from singletable.model import AsyncDB

log = logging.getLogger("singletable.mcp")

PRIVATE = 0o600
MAX_MESSAGE = 2000  # characters of a tool error's text


@functools.cache
def process_secret() -> bytes:
    """``SINGLETABLE_CURSOR_SECRET``, else one key for this process: every DesignTools of the process signs
    alike, and a restarted server refuses the cursors of the one before."""
    return cursor.default_secret()


class ToolError(Exception):
    """A call that cannot be answered: the message, for the agent, says what to change."""


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
    """The tools of ``db``'s design under ``policy``; :meth:`call_async` (or :meth:`call`) runs one.

    ``db`` is a :class:`~singletable.model.DB` or an :class:`~singletable.model.AsyncDB`. Calls do not
    wait for each other: each runs through a :class:`~singletable.mcp._door.Door` of its own, an AsyncDB's
    requests awaited on the event loop, a DB's on worker threads. ``record``: a file that gets one JSON line
    per call (created 0600). ``cursor_secret`` signs the raw and counting tools' cursors (default
    ``SINGLETABLE_CURSOR_SECRET``, else a key of this process); pages of access patterns carry the DB's."""

    def __init__(
        self,
        db: DB | AsyncDB,
        policy: Policy | None = None,
        *,
        record: str | None = None,
        cursor_secret: bytes | str | None = None,
    ) -> None:
        self.db = db
        self.table = db.table
        self.policy = policy or Policy()
        self.tools = {**design_tools(self.table, self.policy), **raw_tools(self.policy)}
        self.record_path = record
        secret = cursor_secret or process_secret()
        self.cursor_secret = secret.encode() if isinstance(secret, str) else secret
        self._record_fd = open_private(record) if record else -1
        self._record_lock = threading.Lock()

    def close(self) -> None:
        """Close the record file (the DB is the caller's)."""
        with self._record_lock:
            if self._record_fd >= 0:
                fd, self._record_fd = self._record_fd, -1
                os.close(fd)

    # -- one call ---------------------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Any:
        """:meth:`call_async` for synchronous code, over a synchronous DB (its requests run inline)."""
        if is_async(self.db):
            raise TypeError("these DesignTools run over an AsyncDB: await tools.call_async(name, arguments)")
        return anyio.run(functools.partial(self._call, name, arguments, threaded=False))

    async def call_async(self, name: str, arguments: Mapping[str, Any] | None) -> Any:
        """The result of tool ``name`` (plain JSON data); :class:`ToolError` when it cannot be answered."""
        return await self._call(name, arguments, threaded=True)

    async def _call(self, name: str, arguments: Mapping[str, Any] | None, *, threaded: bool) -> Any:
        arguments = dict(arguments or {})
        spec = self.tools.get(name)
        writes = spec is not None and not spec.read_only
        ledger = CallLedger(
            self.policy.max_rcu_per_call, planned=[] if writes and self.policy.confirm else None
        )
        try:
            if spec is None:
                raise ToolError(_no_tool(name))
            check_depth(name, arguments)
            check_arguments(name, spec.input_schema, arguments)
            result = await self._run(spec, arguments, Door(self.db, ledger, threaded=threaded))
            if ledger.planned is not None:
                result = {
                    "confirm": True,
                    "written": False,
                    "planned_requests": ledger.planned,
                    "note": "nothing was written: the server runs in --confirm mode",
                }
        except Exception as error:
            message = self._message(name, error, arguments)
            if len(message) > MAX_MESSAGE:  # an argument's value quoted whole could be megabytes
                message = message[: MAX_MESSAGE - 25] + f"... ({len(message)} characters)"
            self._record(name, arguments, ledger, message)
            raise ToolError(message) from None
        self._record(name, arguments, ledger, None)
        return result

    def _message(self, name: str, error: Exception, arguments: dict[str, Any]) -> str:
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
            table = arguments.get("table") if name in ("query_raw", "scan_raw") else self.db.table_name
            return f"{name}: the table {table} does not exist on this server's target"
        if any(c.__module__.startswith("botocore") for c in type(error).__mro__[:-2]):
            return f"{name}: {type(error).__name__}: {error}"  # the endpoint cannot be reached or refused us
        if isinstance(error, (ModelError, ValueError)):
            return f"{name}: {type(error).__name__}: {error}"
        log.exception("singletable mcp: tool %s failed", name)
        return f"{name}: internal error ({type(error).__name__}); the server's log has the details"

    # -- what each kind of tool does --------------------------------------------------------------------

    async def _run(self, spec: ToolSpec, arguments: dict[str, Any], door: Door) -> Any:
        kind, handle = spec.kind, door.handle
        if kind == "describe":
            return describe_design(self.table, self.db.table_name, self.tools)
        if kind in ("pattern", "collection"):
            query = self._query(spec, arguments)
            limit = int(arguments.get("limit", min(25, self.policy.max_page_size)))
            page = await door.run(handle.page, query, size=limit, cursor=arguments.get("cursor"))
            return self._page(spec, page)
        if kind == "count":
            counted = self.tools[arguments["pattern"]]
            given = dict(arguments.get("arguments") or {})
            for paging in ("limit", "cursor"):
                if paging in given:
                    raise ToolError(f"count: arguments.{paging}: count pages by itself; `cursor` counts on")
            check_arguments(f"count ({counted.name})", counted.input_schema, given)
            query = self._query(counted, given)
            return await count_items(door, query, self.cursor_secret, arguments.get("cursor"))
        if kind in ("query_raw", "scan_raw"):
            return await self._raw(spec, arguments, door)
        meta = spec.entity
        assert meta is not None
        if kind == "get":
            found = await door.run(handle.get, meta.cls, **converted(spec.name, meta, arguments))
            return {"item": None if found is None else _json(found)}
        if kind == "put":
            stored = await door.run(handle.put, meta.cls.model_validate(arguments))
            return {"item": _json(stored)}
        if kind == "update":
            key = converted(spec.name, meta, arguments["key"], "key.")
            sets = converted(spec.name, meta, arguments["set"], "set.")
            updated = await door.run(handle.update, meta.cls.key(**key), **sets)
            return {"item": _json(updated)}
        if kind == "delete":
            await door.run(handle.delete, meta.cls, **converted(spec.name, meta, arguments))
            return {"deleted": dict(arguments)}
        raise AssertionError(kind)

    async def _raw(self, spec: ToolSpec, arguments: dict[str, Any], door: Door) -> dict[str, Any]:
        """One page of a raw Query or Scan: requests until ``limit`` items, the end, or the read budget."""
        operation, params = raw_request(spec.name, arguments)
        scope = request_scope(spec.name, operation, params)
        given = arguments.get("cursor")
        start = cursor.decode(self.cursor_secret, scope, given) if given else None
        limit = int(arguments.get("limit", min(25, self.policy.max_page_size)))
        items: list[dict[str, Any]] = []
        scanned, stopped = 0, False
        while len(items) < limit:
            request = {**params, "Limit": limit - len(items)}
            if start:
                request["ExclusiveStartKey"] = start
            try:
                response = await door.request(operation, request)
            except BudgetSpent:
                stopped = True
                break
            items += response.get("Items", [])
            scanned += int(response.get("ScannedCount", 0))
            start = response.get("LastEvaluatedKey")
            if not start:
                break
        note = None
        if stopped:
            note = (
                f"stopped when this call's read budget ({self.policy.max_rcu_per_call:g} RCU) was spent; "
                "`cursor` continues"
            )
        return {
            "items": plain_items(items),
            "count": len(items),
            "scanned_count": scanned,
            "cursor": cursor.encode(self.cursor_secret, scope, start) if start else None,
            "note": note,
        }

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

    # -- the record -------------------------------------------------------------------------------------

    def _record(
        self,
        name: str,
        arguments: dict[str, Any],
        ledger: CallLedger,
        error: str | None,
    ) -> None:
        """One JSON line for the call; a line that cannot be written stops recording (said on the log)."""
        if self._record_fd < 0:
            return
        trace, planned = ledger.trace, ledger.planned
        requests = [r.record() for r in trace.requests]
        line: dict[str, Any] = {
            "time": time.time(),
            "tool": name,
            "arguments": arguments,
            "ok": error is None,
            "error": error,
            "capacity_units": trace.capacity_units,
            "requests": requests,
        }
        if planned:
            line["planned_requests"] = planned
        try:
            data = orjson.dumps(line, default=str) + b"\n"
        except Exception as problem:  # arguments orjson cannot write (an integer past 64 bits)
            data = orjson.dumps({**line, "arguments": repr(arguments)[:10_000]}, default=str) + b"\n"
            log.warning("singletable mcp: the arguments of %s recorded as text (%s)", name, problem)
        with self._record_lock:
            try:
                while data and self._record_fd >= 0:
                    written = os.write(self._record_fd, data)
                    data = data[written:]
            except OSError as problem:
                log.error(
                    "singletable mcp: cannot write %s (%s); recording stopped", self.record_path, problem
                )
                fd, self._record_fd = self._record_fd, -1
                os.close(fd)
