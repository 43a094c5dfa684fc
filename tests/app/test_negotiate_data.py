"""The negotiate page's own-data panel and its split panel, in AppTest: a good CSV is released beside its true
table; each kind of bad file gets one clear message and nothing else (no chart, no table, no exception); the
visitor's list of statistics gives the split on the page and in the report, checked against closed forms."""

from __future__ import annotations

import html
import math

import pandas as pd
import pytest

from app.compute import negotiate_data as data
from tests.app.conftest import open_page

PAGE = "negotiate.py"
QUERY = {"theta": "50", "T": "12"}
GOOD = b"county,income\nAshford,30200\nBrookside,15000\nAshford,41000\nDunmore,22000\n"


def _upload(name: str, content: bytes):
    at = open_page(PAGE, QUERY)
    charts = len(at.get("plotly_chart"))
    at.file_uploader(key="own-data").set_value((name, content, "text/csv")).run()
    assert not at.exception, at.exception
    return at, charts


def test_a_good_file_is_released_beside_its_true_table():
    at, charts = _upload("mine.csv", GOOD)
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == charts + 1
    table = next(t for t in at.dataframe if "true value" in t.value.columns).value
    assert list(table["true value"]) == ["2", "1", "1"]  # Ashford, Brookside, Dunmore
    assert "Laplace" in table.columns and len(table.columns) >= 3  # the answer and the next leading mechanisms
    # a column of numbers is summed, with its bounds
    at.selectbox(key="own-column").set_value("income").run()
    at.radio(key="own-kind").set_value("a bounded sum").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == charts + 1


