"""AppTest of the "Negotiate a budget" page: the answer first, dpcore's numbers, every control matters, bad links,
the report, the ledger button."""

from __future__ import annotations

import math
import re

import pytest
from scipy import optimize, stats

import dpcore
from app.notation import tex
from dpcore import negotiate as ng
from dpcore import r2dp
from tests.app.conftest import open_page, shown_numbers

PAGE = "negotiate.py"


def _answer(at) -> str:
    texts = [h.proto.body for h in at.get("html") if h.proto.body.startswith('<p class="dpx-answer"')]
    assert len(texts) == 1, texts
    return texts[0]


_TABLES = ("eps-table", "acc-table", "deploy-table")  # in page order: all numbers, at the answer, deployments


def _table(at, key: str):
    return at.dataframe[_TABLES.index(key)].value.set_index("mechanism")


@pytest.fixture(scope="module")
def default_page():
    return open_page(PAGE)


def test_renders_at_defaults_without_error(default_page):
    at = default_page
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    # all numbers, accuracy at the answer's ε, deployments, the split's list and its table
    assert len(at.dataframe) == 5 and at.dataframe[3].key == "split-editor"
    assert at.get("plotly_chart") and len(at.get("plotly_chart")) == 2


def test_answer_comes_first_and_is_laplace_at_ln20(default_page):
    """±1 at 95 %, Δ = 1: Laplace needs ε = ln 20 = 2.996 exactly; stated rounded up to two digits: 3.0."""
    assert math.log(20) <= 3.0 < math.log(20) * 1.02
    assert (
        "Use Laplace noise with ε = 3.0, δ = 0: each count is within ±1 of the truth in 95 % of releases."
        in _answer(default_page)
    )


def test_the_answer_comes_before_the_settings_and_the_strip(default_page):
    """The title, the idea, the answer and its numbers form the page's lead, drawn before the phone's settings button
    and the classroom strip (on a phone they filled the first screen and pushed the answer to its foot). It comes
    first in the page itself, not only on screen, so a screen reader reads it and the keyboard reaches it first."""
    from app import ui

    blocks = list(default_page.main.children.values())
    at = next(
        i
        for i, b in enumerate(blocks)
        if getattr(b, "type", None) == "flex_container" and b.proto.id.endswith("-dpx-lead")
    )
    lead = blocks[at]
    shown = [getattr(e, "type", None) for e in lead.children.values()]
    assert shown[0] == "title" and "html" in shown and "flex_container" in shown  # the answer, its metrics
    assert any(getattr(e, "type", None) == "html" and "dpx-answer" in e.proto.body for e in lead.children.values())
    settings = next(
        i for i, b in enumerate(blocks) if getattr(b, "type", None) == "html" and "dpx-open-settings" in b.proto.body
    )
    strip = next(
        i
        for i, b in enumerate(blocks)
        if hasattr(b, "toggle") and any(t.label == "Presentation mode" for t in b.toggle)
    )
    assert at < settings < strip
    assert "order: -1" not in ui._BASE_CSS  # no reordering by style sheet: what is read first is what is seen first


def test_answer_sentence_at_theta_50():
    at = open_page(PAGE, {"theta": "50", "conf": "0.95", "sens": "1"})
    assert not at.exception and not at.error
    assert math.log(20) / 50 <= 0.060  # the stated ε still meets the requirement
    assert (
        "Use Laplace noise with ε = 0.060, δ = 0: each count is within ±50 of the truth in 95 % of releases."
        in _answer(at)
    )


def test_table_matches_independent_calls_for_pm1_at_95(default_page):
    t = _table(default_page, "eps-table")
    col = "smallest ε"
    assert float(t.loc["Laplace", col]) == pytest.approx(math.log(20), rel=1e-4)  # shown to 5 digits
    sigma = 1 / stats.norm.ppf(0.975)
    gauss = float(dpcore.gaussian_epsilon(1e-5, sigma=sigma))
    assert float(t.loc["Gaussian", col]) == pytest.approx(gauss, rel=1e-4)
    stair = optimize.brentq(lambda e: float(r2dp.staircase_usefulness(e, gamma=1.0)) - 0.95, 0.1, 20, xtol=1e-12)
    assert float(t.loc["Staircase", col]) == pytest.approx(stair, rel=1e-4)
    assert t.loc["SVT, exponential noise + optimal correction", col] == "n/a"


