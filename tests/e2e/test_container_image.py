"""The container image as a user runs it: the Dockerfile built with podman (deploy/image.py), then served, checked
for its health check and non-root user, and used in Debian chromium. A release added in the browser survives a
restart of the container (SQLite in the ``/data`` volume), and with ``DATABASE_URL`` it is written to a real
PostgreSQL server. Without podman, runc and debootstrap (``make podman``) these tests skip on a developer machine and
FAIL under ``CI=true``."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from app import ledger_store as ls
from deploy import image
from deploy.postgres import PostgresServer, bindir, free_port
from tests.e2e.test_ledger_flow import TIMEOUT, wait_for_app

CI = os.environ.get("CI", "").lower() == "true"


def _unavailable(message: str) -> None:
    if CI:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def built() -> Iterator[tuple[str, list[str]]]:
    """The image, built once for this module (the stand-in base is made on first use and then kept)."""
    if image.missing_tools():
        _unavailable(
            f"podman, runc and debootstrap are needed to build the image (missing: "
            f"{', '.join(image.missing_tools())}; run `make podman` as root)"
        )
    tag = f"localhost/dp-explorer:test-{secrets.token_hex(4)}"
    image.build(tag)
    names: list[str] = []
    yield tag, names
    for name in names:
        image.podman("rm", "-f", "-v", name, check=False)
    image.podman("rmi", "-f", tag, check=False)


def _start(built, env: dict[str, str] | None = None, volume: str | None = None) -> tuple[str, str, int]:
    tag, names = built
    name, port = f"dpx-test-{secrets.token_hex(4)}", free_port()
    names.append(name)
    image.run(name, port, image=tag, volume=volume, env=env)
    image.wait_healthy(port)
    return name, f"http://127.0.0.1:{port}", port


def _add_release(page: Page, url: str) -> str:
    """Open the baselines page, press the sidebar's "Add Gaussian …" and return the ledger id from the address."""
    page.goto(f"{url}/baselines")
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(r"^.*Add Gaussian")).first.click()
    alert = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").first
    expect(alert).to_contain_text("Added", timeout=TIMEOUT)
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]ledger=[A-Za-z0-9_-]{22}"), timeout=TIMEOUT)
    return re.search(r"[?&]ledger=([A-Za-z0-9_-]{22})", page.url).group(1)


def _sidebar_says_one_release(page: Page, url: str, ledger_id: str) -> None:
    page.goto(f"{url}/baselines?ledger={ledger_id}")  # a new session: only the address names the ledger
    wait_for_app(page)
    expect(page.locator("[data-testid='stSidebar']")).to_contain_text("1 release in the ledger", timeout=TIMEOUT)


def test_image_settings(built) -> None:
    described = image.inspect(built[0])
    config = described["Config"]
    assert config["User"] == "dpx"
    assert "8501/tcp" in config["ExposedPorts"]
    assert "DPX_DATA_DIR=/data" in config["Env"]
    assert any("/_stcore/health" in part for part in described["Healthcheck"]["Test"])
    assert "/data" in config["Volumes"]


def test_container_is_healthy_non_root_and_keeps_the_ledger_across_a_restart(built, page: Page) -> None:
    volume = f"dpx-test-{secrets.token_hex(4)}"
    name, url, port = _start(built, volume=volume)
    try:
        assert image.podman("healthcheck", "run", name, check=False).returncode == 0  # the image's own HEALTHCHECK
        assert image.podman("exec", name, "id", "-u").stdout.strip() == "10001"
        users = image.podman("top", name, "user").stdout.split()[1:]
        assert users and set(users) == {"dpx"}, users

        ledger_id = _add_release(page, url)
        assert image.podman("exec", name, "test", "-s", "/data/ledgers.sqlite3", check=False).returncode == 0
        image.podman("restart", name)
        image.wait_healthy(port)
        _sidebar_says_one_release(page, url, ledger_id)
    finally:
        image.podman("rm", "-f", name, check=False)
        image.podman("volume", "rm", "-f", volume, check=False)


def test_container_keeps_ledgers_in_postgresql_from_database_url(built, page: Page) -> None:
    found = bindir()
    if found is None:
        _unavailable("PostgreSQL (initdb, pg_ctl) is not installed: run `make postgres`")
    server = PostgresServer(found)
    try:
        server.start()
        plain_url = f"postgresql://postgres:{server.password}@127.0.0.1:{server.port}/dpx"  # as a user writes it
        name, url, _ = _start(built, env={"DATABASE_URL": plain_url})
        ledger_id = _add_release(page, url)
        assert image.podman("exec", name, "test", "-e", "/data/ledgers.sqlite3", check=False).returncode != 0

        store = ls.LedgerStore(server.url)
        try:
            snapshot = store.load(ledger_id)
            assert snapshot is not None and len(snapshot.ledger.releases) == 1
            assert [e.op for e in store.history(ledger_id)] == ["create", "add"]
        finally:
            store.dispose()
        _sidebar_says_one_release(page, url, ledger_id)
    finally:
        server.cleanup()
