"""AppTest helpers: open a page of the app through its real entry point (navigation included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "app" / "main.py")


def open_page(script: str, query: dict[str, str] | None = None) -> AppTest:
    """Run app/main.py, switched to pages/<script>, with the given URL query parameters."""
    at = AppTest.from_file(MAIN, default_timeout=120)
    if script != "home.py":
        at.switch_page(f"../pages/{script}")
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def shown_numbers(at: AppTest) -> tuple:
    """Everything numeric the page shows as text: metric values and dataframe cells."""
    metrics = tuple((m.label, m.value) for m in at.metric)
    frames = tuple(df.value.to_csv() for df in at.dataframe)
    return metrics + frames


@pytest.fixture
def page_opener():
    return open_page
