"""The server tells Streamlit's browser code where the app's root is: the app's HTML page gets the settings script
(with a correct length), and nothing else the server sends is touched."""

from __future__ import annotations

import asyncio
import concurrent.futures

from app import serve

PAGE = b"<!DOCTYPE html><html><head><title>x</title></head><body></body></html>"


def _call(
    path: str, *, ctype: bytes = b"text/html", body: bytes = PAGE, method: str = "GET", gzip: bool = False
) -> tuple[dict, bytes, list]:
    seen_headers: list = []

    async def inner(scope, receive, send):
        seen_headers.extend(scope["headers"])
        headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]
        if gzip:
            headers.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        half = len(body) // 2  # in two pieces, as a file is streamed
        await send({"type": "http.response.body", "body": body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": body[half:]})

    sent: list = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(b"accept-encoding", b"gzip"), (b"host", b"h")],
    }
    # on a thread of its own: in a test process that also drives a browser, Playwright's synchronous API keeps an
    # event loop running on the main thread, where asyncio.run refuses to start another
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, serve.MainPageAddress(inner)(scope, receive, send)).result()
    start = sent[0]
    out = b"".join(m.get("body", b"") for m in sent[1:])
    return dict(start["headers"]), out, seen_headers


def test_a_page_gets_the_root_before_streamlit_starts():
    headers, body, asked = _call("/negotiate")
    script = serve.settings_script("")
    assert body == PAGE.replace(b"<head>", b"<head>" + script)
    assert int(headers[b"content-length"]) == len(body)
    assert b'BACKEND_BASE_URL:location.origin+"/"' in script and b'MAIN_PAGE_BASE_URL:location.origin+"/"' in script
    assert all(k != b"accept-encoding" for k, _ in asked)  # asked uncompressed, so it can be written into


def test_the_root_page_too():
    _, body, _ = _call("/")
    assert body.startswith(b"<!DOCTYPE html><html><head><script>window.__streamlit=")


def test_a_base_path_is_part_of_the_root():
    assert b'location.origin+"/dpx/"' in serve.settings_script("/dpx/")
    assert b'location.origin+"/dpx/"' in serve.settings_script("dpx")


def test_assets_endpoints_and_other_types_are_untouched():
    for path in ("/static/js/index.js", "/_stcore/health", "/favicon.png", "/media/abc.png", "/x/_stcore/host-config"):
        headers, body, asked = _call(path)
        assert body == PAGE and (b"accept-encoding", b"gzip") in asked, path
    _, body, _ = _call("/negotiate", ctype=b"application/json", body=b'{"a": "<head>"}')
    assert body == b'{"a": "<head>"}'
    _, body, _ = _call("/negotiate", gzip=True)
    assert body == PAGE
    _, body, _ = _call("/negotiate", method="POST")
    assert body == PAGE


def _headers_through(middleware_cls, path: str, inner_headers: list) -> list:
    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": inner_headers})
        await send({"type": "http.response.body", "body": b"x"})

    sent: list = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    scope = {"type": "http", "method": "GET", "path": path, "headers": [(b"host", b"h")]}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, middleware_cls(inner)(scope, receive, send)).result()
    return sent[0]["headers"]


def test_every_response_carries_the_security_headers_once():
    expected = {
        b"x-frame-options": b"SAMEORIGIN",
        b"content-security-policy": b"frame-ancestors 'self'",
        b"x-content-type-options": b"nosniff",
        b"referrer-policy": b"same-origin",
    }
    assert dict(serve.SECURITY_HEADERS) == expected
    for path in ("/", "/negotiate", "/static/js/index.js", "/_stcore/health", "/media/x.png"):
        headers = _headers_through(
            serve.SecurityHeaders, path, [(b"content-type", b"text/plain"), (b"X-Frame-Options", b"ALLOWALL")]
        )
        names = [k.lower() for k, _ in headers]
        assert all(names.count(k) == 1 for k in expected), headers  # the app's own value replaced, not doubled
        assert {k.lower(): v for k, v in headers if k.lower() in expected} == expected
        assert (b"content-type", b"text/plain") in headers
