"""Browser tests: a real app server on 127.0.0.1 and Debian chromium driven by pytest-playwright.

Chromium cannot be downloaded here (``playwright install`` is blocked), so the launch uses the system
``/usr/bin/chromium``. Without it the tests skip on a developer machine and FAIL under ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.serving import CHROMIUM_FLAGS, free_port, marimo_args, served, streamlit_args

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"  # not test-results/: pytest-playwright wipes that folder


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


def serve(env: dict[str, str] | None = None) -> Iterator[str]:
    """Run ``streamlit run app/serve.py`` headless on a free loopback port (with ``env`` overrides); yield its URL."""
    port = free_port()
    # figures built as in production (unchecked: app.figures.style); tests/app/test_figures.py checks they equal
    # Plotly's checked ones
    env = {"DPX_VALIDATE_FIGURES": "0", **(env or {})}
    log = ARTIFACTS / f"server-{port}.log"
    with served(
        streamlit_args(port), port, health="/_stcore/health", seconds=60, what="the app server", env=env, log=log
    ):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """The app served on a free loopback port (heavy panels computed inline, see tests/conftest.py)."""
    yield from serve()


def serve_lesson(name: str) -> Iterator[str]:
    """Run ``marimo run notebooks/<name>.py`` (read-only app, no token) on a free loopback port; yield its URL."""
    port = free_port()
    log = ARTIFACTS / f"lesson-{name}-{port}.log"
    env = {"PYTHONPATH": str(ROOT)}
    with served(
        marimo_args(name, port), port, health="/health", seconds=90, what="the lesson server", env=env, log=log
    ):
        yield f"http://127.0.0.1:{port}"


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
