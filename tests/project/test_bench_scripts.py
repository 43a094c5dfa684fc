"""The benchmark scripts still run against the app as it is (they import helpers from one another)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_load_test_finds_every_view_of_a_page():
    """`make bench-load` visits each page's parts and views: for BR-DP, its three other parts and the paper view."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert load.other_views("brdp.py") == ["part=Budget", "part=Privacy", "part=Subsampling", "view=reproduce"]
    assert load.other_views("home.py") == []
