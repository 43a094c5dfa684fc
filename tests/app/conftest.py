"""AppTest helpers: open a page of the app through its real entry point (navigation included)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import registry

ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "app" / "main.py")

#: BR-DP's second counterexample in the paper's model (ε = 5, δ = 10⁻⁸, θ = 3, Δ = 0.2, ε_y = 0.3·ε), as an address:
#: the paper's accountant says δ is met, the exact δ is 750 times the target.
COUNTEREXAMPLE_B = {
    "eps": "5",
    "delta": "1e-08",
    "theta": "3",
    "sens": "0.2",
    "acct": "paper",
    "split": "true",
    "share": "0.3",
}


def open_page(script: str, query: dict[str, str] | None = None) -> AppTest:
    """Run app/main.py, switched to pages/<script>, with the given URL query parameters."""
    at = AppTest.from_file(MAIN, default_timeout=120)
    if script != "home.py":
        at.switch_page(f"../pages/{script}")
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    # AppTest finds the page by file name: make sure we really landed on it (not silently on the home page)
    expected = next(p.url_path for p in registry.available_pages() if p.script == script)
    assert at.session_state["_page"] == expected, f"opened {at.session_state['_page']!r}, not {script}"
    return at


def page_ok(at: AppTest) -> None:
    """The page ran without an exception and shows no error."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def shown_metrics(at: AppTest) -> dict[str, str]:
    """The page's metric cards: label → value as shown."""
    return {m.label: m.value for m in at.metric}


def open_boxes(at: AppTest, *keys: str) -> AppTest:
    """Open the popovers and expanders with these keys, as a click does (their contents are drawn only while open),
    and rerun."""
    for key in keys:
        at.session_state[key] = True
    return at.run()


_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-", strict=True))


def read_number(text: str) -> float:
    """What a reader takes a number on screen to mean: ``0.5``, ``10⁻⁵``, ``7.53·10⁻⁶``, ``-2.5·10⁷``, ``∞``."""
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.removeprefix("-")
    if body == "∞":
        return sign * math.inf
    power = "".join(c for c in body if c in _SUPERSCRIPT)
    if not power:
        return sign * float(body)
    mantissa = body[: -len(power)].removesuffix("10").removesuffix("·")
    return sign * float(mantissa or "1") * 10.0 ** int("".join(_SUPERSCRIPT[c] for c in power))


def shown_numbers(at: AppTest) -> tuple:
    """Everything numeric the page shows as text: metric values and table cells (data grids and plain tables, in
    either order: presentation mode draws short grids as plain tables)."""
    metrics = tuple((m.label, m.value) for m in at.metric)
    frames = tuple(sorted(df.value.to_csv() for df in [*at.dataframe, *at.table]))
    return metrics + frames


@pytest.fixture
def page_opener():
    return open_page


def record_parts(monkeypatch) -> list[str]:
    """The labels of the first URL-bound part bar the next opened page draws (``app.params.parts``), as a list that
    fills while the page runs: the default part is the first, the others are opened with ``?part=<label>``."""
    from app import params

    labels: list[str] = []
    real = params.parts

    def recording(names, **kw):
        if not labels:
            labels.extend(str(n) for n in names)
        return real(names, **kw)

    monkeypatch.setattr(params, "parts", recording)
    return labels
