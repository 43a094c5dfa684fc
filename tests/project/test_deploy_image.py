"""deploy/image.py without podman: what it asks podman to do when a build fails."""

from __future__ import annotations

import pytest

from deploy import image


@pytest.fixture
def calls(monkeypatch) -> list[tuple[str, ...]]:
    """The podman commands a test's stand-in records (the base image is taken as made)."""
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(image, "stand_in_base", lambda: "localhost/base:1")
    return seen


def test_a_stale_build_cache_gets_one_build_without_it(monkeypatch, calls):
    def podman(*args: str, timeout: float = 600, check: bool = True):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError(
                'podman --runtime runc build … failed (125):\nError: mounting build container "0741": layer not known'
            )

    monkeypatch.setattr(image, "podman", podman)
    assert image.build("localhost/t:1") == "localhost/t:1"
    assert len(calls) == 2 and "--no-cache" not in calls[0] and calls[1][:2] == ("build", "--no-cache")
    assert calls[1][2:] == calls[0][1:]  # otherwise the same build


def test_any_other_build_failure_is_reported_as_it_is(monkeypatch, calls):
    def podman(*args: str, timeout: float = 600, check: bool = True):
        calls.append(args)
        raise RuntimeError("podman --runtime runc build … failed (1):\nSTEP 9/17: RUN pip install … error")

    monkeypatch.setattr(image, "podman", podman)
    with pytest.raises(RuntimeError, match="pip install"):
        image.build("localhost/t:1")
    assert len(calls) == 1
