"""The poll page's browser-token cookie (app/poll_voter.py): set once, on the poll page's HTML only, as a session
cookie scripts cannot read; never on other pages, other responses, or when the browser already has one."""

from __future__ import annotations

import asyncio
import re

import pytest

from app import poll_voter
from app.serve import app as served


def _run(path: str, *, headers=(), method: str = "GET", kind: str = "http", content_type: bytes = b"text/html"):
    sent: list[dict] = []

    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", content_type)]})
        await send({"type": "http.response.body", "body": b"<html></html>"})

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    scope = {"type": kind, "method": method, "path": path, "headers": list(headers), "scheme": "http"}
    asyncio.run(poll_voter.VoterCookie(inner)(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return [v.decode() for k, v in start["headers"] if k == b"set-cookie"]


def test_the_poll_page_sets_a_random_session_cookie():
    (first,) = _run("/poll")
    (second,) = _run("/poll/")
    value = re.match(rf"{poll_voter.COOKIE}=([^;]+); Path=/; HttpOnly; SameSite=Lax$", first)
    assert value and poll_voter.is_token(value[1])
    assert first != second  # a fresh token for each browser
    assert "Max-Age" not in first and "Expires" not in first  # a session cookie: gone when the browser closes
    (under_base,) = _run("/dp/poll")
    assert under_base.startswith(f"{poll_voter.COOKIE}=")


def test_behind_https_the_cookie_is_secure():
    (cookie,) = _run("/poll", headers=[(b"x-forwarded-proto", b"https")])
    assert cookie.endswith("; Secure")


@pytest.mark.parametrize(
    "path,kw",
    [
        ("/brdp", {}),
        ("/", {}),
        ("/polls", {}),
        ("/poll", {"method": "POST"}),
        ("/poll", {"content_type": b"application/json"}),
        ("/poll", {"headers": [(b"cookie", f"a=1; {poll_voter.COOKIE}={'A' * 22}".encode())]}),
    ],
)
def test_no_cookie_elsewhere_or_twice(path, kw):
    assert _run(path, **kw) == []


def test_a_malformed_cookie_is_replaced():
    (cookie,) = _run("/poll", headers=[(b"cookie", f"{poll_voter.COOKIE}=x'; --".encode())])
    assert poll_voter.is_token(cookie.split(";")[0].split("=", 1)[1])


def test_the_server_installs_it():
    assert any(m.cls is poll_voter.VoterCookie for m in served._user_middleware)  # noqa: SLF001
