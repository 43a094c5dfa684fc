"""Security on live servers: the app's and nginx's response headers, nginx's limits.

The app is served as every launcher serves it (``streamlit run app/serve.py``); nginx runs with the cluster's
configuration (deploy/nginx.conf.template through deploy/cluster.py) in front of it, or in front of a small upstream
the test controls. Without nginx installed (Debian: ``make nginx``) the nginx tests skip, and fail under ``CI=true``.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app import serve
from deploy import cluster
from tests.e2e.conftest import ARTIFACTS

#: What every response must carry, once each (app/serve.py, deploy/nginx.conf.template).
EXPECTED = {
    "x-frame-options": "SAMEORIGIN",
    "content-security-policy": "frame-ancestors 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
PATHS = ("/", "/baselines", "/_stcore/health", "/_stcore/host-config", "/favicon.png", "/no/such/page.js")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, list[tuple[str, str]], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, [(k.lower(), v) for k, v in r.getheaders()], r.read()
    finally:
        conn.close()


def _security_headers(headers: list[tuple[str, str]]) -> dict[str, list[str]]:
    return {name: [v for k, v in headers if k == name] for name in EXPECTED}


def test_the_app_sends_the_security_headers_on_every_response(app_url: str):
    port = int(app_url.rsplit(":", 1)[1])
    asset = None
    for path in PATHS:
        status, headers, body = _get(port, path)
        assert _security_headers(headers) == {k: [v] for k, v in EXPECTED.items()}, (path, status, headers)
        if path == "/":
            asset = body.split(b'src="./static/js/', 1)[1].split(b'"', 1)[0].decode()
    status, headers, _ = _get(port, f"/static/js/{asset}")  # the app's code: typed correctly, so nosniff is safe
    assert status == 200 and dict(headers)["content-type"].startswith(("application/javascript", "text/javascript"))
    assert _security_headers(headers) == {k: [v] for k, v in EXPECTED.items()}
    assert {k.decode(): v.decode() for k, v in serve.SECURITY_HEADERS} == EXPECTED


# ---------------------------------------------------------------------------------------------------------- nginx


def _nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if found is None:
        message = "nginx is not installed: run `make nginx`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _start_nginx(
    run: Path, upstream_ports: list[int], limits: dict[str, str] | None = None
) -> tuple[subprocess.Popen, int]:
    """nginx with the cluster's configuration in ``run``, in front of ``upstream_ports``; returns it and its port."""
    binary = _nginx_binary()
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (run / "tmp" / sub).mkdir(parents=True, exist_ok=True)
    port = _free_port()
    (run / "nginx.conf").write_text(cluster.nginx_conf(run, port, upstream_ports, limits))
    proc = subprocess.Popen(
        [binary, "-p", str(run), "-c", str(run / "nginx.conf"), "-g", "daemon off;"], cwd=run, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 30
    while True:  # until it listens (or has exited: then say why)
        if proc.poll() is not None:
            pytest.fail(f"nginx exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("nginx did not start listening within 30 s")
            time.sleep(0.05)


@pytest.fixture
def nginx_run(tmp_path: Path) -> Iterator[tuple[Path, list[subprocess.Popen]]]:
    started: list[subprocess.Popen] = []
    yield tmp_path, started
    for proc in started:
        proc.terminate()
        proc.wait(30)


def test_nginx_sends_the_headers_once_and_hides_its_version(app_url: str, nginx_run):
    run, started = nginx_run
    proc, port = _start_nginx(run, [int(app_url.rsplit(":", 1)[1])])
    started.append(proc)
    for path in PATHS:
        status, headers, _ = _get(port, path)
        assert _security_headers(headers) == {k: [v] for k, v in EXPECTED.items()}, (path, status, headers)
        assert dict(headers)["server"] == "nginx", "no version in the Server header"
        assert any(k == "set-cookie" and v.startswith("dpx_route=") for k, v in headers), "sticky sessions still"
    # an answer nginx makes itself (a request header too large for its buffers) carries them too, and its page no
    # version either
    status, headers, body = _get(port, "/", {"Cookie": "x=" + "a" * 20_000})
    assert status == 400 and _security_headers(headers) == {k: [v] for k, v in EXPECTED.items()}
    assert b"nginx/" not in body


class _Upstream:
    """An HTTP upstream that holds each request until :attr:`release` is set, counting arrivals."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.arrived = threading.Semaphore(0)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 — the http.server API
                outer.arrived.release()
                outer.release.wait(60)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_nginx_limits_connections_per_address(nginx_run):
    """With two connections allowed per address, a third request while two are being answered gets 429 (with the
    headers); the two held ones complete. The held requests are counted as they reach the upstream (no timing)."""
    run, started = nginx_run
    upstream = _Upstream()
    try:
        proc, port = _start_nginx(run, [upstream.port], {"CONNECTIONS_PER_ADDRESS": "2"})
        started.append(proc)
        results: list[int] = []
        held = [threading.Thread(target=lambda: results.append(_get(port, "/slow")[0])) for _ in range(2)]
        for t in held:
            t.start()
        for _ in held:
            assert upstream.arrived.acquire(timeout=30), "a held request did not reach the upstream"
        status, headers, _ = _get(port, "/third")
        assert status == 429
        assert _security_headers(headers) == {k: [v] for k, v in EXPECTED.items()}
        upstream.release.set()
        for t in held:
            t.join(30)
        assert results == [200, 200]
        assert _get(port, "/after")[0] == 200, "the limit counts open requests, not past ones"
    finally:
        upstream.close()


def test_nginx_limits_the_request_rate_per_address(nginx_run):
    """At one request a minute with a burst of two, three requests pass and the fourth gets 429 (the next allowance
    is a minute away, far beyond the test's few milliseconds)."""
    run, started = nginx_run
    upstream = _Upstream()
    upstream.release.set()
    try:
        proc, port = _start_nginx(run, [upstream.port], {"REQUEST_RATE": "1r/m", "REQUEST_BURST": "2"})
        started.append(proc)
        assert [_get(port, f"/r{i}")[0] for i in range(4)] == [200, 200, 200, 429]
    finally:
        upstream.close()


def test_the_cluster_configuration_is_valid_for_nginx(tmp_path: Path):
    binary = _nginx_binary()
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / "tmp" / sub).mkdir(parents=True, exist_ok=True)
    (tmp_path / "nginx.conf").write_text(cluster.nginx_conf(tmp_path, _free_port(), [_free_port(), _free_port()]))
    out = subprocess.run(
        [binary, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    conf = (tmp_path / "nginx.conf").read_text()
    assert not re.search(r"@[A-Z_]+@", conf), "every field of the template is filled in"
    assert "server_tokens off;" in conf and "limit_conn dpx_conn 512;" in conf and "rate=50r/s" in conf


# ------------------------------------------------------------------------------------------------ in chromium

TIMEOUT = 60_000


@pytest.fixture
def tracker() -> Iterator[tuple[str, list[str]]]:
    """A local web server standing for a tracker: every request it receives is recorded."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 — the http.server API
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def test_a_lesson_note_is_plain_text_and_fetches_nothing(app_url: str, page, tracker):
    """A lesson link's note with a markdown image, a link, coloured text and an HTML image: the projected page holds
    no trace of it (notes live only in the presenter view), the presenter view shows those characters as they are
    with no image, link or styling, and nothing is fetched from the tracker."""
    from playwright.sync_api import expect

    from app import sequences

    base, hits = tracker
    note = (
        f"![pixel]({base}/pixel.png) [Log in again]({base}/login) :red[Your session expired] "
        f"<img src={base}/html.png> **bold**"
    )
    code = sequences.encode([sequences.Step("baselines", {"eps": "2"}, note), sequences.Step("svt", {}, "next")])
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/baselines?seq={code}&step=1")
    strip = page.locator(".st-key-lesson-strip")
    expect(strip).to_contain_text("view 1 of 2", timeout=TIMEOUT)
    assert "Log in again" not in page.content() and "session expired" not in page.content()  # not on the projector
    assert strip.locator("img").count() == 0
    page.goto(f"{app_url}/baselines?seq={code}&step=1&presenter=true")
    said = page.locator(".presenter .note")
    expect(said).to_have_text(note, timeout=TIMEOUT)  # every character, as written
    assert said.locator("strong, em, a, img, span[class*='red'], [style*='color']").count() == 0, said.inner_html()
    page.screenshot(path=str(ARTIFACTS / "lesson-note-plain.png"))
    assert hits == [] and not [u for u in asked if u.startswith(base)], (hits, asked)


def test_the_share_link_leaves_out_a_value_the_page_did_not_accept(app_url: str, page):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/baselines?eps=2&step=[click](javascript:alert(4))")
    page.get_by_role("button", name="Share this view").click()
    code = page.get_by_test_id("stPopoverBody").locator("code").first
    expect(code).to_contain_text("eps=2", timeout=TIMEOUT)
    link = code.inner_text().strip()
    page.screenshot(path=str(ARTIFACTS / "share-link-checked.png"))
    assert "step=" not in link and "javascript" not in link and "click" not in link, link
    assert link.startswith(f"{app_url}/baselines?"), link


# ------------------------------------------------------------------------------------------------ the lesson servers

ROOT = Path(__file__).resolve().parents[2]


def _make_command(target: str, port: int) -> str:
    """The shell command ``make <target>`` runs (its last line naming marimo), for a given port."""
    out = subprocess.run(
        ["make", "-n", target, f"LESSON_PORT={port}", f"APP_LESSON_PORT={port}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if "/marimo " in line][-1]


@pytest.fixture
def marimo_server() -> Iterator[callable]:
    """Start a marimo command (a shell line) on a free port; wait until it answers; yield (port, its output so far)."""
    procs: list[subprocess.Popen] = []

    def start(command: str, port: int) -> str:
        proc = subprocess.Popen(
            command,
            shell=True,  # noqa: S602 — the Makefile's own line, with its variable assignments
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        procs.append(proc)
        seen: list[str] = []
        threading.Thread(target=lambda: seen.extend(proc.stdout), daemon=True).start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if _get(port, "/health")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None:
                pytest.fail("the lesson server exited: " + "".join(seen)[-2000:])
            time.sleep(0.2)
        else:
            pytest.fail("the lesson server did not answer within 120 s")
        deadline = time.monotonic() + 30
        while "URL" not in "".join(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        return "".join(seen)

    yield start
    for proc in procs:
        os.killpg(proc.pid, 15)
        proc.wait(30)


def _post(port: int, path: str, headers: dict[str, str], body: str = '{"path": "/"}') -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def test_the_lesson_editor_needs_its_token_and_refuses_a_foreign_host(marimo_server):
    """``make notebooks``: the link printed carries the token; without it there is no editor and no file; with it, a
    foreign Host (a name rebound to 127.0.0.1) still gets neither."""
    port = _free_port()
    command = _make_command("notebooks", port)
    assert "marimo edit" in command and "--no-token" not in command, command
    printed = marimo_server(command, port)
    token = re.search(r"access_token=([A-Za-z0-9_-]+)", printed)
    assert token, printed
    token = token.group(1)
    here = {"Host": f"127.0.0.1:{port}"}
    foreign = {"Host": f"rebound.example:{port}", "Origin": f"http://rebound.example:{port}"}
    status, _, body = _get(port, "/", here)
    assert status in (302, 303, 401) and b"marimo-filename" not in body, status  # to the login form
    status, body = _post(port, "/api/files/list_files", here)
    assert status in (401, 403) and b"notebooks" not in body, (status, body[:200])
    # with the token: the editor opens (the token sets a session cookie)
    status, headers, _ = _get(port, f"/?access_token={token}", here)
    cookie = "; ".join(v.split(";", 1)[0] for k, v in headers if k == "set-cookie")
    assert status in (200, 302, 303, 307) and cookie, (status, headers)
    status, _, body = _get(port, "/", {**here, "Cookie": cookie})
    assert status == 200 and b"<html" in body.lower()
    # a foreign host gets no page and no file, token or not
    for path in ("/", f"/?access_token={token}", "/api/files/roots"):
        status, _, body = _get(port, path, {**foreign, "Cookie": cookie})
        assert status == 403 and b"<html" not in body.lower(), (path, status)
    for path in ("/api/files/list_files", "/api/files/file_details", f"/api/files/list_files?access_token={token}"):
        status, body = _post(port, path, {**foreign, "Cookie": cookie, "Authorization": f"Bearer {token}"})
        assert status in (401, 403) and b"notebooks" not in body and b"baselines" not in body, (path, status, body)


def test_the_read_only_lessons_open_without_a_token_and_refuse_a_foreign_host(marimo_server):
    """``make app``'s lesson gallery and ``make lesson``: read-only, so no token, and students' links keep working;
    no editing or file access for anyone; a foreign Host gets nothing."""
    port = _free_port()
    command = _make_command("lesson", port)
    assert "marimo run" in command and "--no-token" in command, command
    marimo_server(command, port)
    here = {"Host": f"127.0.0.1:{port}"}
    status, _, body = _get(port, "/", here)
    assert status == 200 and b"<html" in body.lower()
    status, body = _post(port, "/api/files/list_files", here)
    assert status in (401, 403), (status, body[:200])  # run mode grants reading the lesson only
    status, _, body = _get(port, "/", {"Host": f"rebound.example:{port}"})
    assert status == 403 and b"<html" not in body.lower()
