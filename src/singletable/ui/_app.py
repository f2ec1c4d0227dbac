"""The console as an ASGI application: Starlette routes, Jinja2 pages, the session and its CSRF check.

Why this stack: Starlette is the small ASGI toolkit uvicorn (already ``serve``'s server) is built to run, so
the console mounts beside the API on one port with no second server; Jinja2 renders every page on the server
with autoescaping on, so item text can never become markup; pages are plain HTML forms (POST, then a redirect)
that work in any browser with no build step and no third-party JavaScript. ``static/console.js`` is ours and
only adds conveniences (confirmations, formatting the editor's JSON).

Every handler runs in a worker thread (:func:`starlette.concurrency.run_in_threadpool`): target calls block,
and an endpoint URL's may be slow. Each page is wrapped by :meth:`Console.handle`, which reads a POST's form,
refuses writes in read-only mode or without the session's CSRF token, and turns expected failures (a table
that is not there, a forged cursor, a form that cannot become a request) into an error page, never a 500.

Before any of that, :class:`~singletable.ui._guard.RequestGuard` -- the outermost layer, around routes,
static files and errors alike -- refuses a foreign Host, a foreign Origin on a write and an oversized body.
What still escapes a handler is logged by the server and answered with a plain error page (:func:`failed`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from singletable._access import AccessPolicy
from singletable.data import Design, DesignError, Target, TargetError, load_design, open_target
from singletable.ui._guard import MAX_BODY_BYTES, BodyTooLarge, RequestGuard, plain_page, too_large
from singletable.ui._inputs import form_fields
from singletable.ui._reads import ReadForm
from singletable.ui._security import (
    SESSION_COOKIE,
    BadCursor,
    console_secret,
    csrf_token,
    csrf_valid,
    new_session,
)
from singletable.ui._writes import Writer

HERE = os.path.dirname(__file__)
# A request's line and headers: room for a long page cursor (30 pages of start keys), far from unbounded.
MAX_HEAD_BYTES = 256 * 1024
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    # Cursors and keys sit in URLs: no other site is told them. Not "no-referrer": a browser then sends
    # "Origin: null" with the console's own forms, which the Origin check could not tell from a foreign page.
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
Handler = Callable[["Console", Request, dict[str, str]], Response]


class Refused(Exception):
    """A request the console will not serve: ``status`` and the one-line reason shown on the error page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Console:
    """One console: a target, an optional design, read-only or not, and the secret its tokens use."""

    def __init__(
        self, target: Target, design: Design | None, *, table: str | None, read_only: bool, secret: bytes
    ) -> None:
        self.target = target
        self.design = design
        # The design's table on this target: its declared name unless told (per-tenant or test tables).
        self.design_table = table or (design.table_name if design is not None else None)
        self.read_only = read_only
        self.secret = secret
        self.writer = Writer(target, design, self.design_table)
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
            autoescape=True,  # every value is escaped unless a template says otherwise (none does)
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def design_for(self, table: str) -> Design | None:
        """The design, when ``table`` is the table it declares (other tables are shown raw)."""
        return self.design if self.design is not None and self.design_table == table else None

    def render(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        session = request.state.session

        def url(path: str, **params: Any) -> str:
            query = urlencode([(k, v) for k, v in params.items() if v not in (None, "")])
            return f"{root}{path}" + (f"?{query}" if query else "")

        body = self.templates.get_template(template).render(
            url=url,
            csrf=csrf_token(self.secret, session),
            read_only=self.read_only,
            design=self.design,
            design_table=self.design_table,
            target=self.target.name,
            **context,
        )
        return HTMLResponse(body, status_code=status)

    def redirect(self, request: Request, path: str, **params: Any) -> RedirectResponse:
        root = request.scope.get("root_path", "")
        query = urlencode([(k, v) for k, v in params.items() if v not in (None, "")])
        return RedirectResponse(f"{root}{path}" + (f"?{query}" if query else ""), status_code=303)

    def endpoint(self, handler: Handler, *, writes: bool = True) -> Callable[[Request], Any]:
        """``handler`` as a route; a POST that only reads (``writes=False``: a vector search, whose vector
        is too long for an address) is CSRF-checked like a write but served by a read-only console too."""

        async def run(request: Request) -> Response:
            return await self.handle(request, handler, writes=writes)

        return run

    async def handle(self, request: Request, handler: Handler, *, writes: bool = True) -> Response:
        session = request.cookies.get(SESSION_COOKIE)
        fresh = not session or len(session) > 100
        request.state.session = new_session() if fresh else session
        try:
            form = await self._form(request, None if fresh else session, writes)
            response = await run_in_threadpool(handler, self, request, form)
        except Refused as refused:
            response = self.render(request, "error.html", refused.status, message=refused.message)
        except BadCursor as error:
            response = self.render(request, "error.html", 400, message=str(error))
        except (ReadForm, DesignError, ValueError) as error:  # a form's value the library refused
            response = self.render(request, "error.html", 400, message=str(error))
        except TargetError as error:
            status = (
                404
                if error.code == "ResourceNotFoundException"
                else 502
                if "Connection" in error.code
                else 400
            )
            response = self.render(request, "error.html", status, message=f"{error.code}: {error.message}")
        for name, value in SECURITY_HEADERS.items():
            response.headers[name] = value
        if fresh:
            response.set_cookie(
                SESSION_COOKIE, request.state.session, httponly=True, samesite="strict", path="/"
            )
        return response

    async def _form(self, request: Request, session: str | None, writes: bool = True) -> dict[str, str]:
        """A POST's fields (urlencoded), after the read-only and CSRF checks; a GET's query parameters.

        What can be refused without the body is refused before reading it: a read-only console, and a
        request with no session (whose token cannot match). The body itself is capped while it streams in
        (:class:`~singletable.ui._guard.RequestGuard` counts it)."""
        if request.method != "POST":
            return dict(request.query_params)
        if self.read_only and writes:
            raise Refused(403, "this console is read-only (--read-only): nothing can be written")
        if session is None:
            raise Refused(403, CSRF_REFUSAL)
        try:
            body = await request.body()
        except BodyTooLarge as error:
            raise Refused(413, too_large(error.limit)) from None
        try:
            form = await run_in_threadpool(form_fields, body)
        except UnicodeDecodeError:
            raise Refused(400, "the form is not URL-encoded UTF-8 text") from None
        except ValueError as error:
            raise Refused(400, str(error)) from None
        if not csrf_valid(self.secret, session, form.get("csrf")):
            raise Refused(403, CSRF_REFUSAL)
        return form


CSRF_REFUSAL = "the form's CSRF token does not match this session: reload the page and submit again"


def failed(request: Request, error: Exception) -> Response:
    """The catch-all: what no handler expected is answered with a plain page (the server logs the
    traceback); a body that grew past the limit while something read it is a 413."""
    if isinstance(error, BodyTooLarge):
        status, message = 413, too_large(error.limit)
    else:
        status, message = 500, "the console failed on this request; the server's log says why"
    response = HTMLResponse(plain_page(status, message), status_code=status)
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


class ConsoleApp(Starlette):
    """The console's Starlette app with :class:`RequestGuard` outside everything else, errors included."""

    def __init__(self, *, policy: AccessPolicy, **options: Any) -> None:
        super().__init__(**options)
        self.policy = policy

    def build_middleware_stack(self) -> ASGIApp:
        return RequestGuard(super().build_middleware_stack(), self.policy, max_body=MAX_BODY_BYTES)


def console_app(
    target: Target | str,
    *,
    design: Design | str | None = None,
    table: str | None = None,
    read_only: bool = False,
    secret: bytes | None = None,
    allowed_hosts: Iterable[str] = (),
) -> Starlette:
    """The console for ``target`` as an ASGI app.

    ``target`` is a :class:`~singletable.data.Target` (the caller closes it) or a database file or endpoint
    URL (opened here, closed when the app shuts down); ``design`` a loaded :class:`~singletable.data.Design`
    or a module to load (:class:`~singletable.data.DesignError` if it cannot be), describing the table
    ``table`` (default: the name the design declares); ``read_only`` refuses every write; ``secret`` signs
    CSRF tokens and cursors (default: ``SINGLETABLE_UI_SECRET``, else a per-process key);
    ``allowed_hosts`` are the Host names it answers to besides the loopback ones (the address it binds, and
    ``--allow-host`` names, ``*`` for any; ValueError for one that is not a host name), as ``singletable
    serve`` answers them (:class:`~singletable._access.AccessPolicy`).
    """
    from singletable.ui import _actions, _pages, _vector_search

    policy = AccessPolicy.build(allow_hosts=tuple(allowed_hosts))
    loaded = load_design(design) if isinstance(design, str) else design
    # A file is created only for a writing console with a design, which offers to create the design's table
    # in it; otherwise a missing file is an error, not a new empty database. A console that writes nothing
    # opens it read-only, so that browsing never changes it.
    create = loaded is not None and not read_only
    opened = open_target(target, read_only=read_only, create=create) if isinstance(target, str) else target
    console = Console(opened, loaded, table=table, read_only=read_only, secret=secret or console_secret())
    routes = [
        *(Route(path, console.endpoint(handler), methods=["GET"]) for path, handler in _pages.ROUTES),
        *(Route(path, console.endpoint(handler), methods=["POST"]) for path, handler in _actions.ROUTES),
        *(Route(p, console.endpoint(h), methods=["GET"]) for p, h in _vector_search.PAGES),
        *(Route(p, console.endpoint(h, writes=False), methods=["POST"]) for p, h in _vector_search.READS),
        Mount("/static", app=StaticFiles(directory=os.path.join(HERE, "static")), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        console.writer.close()
        if opened is not target:
            opened.close()

    app = ConsoleApp(policy=policy, routes=routes, lifespan=lifespan, exception_handlers={Exception: failed})
    app.state.console = console
    return app


def run_console(app: Any, *, host: str = "127.0.0.1", port: int = 8001, log_level: str = "warning") -> None:
    """Serve a :func:`console_app` with uvicorn until interrupted (``singletable ui``).

    With h11, whose parser bounds a request's line and headers (:data:`MAX_HEAD_BYTES`): httptools keeps
    reading a header line however long it grows (100 MB of one header took 250 MB). A console needs no
    more speed than h11 gives."""
    import uvicorn

    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
        http="h11",
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
