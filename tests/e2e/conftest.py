"""Browser tests: a real app server on 127.0.0.1 and Debian chromium driven by pytest-playwright.

Chromium cannot be downloaded here (``playwright install`` is blocked), so the launch uses the system
``/usr/bin/chromium``. Without it the tests skip on a developer machine and FAIL under ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"  # not test-results/: pytest-playwright wipes that folder
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


def _chromium() -> str | None:
    return shutil.which("chromium") or (shutil.which("/usr/bin/chromium"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    exe = _chromium()
    if exe is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Debian chromium is required for the browser tests under CI=true (make test installs it)")
        pytest.skip("Debian chromium not installed on this machine (run `make test` as root to install it)")
    return {**browser_type_launch_args, "executable_path": exe, "args": CHROMIUM_FLAGS}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _served(
    module: list[str], port: int, log_name: str, env: dict[str, str], health: str, seconds: int, what: str
) -> Iterator[str]:
    """Run ``python -m <module…>`` from the project root, wait until ``health`` answers 200 (at most ``seconds``),
    yield the server's URL, then stop it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / log_name, "w")  # noqa: SIM115 — closed after the server stops
    proc = subprocess.Popen(
        [sys.executable, "-m", *module], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env}
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}{health}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.terminate()
        raise RuntimeError(f"{what} did not become healthy within {seconds} s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def serve(env: dict[str, str] | None = None) -> Iterator[str]:
    """Run ``streamlit run app/serve.py`` headless on a free loopback port (with ``env`` overrides); yield its URL."""
    port = _free_port()
    yield from _served(
        [
            "streamlit",
            "run",
            str(ROOT / "app" / "serve.py"),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        port,
        f"server-{port}.log",
        # figures built as in production (unchecked: app.figures.style); tests/app/test_figures.py checks they equal
        # Plotly's checked ones
        {"DPX_VALIDATE_FIGURES": "0", **(env or {})},
        "/_stcore/health",
        60,
        "the app server",
    )


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """The app served on a free loopback port (heavy panels computed inline, see tests/conftest.py)."""
    yield from serve()


def serve_lesson(name: str) -> Iterator[str]:
    """Run ``marimo run notebooks/<name>.py`` (read-only app, no token) on a free loopback port; yield its URL."""
    port = _free_port()
    yield from _served(
        ["marimo", "run", str(ROOT / "notebooks" / f"{name}.py"), "--headless", "--host", "127.0.0.1"]
        + ["--port", str(port), "--no-token"],
        port,
        f"lesson-{name}-{port}.log",
        {"PYTHONPATH": str(ROOT)},
        "/health",
        90,
        "the lesson server",
    )


def press_slider(slider, key: str, times: int, timeout_s: float = 30.0) -> None:
    """Press ``key`` ``times`` times on a slider, one stop at a time, each confirmed by its ``aria-valuetext``.

    A rerun can replace the slider's element just after it was focused, and the key presses then go nowhere; so
    each press is confirmed, and a press that changed nothing within a few seconds is repeated on a fresh focus.
    """
    for _ in range(times):
        before = slider.get_attribute("aria-valuetext")
        deadline = time.monotonic() + timeout_s
        while True:
            slider.focus()
            slider.press(key)
            retry = time.monotonic() + 4.0
            while slider.get_attribute("aria-valuetext") == before and time.monotonic() < retry:
                time.sleep(0.05)
            if slider.get_attribute("aria-valuetext") != before:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the slider stayed at {before} after pressing {key}")
