"""The lesson servers (marimo) answer only requests addressed to this machine by its own name.

A web page the developer visits can point a name of its own at 127.0.0.1 (DNS rebinding) and then read a server on
this machine as if it were its own site; marimo's editor also reads and lists files. The browser still sends the
page's name as the ``Host`` header, and its own address as ``Origin`` on a POST or a WebSocket: :class:`HostGuard`
refuses a request whose ``Host`` or ``Origin`` names anything but ``localhost``, ``127.0.0.1`` or ``::1`` (and the
names listed in ``DPX_LESSON_HOSTS``, comma-separated, for lessons served under another name on purpose).

marimo 0.25 has no such setting of its own (its ``--allow-origins`` only chooses the CORS answer), so the guard is
added to every marimo server of this environment through marimo's ASGI middleware entry point
(``marimo.server.asgi.middleware`` in pyproject.toml); tests/e2e/test_security.py checks that it is in force.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.middleware import Middleware

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HOSTS_ENV = "DPX_LESSON_HOSTS"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def allowed_names(env: MutableMapping[str, str] | None = None) -> frozenset[str]:
    """The host names requests may use: the loopback names and those in ``DPX_LESSON_HOSTS``."""
    env = os.environ if env is None else env
    extra = {n.strip().lower().strip("[]") for n in env.get(HOSTS_ENV, "").split(",") if n.strip()}
    return LOOPBACK_NAMES | extra


def host_name(value: str) -> str | None:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lower case; None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, closed, rest = value[1:].partition("]")
        return name if closed and (not rest or (rest[0] == ":" and rest[1:].isdigit())) else None
    name, colon, port = value.partition(":")
    if not name or (colon and not port.isdigit()):
        return None
    return name


def origin_name(value: str) -> str | None:
    """The host name of an ``Origin`` header (``http://name:port``); None for ``null`` or anything malformed."""
    try:
        parts = urlsplit(value.strip())
        return parts.hostname if parts.scheme in ("http", "https") and parts.hostname else None
    except ValueError:
        return None


def refusal(headers: list[tuple[bytes, bytes]], names: frozenset[str]) -> str | None:
    """Why a request with these headers is refused, or None when it may pass."""
    seen = {k.lower(): v.decode("latin-1") for k, v in headers}
    host = host_name(seen.get(b"host", ""))
    if host not in names:
        return "this lesson server answers only at its own address (127.0.0.1 or localhost)"
    origin = seen.get(b"origin")
    if origin is not None and origin_name(origin) not in names:
        return "this lesson server does not answer requests made by other sites"
    return None


class HostGuard:
    """ASGI middleware: HTTP requests and WebSockets with a foreign ``Host`` or ``Origin`` get 403 and nothing else."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = refusal(list(scope.get("headers", [])), allowed_names())
        if why is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # closed before it is accepted: the browser sees an HTTP 403
            await send({"type": "websocket.close", "code": 1008, "reason": ""})
            return
        body = f"Forbidden: {why}. To serve the lessons under another name, list it in {HOSTS_ENV}.\n".encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


#: What marimo's middleware entry point loads (pyproject.toml).
MIDDLEWARE = Middleware(HostGuard)