BAD = {
    "encoding": ("latin.csv", "county,income\nMünster,3\n".encode("latin-1"), "not UTF-8 text"),
    "binary": ("photo.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not UTF-8 text"),
    "no header": ("noheader.csv", b"12,30200\n13,15000\n", "must name the columns"),
    "empty": ("empty.csv", b"", "empty"),
    "header only": ("head.csv", b"county,income\n", "no data rows"),
    "too large": ("big.csv", b"county,income\n" + b"Ashford,30200\n" * 80_000, "at most 1 MB"),
    # the parser's own words ("Error tokenizing data. C error: …") are not shown: the line and what to do are
    "ragged row": (
        "ragged.csv",
        b"county,income\nAshford,30200\nSmith, J.,15000\n",
        "Line 3 of the file has 3 cells where the header row names 2 columns",
    ),
    "open quote": ("quote.csv", b'county,income\n"Ashford,30200\n', "opened on line 2 is never closed"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_file_gets_one_clear_message_and_nothing_else(case):
    name, content, message = BAD[case]
    at, charts = _upload(name, content)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and message in errors[0], errors
    assert "error" not in errors[0].lower() and "EOF" not in errors[0]  # no parser jargon
    assert len(at.get("plotly_chart")) == charts  # no chart of the file
    assert not any("true value" in t.value.columns for t in at.dataframe)


def test_non_numeric_values_and_too_many_categories_are_named():
    rows = "\n".join(f"person {i},{i}" for i in range(60))
    at, charts = _upload("people.csv", f"name,income\n{rows}\nperson x,n/a\n".encode())
    at.selectbox(key="own-column").set_value("name").run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "61 different values" in errors[0] and "at most 50" in errors[0], errors
    at.selectbox(key="own-column").set_value("income").run()
    at.radio(key="own-kind").set_value("a bounded sum").run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and 'row 62 holds "n/a"' in errors[0], errors
    assert len(at.get("plotly_chart")) == charts


def test_the_file_is_not_stored_on_the_server():
    """Nothing of the upload reaches the data folder or any of the process-wide caches (which every session
    shares): its values appear in no cache key or value."""
    import gc
    import os

    from app.compute._cache import Memory

    before = set(os.listdir(os.environ["DPX_DATA_DIR"]))
    at, _ = _upload("mine.csv", GOOD + b"Zebrafield,12345\n")
    assert not at.error and any("true value" in t.value.columns for t in at.dataframe)
    assert set(os.listdir(os.environ["DPX_DATA_DIR"])) == before
    gc.unfreeze()  # the app freezes its start-up objects (gc.freeze), which hides them from gc.get_objects
    caches = [o for o in gc.get_objects() if isinstance(o, Memory)]
    assert caches
    for c in caches:
        assert "Zebrafield" not in repr(list(c.keys())) and "Zebrafield" not in repr(list(c.values()))


def test_read_table_messages_directly():
    assert list(data.read_table(GOOD).columns) == ["county", "income"]
    with pytest.raises(data.BadFile, match="same name"):
        data.read_table(b"a,a\n1,2\n")


#: The example list's second row as the data editor reports it after a visitor's edit.
AGE_BAND = {
    "statistic": "counts per age band",
    "kind": "counts",
    "within ±": 30.0,
    "confidence %": 90.0,
    "lowest value": None,
    "highest value": None,
    "rows": None,
}


def test_the_visitors_split_is_on_the_page_and_in_the_report(monkeypatch):
    """Counts ±50 at 95 % and ±30 at 90 %: Laplace on both adds up to ln 20/50 + ln 10/30 (δ = 0), which the
    page and the report state; the report's script then performs both releases."""
    from app.views import negotiate_report as reports

    pages = []
    real = reports.report_html
    monkeypatch.setattr(reports, "report_html", lambda r: pages.append(real(r)) or pages[-1])
    at = open_page(PAGE, QUERY)
    editor = at.dataframe[3]
    assert editor.key == "split-editor"
    rows = pd.DataFrame(
        [
            {"statistic": "counts per county", "kind": "counts", "within ±": 50.0, "confidence %": 95.0},
            {"statistic": "counts per age band", "kind": "counts", "within ±": 30.0, "confidence %": 90.0},
        ]
    )
    at.session_state["split-editor"] = {
        "edited_rows": {1: AGE_BAND},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    closed = math.log(20) / 50 + math.log(10) / 30
    line = next(m.value for m in at.markdown if m.value.startswith("**Both together"))
    assert f"ε = {closed:.4g} with δ = 0" in line, (line, closed)
    assert rows.shape == (2, 4)
    assert "Several statistics: the split" in pages[-1] and "counts per age band" in pages[-1]
    assert html.unescape(pages[-1]).count("release.plan('counts', 'county', 'laplace'") == 2


def test_a_share_link_reopens_the_visitors_list_of_statistics():
    """The edited list goes into the address; opening that address in a fresh session shows the same list and the
    same total (the closed form for Laplace on both: ln 20/100 + ln 10/30, δ = 0)."""
    at = open_page(PAGE, QUERY)
    assert "stats" not in dict(at.query_params)  # the example alone is not the visitor's list
    at.session_state["split-editor"] = {
        "edited_rows": {
            0: {"within ±": 100.0},
            1: AGE_BAND,
        },
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    link = dict(at.query_params)["stats"]
    fresh = open_page(PAGE, dict(QUERY) | {"stats": link})
    assert not fresh.exception and not fresh.error, [e.value for e in fresh.error]
    closed = math.log(20) / 100 + math.log(10) / 30
    line = next(m.value for m in fresh.markdown if m.value.startswith("**Both together"))
    assert f"ε = {closed:.4g} with δ = 0" in line, (line, closed)
    assert dict(fresh.query_params)["stats"] == link  # the reopened view's own link is the same


@pytest.mark.parametrize("raw", ["%%%", "bm90IGpzb24", "W1siYSIsImJvbWIiLDEsOTUsbnVsbCxudWxsLG51bGxdXQ", "A" * 5000])
def test_a_bad_list_in_the_link_is_reported_and_the_example_shown(raw):
    at = open_page(PAGE, dict(QUERY) | {"stats": raw})
    assert not at.exception
    assert any("list of statistics could not be read" in e.value for e in at.error), [e.value for e in at.error]
    assert any(m.value.startswith("**Both together") for m in at.markdown)
    assert "stats" not in dict(at.query_params)