def test_panels_follow_the_answer_and_total_is_exact(default_page):
    at = default_page
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics[tex("Largest factor on an observer's odds, e^ε")]) == pytest.approx(math.exp(3.0), rel=1e-3)
    rev = _table(at, "acc-table")
    assert float(rev.loc["Laplace", "accuracy"].rstrip(" %")) == pytest.approx(100 * (1 - math.exp(-3.0)), abs=0.006)
    # 10 Laplace releases at ε = 3: the exact total at δ = 1e-5 is below the sum 30 (KOV 2015, Thm 3.3), and above
    # the tightest possible value for pure DP from the same theorem's first term
    total = float(metrics["total ε over T = 10, at δ = 10⁻⁵"])
    assert 25.0 < total <= 30.0


def test_the_total_states_its_delta_beside_the_plain_sum():
    """12 monthly releases at ε = 0.060 (δ = 0 each): the exact total at δ = 10⁻⁵ is quoted with that δ, beside the
    plain sum 12 × 0.060 = 0.72 with its own δ = 0 — on screen, not in a tooltip."""
    at = open_page(PAGE, {"theta": "50", "T": "12"})
    lines = [m.value for m in at.markdown if m.value.startswith("**Over 12 releases")]
    assert len(lines) == 1, lines
    m = re.fullmatch(r"\*\*Over 12 releases: ε = (0\.\d+) with δ = 10⁻⁵ \(0\.72 added up, with δ = 0\)\.\*\*", lines[0])
    assert m, lines[0]
    assert 0.5 < float(m.group(1)) < 0.72  # the exact total is below the sum
    assert 0.72 == pytest.approx(12 * 0.060)
    metrics = {x.label: x.value for x in at.metric}
    assert metrics["δ per release"] == "0" and metrics["total ε over T = 12, at δ = 10⁻⁵"] == m.group(1)


def test_a_tiny_delta_reads_negligible_on_screen():
    """BR-DP's exact δ at the defaults is about 10⁻⁵⁶: the page says "negligible", never the digits."""
    at = open_page(PAGE)
    shown = "\n".join(m.value for m in at.markdown) + "\n".join(
        " ".join(map(str, t.value.get("note", []))) for t in at.dataframe if "note" in t.value.columns
    )
    assert "negligible" in shown
    assert not re.search(r"δ[^=\n]{0,30}= [\d.·]*10⁻(1[6-9]|[2-9]\d)", shown), "a δ below 10⁻¹⁵ shown in digits"


def test_the_ledger_offer_says_per_release_and_releases():
    at = open_page(PAGE, {"theta": "50", "T": "12"})
    label = next(b.label for b in at.button if b.key.startswith("ledger_add_negotiate"))
    assert label.endswith("ε = 0.06 per release × 12 releases"), label


def test_every_alternative_has_its_reason_in_full(default_page):
    text = "\n".join(m.value for m in default_page.markdown)
    for label in ng.LABELS.values():
        if label != "Laplace":
            assert f"**{label}**" in text.replace("\\", ""), label
    assert "…" not in text


def test_ledger_button_adds_the_answer_or_says_why_not():
    at = open_page(PAGE, {"theta": "50"})  # 10 releases at ε = 0.06 fit the default session budget
    next(b for b in at.button if b.key.startswith("ledger_add_negotiate")).click().run()
    assert not at.exception
    assert any("Added" in s.value for s in at.success)
    at = open_page(PAGE)  # 10 releases at ε = 3 do not: refused, with the numbers
    next(b for b in at.button if b.key.startswith("ledger_add_negotiate")).click().run()
    assert any("Refused" in e.value and "left" in e.value for e in at.error)


