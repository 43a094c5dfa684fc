"""AppTest: the privacy ledger across pages — add, refuse, account, export, clear, import (one session)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

import dpcore
import dpcore.ledger
from app import ledger as app_ledger
from tests.app.conftest import open_page

KEY = app_ledger.KEY

# Defaults of the pages used: baselines ε = 1, δ = 1e-5, Δ = 1, T = 10 (analytic σ); SVT ε = 1 (pure, exponential).
# Session budget ε = 10, δ = 1e-5 (chosen so that exactly three fit), enforced by the privacy filter
# of Rogers, Samorodnitsky, Wu & Ramdas (2023), δ split 50/50.
BUDGET_EPS, BUDGET_DELTA = 10.0, 1e-5
SIGMA = dpcore.gaussian_sigma(1.0, 1e-5)
RHO_GAUSS = 10 / (2 * SIGMA**2)  # ρ of 10 Gaussian runs, closed form
RHO_SVT = 1.0**2 / 2  # pure ε = 1 → ε²/2
L2 = math.log(1 / (BUDGET_DELTA / 2))
RHO_STAR = (math.sqrt(L2 + BUDGET_EPS) - math.sqrt(L2)) ** 2  # filter budget at δ'' = δ/2, closed form


def _texts(grid) -> pd.DataFrame:
    """The words a table's cells show where the app wrote them itself (a Styler's texts); its ``.value`` holds the
    numbers the grid sorts by."""
    return convert_arrow_bytes_to_pandas_df(grid.proto.arrow_data.styler.display_values)


def _ledger(at):
    return at.session_state[KEY]["ledger"]


def _click(at, key):
    at.button(key=key).click().run()
    assert not at.exception, at.exception


def _metric(at, label_start):
    m = [m for m in at.metric if m.label.startswith(label_start)]
    assert len(m) == 1, [x.label for x in at.metric]
    return float(m[0].value)


def test_budget_fits_exactly_three():
    # sanity of the scenario, computed by hand: G, SVT, G fit; a 4th (SVT) does not
    assert 2 * RHO_GAUSS + RHO_SVT <= RHO_STAR < 2 * RHO_GAUSS + 2 * RHO_SVT


@pytest.mark.slow
def test_add_refuse_account_export_clear_import():
    at = open_page("baselines.py")
    at.session_state[KEY] = {"ledger": dpcore.ledger.Ledger(BUDGET_EPS, BUDGET_DELTA), "log": []}  # the budget
    _click(at, "ledger_add_baselines_0")  # Gaussian at the page's σ, T = 10
    assert any("Added" in s.value for s in at.success)
    at.switch_page("../pages/svt.py")
    at.run()
    assert not at.exception
    _click(at, "ledger_add_svt_0")  # SVT run, pure ε = 1
    at.switch_page("../pages/baselines.py")
    at.run()
    _click(at, "ledger_add_baselines_0")
    assert len(_ledger(at).releases) == 3
    at.switch_page("../pages/svt.py")
    at.run()
    _click(at, "ledger_add_svt_0")  # the fourth is refused, with the numbers
    assert len(_ledger(at).releases) == 3
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Refused" in errors[0]
    left = RHO_STAR - 2 * RHO_GAUSS - RHO_SVT
    assert f"ρ = {left:.4g} left" in errors[0] and "needs ρ = 0.5 " in errors[0]  # ρ left and ρ needed

    at.switch_page("../pages/ledger.py")
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # the four accountants + filter, against independent computations
    eps_g = dpcore.gaussian_epsilon(1e-5, sigma=SIGMA)
    assert _metric(at, "ε · basic") == pytest.approx(20 * eps_g + 1.0, rel=5e-4)
    rho = 2 * RHO_GAUSS + RHO_SVT
    # the tight conversion (Canonne, Kamath & Steinke 2020), checked against OpenDP in
    # tests/crossval/test_zcdp_opendp.py
    assert _metric(at, "ε · zCDP") == pytest.approx(float(dpcore.zcdp_to_dp(rho, BUDGET_DELTA)), rel=5e-4)
    assert _metric(at, "ε · zCDP") < rho + 2 * math.sqrt(rho * math.log(1 / BUDGET_DELTA))  # below Bun & Steinke
    # the filter admits by the paper's ρ budget; the ε it reports for the ρ spent is the tight conversion at δ'' = δ/2
    assert _metric(at, "ε · filter") == pytest.approx(float(dpcore.zcdp_to_dp(rho, BUDGET_DELTA / 2)), rel=5e-4)
    assert _metric(at, "ε · filter") < rho + 2 * math.sqrt(rho * L2)
    h = dpcore.PLD_DISCRETIZATION
    g = pld_lib.from_gaussian_mechanism(SIGMA, value_discretization_interval=h).self_compose(20)
    s = pld_lib.from_privacy_parameters(
        pld_common.DifferentialPrivacyParameters(1.0, 0.0), value_discretization_interval=h
    )
    assert _metric(at, "ε · PLD") == pytest.approx(g.compose(s).get_epsilon_for_delta(BUDGET_DELTA), rel=5e-4)
    # 20 Gaussian runs at δ = 1e-5 each leave no δ slack: advanced falls back to basic (KOV Thm 3.5 with δ̃ = 0)
    assert _metric(at, "ε · advanced") == pytest.approx(20 * eps_g + 1.0, rel=5e-4)
    assert _metric(at, "ε · PLD") < _metric(at, "ε · zCDP") < _metric(at, "ε · basic")
    refusals = [df.value for df in at.dataframe if "reason" in df.value.columns]
    assert len(refusals) == 1 and len(refusals[0]) == 1

    # export → clear → import restores the same table
    exported = _ledger(at).to_json()
    table_before = _ledger(at).table()
    _click(at, "clear")
    assert len(_ledger(at).releases) == 0
    at.file_uploader(key="upload").set_value(("ledger.json", exported.encode(), "application/json")).run()
    assert not at.exception, at.exception
    assert any("Imported 3" in s.value for s in at.success)
    assert _ledger(at).table().equals(table_before)

    # a malformed import shows st.error and keeps the ledger
    bad = json.loads(exported)
    bad["releases"][0]["epsilon"] = -1
    at.file_uploader(key="upload").set_value(("bad.json", json.dumps(bad).encode(), "application/json")).run()
    assert not at.exception
    assert any("unchanged" in e.value and "epsilon" in e.value for e in at.error)
    assert _ledger(at).table().equals(table_before)
    at.file_uploader(key="upload").set_value(("junk.csv", b"\x00\xff garbage", "text/csv")).run()
    assert any("unchanged" in e.value for e in at.error)
    assert _ledger(at).table().equals(table_before)

    # a budget the page cannot hold exactly is refused, naming the field; it is never changed silently
    odd = json.loads(exported)
    odd["budget"]["epsilon"] = 3.7
    before = _ledger(at)
    at.file_uploader(key="upload").set_value(("odd.json", json.dumps(odd).encode(), "application/json")).run()
    assert not at.exception
    assert any("unchanged" in e.value and "budget.epsilon" in e.value and "3.7" in e.value for e in at.error)
    assert _ledger(at).epsilon == before.epsilon and _ledger(at).table().equals(table_before)


def test_ledger_page_renders_empty_and_budget_controls_change_numbers():
    at = open_page("ledger.py")
    assert not at.exception and not at.error
    assert len(at.metric) == 5
    # put one release in, then move the budget δ: the zCDP ε at the session δ changes
    at.session_state[KEY]["ledger"] = at.session_state[KEY]["ledger"].try_add(
        dpcore.ledger.pure_release(1.0, label="one", source="test")
    )
    at.run()
    before = _metric(at, "ε · zCDP")
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(chart["data"]) == 5  # one line per accountant, each from 0 to 1 release
    assert all(list(t["x"]) == [0, 1] for t in chart["data"])
    zcdp_line = next(t for t in chart["data"] if t["name"] == "zCDP")
    assert zcdp_line["y"][-1] == pytest.approx(before, rel=5e-4)
    assert chart["layout"]["shapes"][0]["y0"] == 10.0  # the session budget line
    at.select_slider(key="bdelta").set_value(1e-3).run()
    assert not at.exception
    assert _metric(at, "ε · zCDP") != before
    at.select_slider(key="beps").set_value(0.5).run()  # below what is spent: flagged, not silently changed
    assert any("over this budget" in e.value for e in at.error)
    assert any(m.label == "ε · filter · enforcing" for m in at.metric)
    at.radio(key="enforce").set_value("basic").run()
    assert not at.exception
    assert any(m.label == "ε · basic · enforcing" for m in at.metric)
    assert not any(m.label.startswith("ε · filter ·") for m in at.metric)


def test_an_import_with_a_huge_number_or_an_odd_version_says_so_in_our_words():
    """A 5,000-digit whole number gets the app's message (not Python's about its digit limit); a version written as
    true or 1.0 is not version 1. Nothing is imported either way."""
    at = open_page("ledger.py")
    good = json.loads(dpcore.ledger.Ledger().try_add(dpcore.ledger.pure_release(1.0, label="one")).to_json())
    texts = {
        "huge.json": json.dumps(good).replace('"compositions": 1', '"compositions": ' + "7" * 5000),
        "true.json": json.dumps({**good, "version": True}),
        "float.json": json.dumps({**good, "version": 1.0}),
    }
    assert '"compositions": 7777' in texts["huge.json"]
    for name, text in texts.items():
        at.file_uploader(key="upload").set_value((name, text.encode(), "application/json")).run()
        assert not at.exception, at.exception
        errors = [e.value for e in at.error]
        assert errors and all("unchanged" in e for e in errors), (name, errors)
        assert not any("int_max_str_digits" in e or "Exceeds the limit" in e for e in errors), errors
        assert len(_ledger(at).releases) == 0
    at.file_uploader(key="upload").set_value(("huge.json", texts["huge.json"].encode(), "application/json")).run()
    assert any("whole number with 5000 digits" in e.value for e in at.error)
    at.file_uploader(key="upload").set_value(("one.json", json.dumps(good).encode(), "application/json")).run()
    assert len(_ledger(at).releases) == 1, "the same file with version 1 and small numbers is imported"


# ---- the ledger is stored: a refresh, a second tab and a server restart show the same ledger ----------------------


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Every test of this module stores its ledgers in its own temporary data directory."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def _id(at) -> str:
    return at.session_state[KEY]["id"]


def test_refresh_second_tab_and_restart_show_the_same_ledger(data_dir):
    from app import ledger_store

    tab1 = open_page("baselines.py")
    assert not data_dir.exists()  # nothing is written before the first change
    _click(tab1, "ledger_add_baselines_0")
    ledger_id = _id(tab1)
    assert ledger_store.is_ledger_id(ledger_id) and tab1.query_params["ledger"] == ledger_id
    assert (data_dir / ledger_store.SQLITE_FILE).exists()
    first = _ledger(tab1)
    # a refresh or a second tab is a new session opened at the same address
    tab2 = open_page("svt.py", {"ledger": ledger_id})
    assert _ledger(tab2) == first
    _click(tab2, "ledger_add_svt_0")
    assert len(_ledger(tab2).releases) == 2
    tab1.run()  # the first tab's next run sees the second tab's release
    assert _ledger(tab1) == _ledger(tab2)
    # a server restart: a new process has no engine and no sessions, only the database
    ledger_store._store_for.cache_clear()
    tab3 = open_page("ledger.py", {"ledger": ledger_id})
    assert not tab3.exception and not tab3.error
    assert _ledger(tab3) == _ledger(tab2)
    releases = [df.value for df in tab3.dataframe if "label" in df.value.columns]
    assert len(releases) == 1 and len(releases[0]) == 2
    assert any(ledger_id in c.value for c in tab3.code)  # the private link is shown with its warning
    assert any("Anyone with this link" in m.value for m in tab3.markdown)
    # the budget is the ledger's: a change in one tab reaches the other's sliders
    tab3.select_slider(key="beps").set_value(20.0).run()
    assert _ledger(tab3).epsilon == 20.0
    tab4 = open_page("ledger.py", {"ledger": ledger_id, "beps": "5"})  # an old link's budget does not win
    assert _ledger(tab4).epsilon == 20.0 and tab4.select_slider(key="beps").value == 20.0


def test_unknown_ledger_link_starts_a_new_ledger(data_dir):
    from app import ledger_store

    at = open_page("ledger.py", {"ledger": ledger_store.new_id()})
    assert not at.exception
    assert any("does not exist here" in i.value for i in at.info)
    assert "ledger" not in at.query_params
    assert len(_ledger(at).releases) == 0


@pytest.mark.parametrize("broken", ["data directory is a file", "database down", "unknown database driver"])
def test_unusable_store_shows_a_banner_and_keeps_working(tmp_path, monkeypatch, broken):
    if broken == "database down":
        monkeypatch.setenv("DATABASE_URL", "postgresql://nobody:secret@127.0.0.1:9/none")  # nothing listens on 9
    elif broken == "unknown database driver":
        monkeypatch.setenv("DATABASE_URL", "nosuchdb://nobody:secret@127.0.0.1/none")
    else:
        monkeypatch.delenv("DATABASE_URL", raising=False)
        (tmp_path / "data").write_text("not a directory")
        monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path / "data"))
    at = open_page("baselines.py")
    _click(at, "ledger_add_baselines_0")  # accepted, in memory
    assert any("Added" in s.value for s in at.success)
    assert any("not being saved" in w.value for w in at.warning)
    assert len(_ledger(at).releases) == 1 and at.session_state[KEY]["id"] is None
    _click(at, "ledger_add_baselines_0")
    assert len(_ledger(at).releases) == 2
    at.switch_page("../pages/ledger.py")
    at.run()
    assert not at.exception
    banner = [w.value for w in at.warning if "not being saved" in w.value]
    assert len(banner) == 1 and "this browser tab only" in banner[0] and "cannot" in banner[0]
    assert "secret" not in banner[0]  # the database password never reaches the screen
    assert "ledger" not in at.query_params
    table = [df.value for df in at.dataframe if "label" in df.value.columns]
    assert len(table[0]) == 2


def test_table_labels_and_cells_write_maths_with_scripts():
    """What the ledger's tables show: a configured label ``ε_max`` and text cells with ``r^op`` or ``ε_i`` in
    Unicode scripts, like the column names; numbers and plain words untouched."""
    import pandas as pd
    import streamlit as st

    from app import typeset

    assert typeset._label_in_words(st.column_config.NumberColumn("ε_max"))["label"] == "εₘₐₓ"
    df = pd.DataFrame({"note": ["charged ε_i each", "plain words", None], "x": [1.5, 2.0, 3.0]})
    shown = typeset._cells_in_words(df)
    assert list(shown["note"][:2]) == ["charged εᵢ each", "plain words"] and pd.isna(shown["note"][2])
    assert shown["x"].equals(df["x"]) and list(df["note"][:1]) == ["charged ε_i each"]  # the caller's frame kept


def test_releases_table_says_dash_where_a_column_does_not_apply():
    """A column no release uses is left out; a cell that does not apply to its release reads "—", never "None"."""
    from dpcore import ledger_releases as lr

    at = open_page("ledger.py")
    book = dpcore.ledger.Ledger(100.0, 1e-5).try_add(lr.laplace_release(2.0, label="counts", source="baselines"))
    at.session_state[KEY] = {"ledger": book, "log": []}
    at.run()
    table = next(df.value for df in at.dataframe if "label" in df.value.columns)
    assert not [c for c in table.columns if "ₘₐₓ" in c]  # no noise reduction: no ε_max column
    assert table["scale"].tolist() == [2.0]
    book = book.try_add(lr.noise_reduction_release(0.5, epsilon_max=2.0, label="nr", source="noise_reduction"))
    at.session_state[KEY] = {"ledger": book, "log": []}
    at.run()
    grid = next(df for df in at.dataframe if "label" in df.value.columns)
    top = next(c for c in grid.value.columns if "ₘₐₓ" in c)
    shown = _texts(grid)
    assert shown[top].tolist() == ["—", "2"] and shown["scale"].tolist() == ["2", "—"]
    assert not shown.isna().any().any()
    assert grid.value["scale"].tolist()[0] == 2.0 and pd.isna(grid.value["scale"].tolist()[1])  # sorted as numbers


def test_the_accountants_notes_are_read_in_full():
    """How each accountant counts is written beside its name, in rows tall enough for the grid to wrap a long note
    (on one line it was cut off; on a phone the notes were past the screen's edge)."""
    from app.views import ledger as view

    at = open_page("ledger.py")
    grid = next(df for df in at.dataframe if "accountant" in df.value.columns)
    assert list(grid.proto.column_order)[:2] == ["accountant", "how it counts"]
    assert grid.proto.row_height == view.ROW_HEIGHT > 64  # the grid wraps text only in taller rows
    assert json.loads(grid.proto.columns)["how it counts"]["width"] == view.NOTE_WIDTH


def test_tables_write_delta_as_people_write_it():
    """δ in the releases table, the accountants' table and a refusal's reason reads 10⁻⁵, never 1e-05."""
    from dpcore import ledger_releases as lr

    book = dpcore.ledger.Ledger(100.0, 1e-4)
    book = book.try_add(lr.gaussian_release(5.0, delta=1e-5, label="mean", source="baselines"))
    book = book.try_add(lr.laplace_release(2.0, label="counts", source="baselines"))
    at = open_page("ledger.py")
    reason = "basic composition has δ = 1e-05 left; this release needs δ = 2e-05"
    at.session_state[KEY] = {
        "ledger": book,
        "log": [{"label": "big", "source": "baselines", "kind": "approx", "reason": reason}],
    }
    at.run()
    assert not at.exception
    releases = next(df for df in at.dataframe if "label" in df.value.columns)
    assert _texts(releases)["delta"].tolist() == ["10⁻⁵", "0"]
    assert releases.value["delta"].tolist() == [1e-5, 0.0]  # the cells keep their numbers: a click sorts by value
    config = json.loads(releases.proto.columns)["delta"]
    assert "format" not in config.get("type_config", {})  # the grid shows the texts only where no format is set
    accountants = next(df for df in at.dataframe if "accountant" in df.value.columns)
    assert all(isinstance(d, str) and "e" not in d for d in _texts(accountants)["δ"])
    assert accountants.value["δ"].dtype == float
    refusals = next(df.value for df in at.dataframe if "reason" in df.value.columns)
    assert refusals["reason"].tolist() == ["basic composition has δ = 10⁻⁵ left; this release needs δ = 2·10⁻⁵"]


def test_projected_tables_write_delta_as_people_write_it_too():
    """In presentation mode the tables are plain HTML tables: δ still reads 10⁻⁵, a missing cell "–"."""
    from dpcore import ledger_releases as lr

    book = dpcore.ledger.Ledger(100.0, 1e-4)
    book = book.try_add(lr.gaussian_release(5.0, delta=1e-5, label="mean", source="baselines"))
    book = book.try_add(lr.noise_reduction_release(0.5, epsilon_max=2.0, label="nr", source="noise_reduction"))
    at = open_page("ledger.py", {"present": "true"})
    at.session_state[KEY] = {"ledger": book, "log": []}
    at.run()
    assert not at.exception and not at.dataframe
    releases = next(_texts(t) for t in at.table if "label" in t.value.columns)
    assert releases["delta"].tolist() == ["10⁻⁵", "10⁻⁶"]
    top = next(c for c in releases.columns if "ₘₐₓ" in c)
    assert releases[top].tolist()[1] == "2" and releases[top].tolist()[0] in ("–", "—")
