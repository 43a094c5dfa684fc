"""DP Explorer's server: ``streamlit run app/serve.py`` serves ``app/main.py`` with two additions.

Opened directly at a page's address (``/negotiate``), Streamlit's browser code does not know where the app's root
is, so it first asks for ``/negotiate/_stcore/health`` and ``…/host-config`` (two 404 errors in the browser's
console on every such visit) before it tries the root. Told the root in advance, through the
``window.__streamlit`` settings its code reads when it starts, it asks the right address at once.
:class:`MainPageAddress` writes those settings into the page's HTML; :class:`app.poll_voter.VoterCookie` gives the
class poll's page its browser-token cookie.

:class:`SecurityHeaders` adds the browser's protections to every response (:data:`SECURITY_HEADERS`): no other site
may show the app inside a frame (a page that frames it could make a visitor click its buttons), the browser never
guesses a file's type, and no address of the app (a ledger's link carries its key) is sent to another site as the
referrer. Every launcher (``make app``, the cluster's replicas, the container image, the tests) serves this file."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import streamlit as st
from starlette.middleware import Middleware

from app.poll_voter import VoterCookie

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Paths that are never the app's HTML page (assets, Streamlit's own endpoints, uploaded media).
_NOT_PAGES = ("/_stcore/", "/static/", "/media/", "/component/", "/app/static/")


def settings_script(base_path: str) -> bytes:
    """The ``<script>`` that tells Streamlit's browser code where the app's root is: this origin plus
    ``base_path`` (Streamlit's ``server.baseUrlPath``, "" for the root)."""
    base = "/" + base_path.strip("/") if base_path.strip("/") else ""
    path = json.dumps(base + "/")
    return (
        f"<script>window.__streamlit=Object.assign({{}},window.__streamlit,"
        f"{{BACKEND_BASE_URL:location.origin+{path},MAIN_PAGE_BASE_URL:location.origin+{path}}})</script>"
    ).encode()


#: Headers on every response of the app (the nginx in front of the cluster sends the same ones: deploy/).
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"SAMEORIGIN"),  # older browsers; the CSP below is the current form
    (b"content-security-policy", b"frame-ancestors 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # a same-origin request keeps its Origin, so uploads still pass XSRF
)
_SECURITY_NAMES = frozenset(name for name, _ in SECURITY_HEADERS)


class SecurityHeaders:
    """ASGI middleware: every HTTP response carries :data:`SECURITY_HEADERS` (once: a value the app set is replaced)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _SECURITY_NAMES]
                message = dict(message, headers=[*headers, *SECURITY_HEADERS])
            await send(message)

        await self.app(scope, receive, with_headers)


class MainPageAddress:
    """ASGI middleware: the app's HTML page gets :func:`settings_script` at the top of its ``<head>``."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if (
            scope["type"] != "http"
            or scope.get("method") != "GET"
            or any(p in path + "/" for p in _NOT_PAGES)
            or "." in path.rsplit("/", 1)[-1]
        ):
            await self.app(scope, receive, send)
            return
        # ask for the page uncompressed (it is ~6 kB), so the script can be written into it
        scope = dict(scope, headers=[(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"])
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                if not headers.get(b"content-type", b"").startswith(b"text/html") or b"content-encoding" in headers:
                    start = None
                    await send(message)
                    return
                start = message
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            if body:
                from streamlit import config  # noqa: PLC0415 — read per page: tests change it

                body = body.replace(b"<head>", b"<head>" + settings_script(config.get_option("server.baseUrlPath")), 1)
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send(dict(start, headers=headers))
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)


app = st.App(
    "main.py",
    middleware=[Middleware(SecurityHeaders), Middleware(MainPageAddress), Middleware(VoterCookie)],
)