def test_report_is_a_printable_page_with_the_answer():
    from app.compute import negotiate as compute
    from app.compute import negotiate_words as words
    from app.views.negotiate_report import Report, report_html

    req = compute.Requirement(theta=50.0)
    ans = compute.answer(req)
    comp = compute.composition(ans.mechanism, ans.epsilon, ans.delta, 1.0, 10, 1e-5)
    html = report_html(
        Report(
            req,
            ans,
            comp,
            (),
            ("Δ = 1.",),
            (),
            link="https://x.org/negotiate?theta=50&x=<script>",
            appendix=ans.reasons,
        )
    )
    assert ans.sentence in html and "@page" in html and "<script>" not in html
    assert "Over <b>10</b> releases" in html and words.total_words(comp) in html
    # maths in the appendix as HTML scripts, not as written in the code (BR-DP's note names its ε_y)
    tight = compute.Requirement(theta=2.0, delta=1e-3)
    html = report_html(Report(tight, compute.answer(tight), None, (), (), (), appendix=compute.answer(tight).reasons))
    assert "ε<sub>y</sub> = " in html and "ε_y" not in html


CONTROLS = [
    ({}, "select_slider", "theta", 2.0),
    ({}, "select_slider", "conf", 0.9),
    ({}, "select_slider", "sens", 2.0),
    ({}, "select_slider", "delta", 1e-3),
    ({}, "radio", "kernel", "laplace"),
    ({}, "select_slider", "T", 100),
    ({}, "radio", "req", "topc"),
    ({"req": "relative"}, "select_slider", "eta", 0.2),
    ({"req": "relative"}, "select_slider", "size", 50.0),
    ({"req": "relative"}, "number_input", "seed", 5),
    ({"req": "topc"}, "select_slider", "theta", 10.0),
    ({"req": "topc"}, "select_slider", "c", 2),
    ({"req": "topc"}, "select_slider", "below", 20),
]


@pytest.mark.slow
@pytest.mark.parametrize("query,kind,key,value", CONTROLS, ids=[f"{c[2]}-{c[0].get('req', 'error')}" for c in CONTROLS])
def test_each_control_changes_the_numbers(query, kind, key, value):
    at = open_page(PAGE, query)
    before = shown_numbers(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert shown_numbers(at) != before


@pytest.mark.parametrize(
    "query", [{"theta": "100", "delta": "0.01"}, {"theta": "10", "delta": "0.1"}, {"req": "relative", "delta": "0.1"}]
)
def test_links_that_used_to_crash_render(query):
    at = open_page(PAGE, query)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert _answer(at).count("Use ") == 1


@pytest.mark.parametrize(
    "query,needle",
    [
        ({"req": "foo"}, "req=foo"),
        ({"theta": "-1"}, "theta=-1"),
        ({"conf": "abc"}, "conf=abc"),
    ],
)
def test_hostile_links_show_a_message_and_the_page_works(query, needle):
    at = open_page(PAGE, query)
    assert not at.exception
    assert any(needle in e.value for e in at.error), [e.value for e in at.error]
    assert float(_table(at, "eps-table").loc["Laplace", "smallest ε"]) == pytest.approx(math.log(20), rel=1e-4)


@pytest.mark.slow
def test_paper_accountant_warning_where_it_underreports():
    # θ = 0.3 at 90 % with the Laplace kernel: the paper's BR-DP plan breaks its δ (exact δ ≈ 3× the target)
    at = open_page(PAGE, {"theta": "0.3", "conf": "0.9", "kernel": "laplace"})
    assert not at.exception and not at.error
    texts = [w.value for w in at.warning]
    assert any("under-reports" in w for w in texts), texts
    assert _table(at, "eps-table").loc["BR-DP (paper's accountant)", "privacy sound"].startswith("NO")


def test_the_report_link_never_carries_the_ledger_id(monkeypatch):
    """The report is forwarded to others: its link restores the requirement, never the reader's ledger (whoever has a
    ledger's id can add to it)."""
    from app import ledger_store
    from app.views import negotiate as view

    links = []
    real = view.reports.report_html
    monkeypatch.setattr(view.reports, "report_html", lambda r: links.append(r.link) or real(r))
    at = open_page(PAGE, {"theta": "50"})
    next(b for b in at.button if b.key.startswith("ledger_add_negotiate")).click().run()  # the ledger gets an id
    ledger_id = at.query_params.get("ledger")
    ledger_id = ledger_id[0] if isinstance(ledger_id, list) else ledger_id
    assert ledger_store.is_ledger_id(ledger_id)
    at.run()
    assert not at.exception and links
    assert "theta=50" in links[-1] and ledger_id not in links[-1] and "ledger=" not in links[-1]
