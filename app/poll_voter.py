"""One answer per browser session: the class poll's random browser token.

Opening the poll page (``/poll``, the address in the QR code) without the cookie ``dpx_poll`` sets it to 128 random
bits (:class:`VoterCookie`, a middleware of app/serve.py): a session cookie, so it lasts until the browser is closed,
kept from scripts (HttpOnly) and sent only with the app's own requests (SameSite=Lax). The page's script reads it from
the WebSocket's handshake (``st.context.cookies``), so a reload or a second tab of the same browser is the same voter.
Without the cookie (a client that never loaded the page, a test), the Streamlit session gets a token of its own.

The store keeps only a digest of the token with the poll's id (app/poll_store.py); the token says nothing about its
holder and no answer is ever linked to it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

COOKIE = "dpx_poll"
_SESSION_KEY = "_dpx_poll_voter"  # session state: the token of a session whose browser sent no cookie
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def new_token() -> str:
    """A fresh browser token: 22 URL-safe characters, 128 random bits."""
    return secrets.token_urlsafe(16)


def is_token(value: Any) -> bool:
    return isinstance(value, str) and bool(_TOKEN.match(value))


def _cookie_header(headers: list[tuple[bytes, bytes]]) -> str:
    return "; ".join(v.decode("latin-1") for k, v in headers if k.lower() == b"cookie")


def has_cookie(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a request's headers carry a well-formed poll cookie."""
    for part in _cookie_header(headers).split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE and is_token(value):
            return True
    return False


def _secure(scope: Scope) -> bool:
    forwarded = dict(scope.get("headers", [])).get(b"x-forwarded-proto", b"").decode("latin-1").split(",")[0]
    return scope.get("scheme") == "https" or forwarded.strip().lower() == "https"


def is_poll_page(path: str) -> bool:
    """The poll page's address, under any base path (``/poll``, ``/dp/poll/``)."""
    return path.rstrip("/").endswith("/poll")


class VoterCookie:
    """ASGI middleware: the poll page's HTML response sets the browser's poll cookie when the request has none."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "GET"
            or not is_poll_page(scope.get("path", ""))
            or has_cookie(scope.get("headers", []))
        ):
            await self.app(scope, receive, send)
            return
        value = f"{COOKIE}={new_token()}; Path=/; HttpOnly; SameSite=Lax" + ("; Secure" if _secure(scope) else "")

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = dict((k.lower(), v) for k, v in headers).get(b"content-type", b"")
                if kind.startswith(b"text/html"):
                    message = dict(message, headers=[*headers, (b"set-cookie", value.encode("latin-1"))])
            await send(message)

        await self.app(scope, receive, with_cookie)


def token() -> str:
    """This browser's token inside a page run: the cookie when the browser sent one, else the session's own."""
    import streamlit as st  # noqa: PLC0415 — the middleware above runs without a script

    try:
        sent = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 — no browser (AppTest): the session's own token
        sent = None
    if is_token(sent):
        return sent
    own = st.session_state.get(_SESSION_KEY)
    if not is_token(own):
        own = st.session_state[_SESSION_KEY] = new_token()
    return own
