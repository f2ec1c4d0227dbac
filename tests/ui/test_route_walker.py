"""The route walker: every route of the console, read from the app's own route table (a new route is walked
without being named here), sent what an attacker or a careless client would send -- hostile paths, foreign
Host headers and origins, oversized and chunked bodies, JSON nested past any limit, bad query parameters,
wrong methods -- against a real ``singletable ui`` process on 127.0.0.1.

What holds for every input: never a 500 (each input is validated; the server's log stays free of
tracebacks), a foreign Host is never served (400, no page, no token), a foreign origin never writes (403),
and the process's memory stays bounded while a 200 MB chunked body is refused.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_support import ConsoleServer, seed
from walker_support import (
    ALLOWED_NAME,
    ConsoleProcess,
    Raw,
    Walked,
    chunked_post,
    encoded,
    endless_header,
    field_names,
    request,
    routes_of,
)

from draws import examples
from singletable.data import open_target
from singletable.model import connect

WALK = settings(
    max_examples=examples(int(__import__("os").environ.get("WALK_EXAMPLES", "40"))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FROB"]
LIMITED_ROUTES = ("/tables/{table}/items", "/tables/{table}/query", "/tables/{table}/patterns/run")
KEY = json.dumps({"PK": {"S": "USER#42"}, "SK": {"S": "PROFILE"}})
# Nested JSON, one level at a time: plain arrays and objects, and DynamoDB JSON's M and L.
LEVELS = [("[", "]"), ('{"a":', "}"), ('{"M":{"a":', "}}"), ('{"L":[', "]}")]


def deep(depth: int, level: tuple[str, str], leaf: str = '{"S":"x"}') -> str:
    return level[0] * depth + leaf + level[1] * depth


HOSTILE_TEXT = [
    "",
    "..",
    "../../etc/passwd",
    "%2e%2e",
    "\x00",
    "a\x00b",
    "x" * 5000,
    "²",
    "٣",
    "é😀",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "{",
    "[",
    "null",
    "-1",
    "0",
    "1e999",
    "NaN",
    "%",
    "%zz",
    "\r\nX-Injected: 1",
    "begins_with",
    "between",
    "Scan",
    "Query",
    "backward",
    "plain",
    "dynamodb",
    "User",
    "Order",
    "account",
    "Order.of_user",
    "GSI1",
    "1",
    KEY,
    '{"PK": "x"}',
    '{":v": 5}',
    '{"#n": 5}',
    '{"#n": "a", ":v": {"x": [1, null, true]}}',
    '{"PK": {"N": "abc"}, "SK": {"S": "x"}}',
    '{"PK": {"B": "!!"}, "SK": {"SS": []}}',
    '{"PK": "A", "SK": "B", "n": 1e400}',
    '{"PK": "A", "SK": "B", "n": NaN, "i": -Infinity}',
    '{"PK": "A", "SK": "B", "": ""}',
    '{"user_id": 5, "order_id": "x"}',
    '{"user_id": "42", "name": "Ada", "email": "ada@example.com"}',
    "[]",
    '"text"',
    deep(40, LEVELS[1]),
    deep(2000, LEVELS[0]),
    deep(2000, LEVELS[2]),
]
PATH_SEGMENTS = [
    "..",
    "%2e%2e",
    "%2E%2E%2F%2E%2E",
    "..%2F..%2Fetc%2Fpasswd",
    "%00",
    "a%00b",
    "x" * 3000,
    "%ff%fe",
    "%C0%AE%C0%AE",
    "%C3%A9",
    "%F0%9F%98%80",
    "%",
    "%zz",
    "%20",
    "a%0d%0aX-Injected:%201",
    "..;",
    ".",
    "~",
]
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
values = st.sampled_from(HOSTILE_TEXT) | text
# Header text: printable Latin-1 (a line break would end the header; the parser refuses control bytes).
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"))
cookies = st.builds("singletable_console={}".format, header_text) | header_text
segments = st.sampled_from(PATH_SEGMENTS) | text.map(lambda t: urllib.parse.quote(t, safe=""))


@dataclass
class Walker:
    """The console process, its routes and fields, and one session (cookie and CSRF token)."""

    console: ConsoleProcess
    routes: list[Walked]
    fields: list[str]
    table: str
    cookie: str
    token: str

    def send(self, method: str, path: str, **options: Any) -> Raw:
        reply = request(self.console.port, method, path, **options)
        assert reply.status < 500, f"{method} {path!r} {options!r:.300} -> {reply.status}: {reply.text[:600]}"
        return reply

    def post(self, path: str, fields: dict[str, str], **headers: str) -> Raw:
        headers = {
            "Cookie": self.cookie,
            "Content-Type": "application/x-www-form-urlencoded",
            **headers,
        }
        return self.send("POST", path, headers=headers, body=encoded({"csrf": self.token, **fields}))

    def route(self, template: str) -> Walked:
        return next(route for route in self.routes if route.template == template)


@pytest.fixture(scope="module")
def walker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Walker]:
    import console_design

    from singletable.ui import console_app

    database = tmp_path_factory.mktemp("walker") / "walked.sqlite3"
    table = console_design.shop.resolved_name()
    with open_target(str(database)) as target:
        db = connect(console_design.shop, target.engine, name=table)
        db.create_table()
        seed(db, target, table)
        routes = routes_of(console_app(target, design="console_design"))
        db.close()
    console = ConsoleProcess(database, "--allow-host", ALLOWED_NAME)
    try:
        page = request(console.port, "GET", f"/tables/{table}/new")
        cookie = page.header("set-cookie").split(";")[0]
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)[1]
        yield Walker(console, routes, field_names(), table, cookie, token)
        assert console.alive()
    finally:
        log = console.stop()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def test_the_walker_reads_every_route_from_the_app(walker):
    templates = {route.template for route in walker.routes}
    assert {"/", "/tables/{table}", "/tables/{table}/item/save", "/static/{path}"} <= templates
    assert len(walker.routes) >= 15 and all(route.methods for route in walker.routes)
    assert {"key", "body", "values", "limit", "page", "csrf"} <= set(walker.fields)


@WALK
@given(data=st.data())
def test_hostile_paths_are_never_a_500(walker, data):
    route = data.draw(st.sampled_from(walker.routes))
    segment = data.draw(segments)
    path = route.path(table=segment, path=segment)
    for method in sorted(route.methods - {"HEAD"}):
        reply = walker.post(path, {}) if method == "POST" else walker.send(method, path)
        if route.template.startswith("/static"):
            assert "from __future__" not in reply.text and "import " not in reply.text


def test_static_files_never_leave_their_folder(walker):
    for path in [
        "/static/../_app.py",
        "/static/%2e%2e/_app.py",
        "/static/..%2f_app.py",
        "/static/%2e%2e%2f%2e%2e%2f__init__.py",
        "/static/..%5c_app.py",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
    ]:
        reply = walker.send("GET", path)
        assert reply.status in (400, 404), (path, reply.status)
        assert "from __future__" not in reply.text and "root:" not in reply.text


@WALK
@given(data=st.data())
def test_hostile_query_parameters_are_never_a_500(walker, data):
    route = data.draw(st.sampled_from([r for r in walker.routes if "GET" in r.methods]))
    names = st.sampled_from([*walker.fields, "f.user_id", "f.order_id", "f.status"])
    params = data.draw(st.dictionaries(names, values, max_size=5))
    query = urllib.parse.urlencode(params)
    cookie = data.draw(st.sampled_from([walker.cookie, ""]) | cookies)
    walker.send(
        "GET",
        route.path(table=walker.table, path="console.css") + ("?" + query if query else ""),
        headers={"Cookie": cookie} if cookie else {},
    )


@WALK
@given(data=st.data())
def test_hostile_forms_are_never_a_500(walker, data):
    route = data.draw(st.sampled_from([r for r in walker.routes if "POST" in r.methods]))
    fields = data.draw(st.dictionaries(st.sampled_from(walker.fields), values, max_size=6))
    if fields.get("confirm") == walker.table:
        fields["confirm"] = "not-this-table"  # the walk keeps its table
    fields.pop("csrf", None)
    walker.post(route.path(table=walker.table), fields)


FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:{port}",
    "localhost.evil.example",
    "127.0.0.1.evil.example:{port}",
    "127.0.0.1.nip.io:{port}",
    "localhost@evil.example",
    "evil.example#@localhost",
    "0.0.0.0:{port}",
    "192.168.1.5:{port}",
    "[fe80::1]:{port}",
    "localhost:abc",
    "localhost:{port}:{port}",
    "[::1",
    "évil.example",
]
hosts = st.sampled_from(FOREIGN_HOSTS) | st.from_regex(
    r"[a-z0-9-]{1,12}(\.[a-z0-9-]{1,12}){0,3}(:[0-9]{1,5})?", fullmatch=True
).filter(lambda h: not _means_this_machine(h.split(":")[0]))


def _means_this_machine(name: str) -> bool:
    """Loopback names, the allowed one, and names a browser reads as an IPv4 literal (``127.1``)."""
    labels = name.split(".")
    numeric = all(label.isdigit() or label.startswith("0x") for label in labels)
    return name.endswith("localhost") or name == ALLOWED_NAME or numeric


@settings(WALK, max_examples=examples(60))
@given(data=st.data())
def test_a_foreign_host_is_refused_before_any_route(walker, data):
    host = data.draw(hosts).format(port=walker.console.port)
    route = data.draw(st.sampled_from(walker.routes))
    path = route.path(table=walker.table, path="console.css")
    for method in sorted(route.methods - {"HEAD"}):
        headers = {"Cookie": walker.cookie}
        body = encoded({"csrf": walker.token, "key": KEY}) if method == "POST" else None
        reply = walker.send(method, path, host=host, headers=headers, body=body)
        assert reply.status == 400, (host, method, path, reply.status)
        assert "csrf" not in reply.text and walker.table not in reply.text
        assert not reply.header("set-cookie")


def test_loopback_names_and_the_allowed_name_are_served(walker):
    port = walker.console.port
    for host in [
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        f"LOCALHOST:{port}",
        f"[::1]:{port}",
        f"app.localhost:{port}",
        "127.3.4.5",
        f"{ALLOWED_NAME}:{port}",
        ALLOWED_NAME.upper(),
    ]:
        reply = walker.send("GET", f"/tables/{walker.table}/new", host=host)
        assert reply.status == 200 and 'name="csrf"' in reply.text, (host, reply.status)
    refused = walker.send("GET", "/", host=f"evil.example:{port}")
    assert refused.status == 400
    assert (
        f"Host &#x27;evil.example:{port}&#x27; is not served: this server answers only loopback"
        in refused.text
    )
    assert "start it with --allow-host evil.example" in refused.text
    twice = walker.send("GET", "/", headers={"Host": "localhost"})  # a second Host header
    assert twice.status == 400  # by the HTTP parser (h11), else by the console ("more than one Host")


origins = st.sampled_from(
    ["http://evil.example", "null", "http://localhost:1", "https://127.0.0.1", "file://", "x"]
) | st.from_regex(r"https?://[a-z0-9.-]{1,20}(:[0-9]{1,5})?", fullmatch=True)


@settings(WALK, max_examples=examples(30))
@given(origin=origins, header=st.sampled_from(["Origin", "Referer"]))
def test_a_foreign_origin_cannot_write_even_with_a_valid_token(walker, origin, header):
    parts = urllib.parse.urlsplit(origin)
    if parts.hostname in ("127.0.0.1", "localhost") and parts.port == walker.console.port:
        return  # the console's own origin
    item = {"PK": {"S": "ORIGIN#1"}, "SK": {"S": origin}}
    for route in [r for r in walker.routes if "POST" in r.methods]:
        fields = {"format": "dynamodb", "body": json.dumps(item), "key": KEY, "table": "t", "confirm": "t"}
        reply = walker.post(route.path(table=walker.table), fields, **{header: origin})
        assert reply.status == 403 and "comes from another site" in reply.text, (route, reply.status)
    stored = walker.send(
        "GET", f"/tables/{walker.table}/item?" + urllib.parse.urlencode({"key": json.dumps(item)})
    )
    assert stored.status == 404


def test_allow_host_star_answers_any_name(tmp_path):
    from singletable.ui import console_app

    with open_target(str(tmp_path / "any.sqlite3")) as target:
        server = ConsoleServer(console_app(target, allowed_hosts=["127.0.0.1", "*"]))
        try:
            for host in (
                "evil.example",
                "compose-service:8001",
                "localhost",
                "a b",
            ):  # as serve: the check is off
                assert request(server.port, "GET", "/", host=host).status == 200
        finally:
            server.stop()


def test_the_consoles_own_origin_can_write(walker):
    for origin in (f"http://127.0.0.1:{walker.console.port}", None):
        headers = {"Origin": origin} if origin else {}
        body = json.dumps({"PK": "ORIGIN#2", "SK": str(origin)})
        reply = walker.post(f"/tables/{walker.table}/items", {"format": "plain", "body": body}, **headers)
        assert reply.status == 303, reply.text[-1000:]


def test_oversize_bodies_and_headers_are_refused_while_they_stream_with_bounded_memory(walker):
    port, path = walker.console.port, f"/tables/{walker.table}/items"
    before = walker.console.peak_memory_kb()
    session = {"Cookie": walker.cookie, "Content-Type": "application/x-www-form-urlencoded"}
    declared = request(port, "POST", path, headers={**session, "Content-Length": str(300 * 2**20)})
    assert declared.status == 413 and "larger than 4 MB" in declared.text  # answered before any body
    streamed, sent = chunked_post(port, path, 200 * 2**20, session)
    assert streamed.status == 413 and "larger than 4 MB" in streamed.text
    assert streamed.header("connection") == "close" and sent < 50 * 2**20
    anonymous, sent = chunked_post(port, path, 200 * 2**20, {})
    assert anonymous.status == 403 and sent < 50 * 2**20  # no session: refused before reading
    header, sent = endless_header(port, 200 * 2**20)  # the HTTP parser bounds a request's head
    assert header.status == 400 and sent < 50 * 2**20
    grown = walker.console.peak_memory_kb() - before
    assert grown < 40_000, f"the server's peak memory grew by {grown} kB"


@settings(WALK, max_examples=examples(30))
@given(depth=st.integers(67, 100_000), level=st.sampled_from(LEVELS), where=st.integers(0, 6))
def test_json_nested_past_dynamodbs_limit_is_a_clear_400(walker, depth, level, where):
    nested = deep(depth, level)
    table = walker.table
    short = deep(min(depth, 1000), level)  # an address holds at most tens of KB
    cases = [
        lambda: walker.send("GET", f"/tables/{table}/item?" + urllib.parse.urlencode({"key": short})),
        lambda: walker.send(
            "GET",
            f"/tables/{table}/query?"
            + urllib.parse.urlencode({"operation": "Scan", "filter": "a = :v", "values": short}),
        ),
        lambda: walker.post(f"/tables/{table}/items", {"format": "plain", "body": nested}),
        lambda: walker.post(f"/tables/{table}/items", {"format": "dynamodb", "body": nested}),
        lambda: walker.post(f"/tables/{table}/item/save", {"key": KEY, "format": "dynamodb", "body": nested}),
        lambda: walker.post(f"/tables/{table}/item/delete", {"key": nested}),
        lambda: walker.post(
            f"/tables/{table}/items",
            {"format": "plain", "body": '{"PK": "D", "SK": "D"}', "condition": "a = :v", "values": nested},
        ),
    ]
    reply = cases[where]()
    assert reply.status == 400
    assert "JSON nested deeper than DynamoDB" in reply.text, reply.text[-2000:]
    assert "32 levels of lists and maps" in reply.text


@settings(WALK, max_examples=examples(60))
@given(
    limit=st.sampled_from(["²", "٣", "0", "501", "-1", "1e3", " 5", "5 ", "+5", "0x10", "9" * 40, "007"])
    | text,
    route=st.sampled_from(LIMITED_ROUTES),
)
def test_a_limit_is_ascii_digits_from_1_to_500(walker, limit, route):
    params = {"limit": limit, "operation": "Scan", "pattern": "Order.of_user", "f.user_id": "42"}
    reply = walker.send("GET", route.replace("{table}", walker.table) + "?" + urllib.parse.urlencode(params))
    good = limit == "" or (limit.isascii() and limit.isdigit() and 1 <= int(limit) <= 500)
    if good:
        assert reply.status == 200, (limit, reply.text[-1500:])
    else:
        assert reply.status == 400, limit
        assert "limit must be a whole number from 1 to 500 (digits 0-9)" in reply.text
        assert "invalid literal" not in reply.text


def test_wrong_methods_are_refused_plainly(walker):
    answered: dict[str, set[str]] = {}
    for route in walker.routes:
        answered.setdefault(route.template, set()).update(route.methods)
    for template, methods in answered.items():
        path = Walked(template, frozenset()).path(table=walker.table, path="console.css")
        for method in METHODS:
            if method in methods:
                continue
            body = (
                encoded({"csrf": walker.token}) if method not in ("GET", "HEAD", "OPTIONS", "TRACE") else None
            )
            reply = walker.send(method, path, headers={"Cookie": walker.cookie}, body=body)
            assert reply.status in (400, 403, 404, 405), (method, path, reply.status)


def test_what_no_handler_expected_is_a_plain_500_page_and_logged(tmp_path):
    """The catch-all, shown with a route added to a real console that fails as no handler of ours may."""
    from starlette.routing import Route

    from singletable.ui import console_app

    def broken(request: object) -> None:
        raise RuntimeError("a fault no handler expected")

    logged = Collected()
    with open_target(str(tmp_path / "broken.sqlite3")) as target:
        app = console_app(target)
        app.router.routes.append(Route("/broken", broken))
        server = ConsoleServer(app)
        logging.getLogger("uvicorn.error").addHandler(logged)  # after uvicorn configured its logging
        try:
            reply = request(server.port, "GET", "/broken")
        finally:
            server.stop()
            logging.getLogger("uvicorn.error").removeHandler(logged)
    assert reply.status == 500 and "the console failed on this request; the server" in reply.text
    assert "RuntimeError" not in reply.text and "Traceback" not in reply.text
    assert any("a fault no handler expected" in text for text in logged.texts)
    assert reply.header("x-frame-options") == "DENY" and "default-src" in reply.header(
        "content-security-policy"
    )


class Collected(logging.Handler):
    """The log records' texts (tracebacks included)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(logging.Formatter().format(record))
