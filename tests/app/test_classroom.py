"""AppTest: the classroom strip (share link, glossary, presentation mode) on every page, and the "Try this" exercises.

Every number written in an exercise's answer is recomputed here independently (closed forms, quadrature,
root finding with scipy, dp_accounting), and for most exercises the page opened with the exercise's settings must
show the same number.
"""

from __future__ import annotations

import json
import math
import re
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pyarrow as pa
import pytest
from scipy import integrate, optimize, stats

from app import classroom, registry, sequences
from app.exercises import Exercise
from app.figures import screen
from app.notation import tex
from tests.app.conftest import open_boxes, open_page, read_number, shown_numbers

PAGES = registry.available_pages()
SCRIPT = {p.url_path: p.script for p in PAGES}
SCRIPT_PATH = {p.script: p.url_path for p in PAGES}
WITH_EPS = {"", "baselines", "brdp", "noise_reduction", "svt", "ldp", "r2dp"}  # pages with an ε slider


# ------------------------------------------------------------------------------------------ independent maths


def gauss_delta(eps: float, sigma: float, sens: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm. 8)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return float(stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b))


def analytic_sigma(eps: float, delta: float, sens: float = 1.0) -> float:
    """Smallest σ with δ(ε) ≤ δ, by root finding on the exact profile."""
    return optimize.brentq(lambda s: gauss_delta(eps, s, sens) - delta, 1e-3 * sens, 1e4 * sens, xtol=1e-12)


def gauss_eps_for_delta(delta: float, sigma: float, sens: float = 1.0) -> float:
    return optimize.brentq(lambda e: gauss_delta(e, sigma, sens) - delta, 0.0, 500.0, xtol=1e-12)


def laplace_composed_epsilon(eps: float, delta: float, t: int) -> float:
    """ε at δ of T Laplace(1/ε′) releases, ε′ = ε − 2 ln(1 − δ), straight from dp_accounting's PLD."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    scale = 1.0 / (eps - 2 * math.log1p(-delta))
    one = pld.from_laplace_mechanism(scale, sensitivity=1.0, value_discretization_interval=1e-4)
    return float(one.self_compose(t).get_epsilon_for_delta(delta))


def brdp_hockey_stick(eps: float, sigma: float, theta: float, q: float, shift: float) -> float:
    """∫ (p₀ − e^ε p_d)₊ for the BR-DP output densities (Gaussian kernel, recycle outside ±θ w.p. q) by quadrature."""
    p_in = stats.norm.cdf(theta / sigma) - stats.norm.cdf(-theta / sigma)
    z = 1 - (1 - p_in) * q

    def pdf(x: float, c: float) -> float:
        k = stats.norm.pdf(x - c, scale=sigma)
        return k / z if abs(x - c) <= theta else (1 - q) * k / z

    def f(x: float) -> float:
        return max(0.0, pdf(x, 0.0) - math.exp(eps) * pdf(x, shift))

    edges = [-40 * sigma, *sorted({-theta, theta, shift - theta, shift + theta}), 40 * sigma + shift]
    return sum(
        integrate.quad(f, a, b, limit=200, epsabs=1e-15, epsrel=1e-10)[0]
        for a, b in zip(edges, edges[1:], strict=False)
    )


def brdp_exact_delta(eps: float, sigma: float, theta: float, q: float, sens: float) -> float:
    """sup over neighbour shifts d ∈ (0, Δ] of the hockey-stick divergence (grid of 20 shifts)."""
    return max(brdp_hockey_stick(eps, sigma, theta, q, d) for d in np.linspace(sens / 20, sens, 20))


def svt_r_op(b: float, theta: float, k: int) -> float:
    """α = 0 optimum of Eq. 8: Pr[v − ρ > r] = 1/(k + 1), v ~ Exp(θ), ρ ~ Lap(b), by quadrature + root finding."""

    def survival(r: float) -> float:
        # P(v > r + ρ), r ≥ 0: ρ < −r always passes; otherwise e^(−(r+ρ)/θ), integrated against the Laplace density
        # on [−r, 0] and [0, ∞) in closed form (θ ≠ b)
        a, c = 1 / b - 1 / theta, 1 / b + 1 / theta
        head = 0.5 * math.exp(-r / b)
        left = math.exp(-r / theta) / (2 * b) * -math.expm1(-r * a) / a
        right = math.exp(-r / theta) / (2 * b) / c
        return head + left + right

    # cross-check the closed form once against quadrature at a moderate r
    r0 = theta
    quad = (
        stats.laplace.cdf(-r0, scale=b)
        + integrate.quad(lambda t: stats.laplace.pdf(t, scale=b) * math.exp(-(r0 + t) / theta), -r0, 0)[0]
        + integrate.quad(lambda t: stats.laplace.pdf(t, scale=b) * math.exp(-(r0 + t) / theta), 0, np.inf)[0]
    )
    assert math.isclose(survival(r0), quad, rel_tol=1e-8)
    return optimize.brentq(lambda r: survival(r) - 1 / (k + 1), 0.0, 100 * (b + theta), xtol=1e-10)


def svt_scales(eps: float, c: int) -> tuple[float, float]:
    """Threshold scale b and query scale θ of the page's calibration (split from dpcore; the optimum is ours)."""
    from dpcore import svt

    sp = svt.split_budget(eps, c=c, noise="exponential")
    return sp.threshold_scale, sp.query_scale


def _brdp_b() -> tuple[float, float]:
    from dpcore import brdp

    eps, delta, sens, theta = 5.0, 1e-8, 0.2, 3.0
    sigma = analytic_sigma(0.3 * eps, delta, sens)
    q = brdp.paper_q(epsilon=eps, delta=delta, epsilon_y=0.3 * eps, sensitivity=sens, theta=theta, kernel="gaussian")
    exact = brdp_exact_delta(eps, sigma, theta, q, sens)
    return exact, exact / delta


def _brdp_a() -> tuple[float, float]:
    from dpcore import brdp

    eps, delta, sens, theta = 0.1, 1e-3, 5.0, 0.1
    sigma = analytic_sigma(0.6 * eps, delta, sens)
    q = brdp.paper_q(epsilon=eps, delta=delta, epsilon_y=0.6 * eps, sensitivity=sens, theta=theta, kernel="gaussian")
    assert q == 1.0
    exact = brdp_hockey_stick(eps, sigma, theta, q, sens)  # disjoint supports: the whole mass
    w = stats.norm.cdf(theta / sigma) - stats.norm.cdf(-theta / sigma)  # eq. (7): in-bound for X, out for X'
    paper = (1 - w) * gauss_delta(eps, sigma, sens) + w * 1.0  # Prop. 2 with L = ∞: δ_Z(−∞) = 1
    return exact, paper


def _brdp_sound() -> tuple[float, float]:
    from dpcore import brdp

    sigma = analytic_sigma(1.0, 1e-5)
    p = 2 * stats.norm.cdf(1.0 / sigma) - 1
    plan = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="exact")
    assert math.isclose(plan.epsilon_y, 1.0)
    # the optimiser's q must really be (1, 1e-5)-DP: check with our own quadrature
    assert brdp_exact_delta(1.0, sigma, 1.0, plan.q, 1.0) <= 1e-5 * (1 + 1e-4)
    return p, p / (1 - (1 - p) * plan.q)  # eq. (9)


def _rr_example1() -> tuple[float, float]:
    eps, n = 0.7, 3
    keep = math.exp(eps) / (1 + math.exp(eps))
    answers = [1] * n + [0] * n
    lik = [math.prod(keep if a == x else 1 - keep for a in answers) for x in (0, 1)]
    return abs(math.log(lik[0]) - math.log(lik[1])), 2 * n * eps


def _rho(eps: float, delta: float, c: float) -> float:
    """Largest ρ with ρ + 2√(c ρ ln(1/δ)) ≤ ε (c = 1 corrected, 2 as printed), by root finding."""
    return optimize.brentq(lambda r: r + 2 * math.sqrt(c * r * math.log(1 / delta)) - eps, 0.0, eps, xtol=1e-14)


def _odds(prior: float, eps: float) -> float:
    odds = prior / (1 - prior) * math.exp(eps)
    return 100 * odds / (1 + odds)


CHECKS = {
    "home-eps1": lambda: (_odds(0.5, 1.0),),
    "home-eps01": lambda: (math.exp(0.1), _odds(0.5, 0.1)),
    "home-eps5": lambda: (_odds(0.5, 5.0), _odds(0.01, 5.0)),
    "base-sigma": lambda: (analytic_sigma(0.5, 1e-5, 2.0), 2.0 / (0.5 - 2 * math.log1p(-1e-5))),
    "base-classic": lambda: (
        math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5,
        analytic_sigma(0.5, 1e-5),
        math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5 / analytic_sigma(0.5, 1e-5),
    ),
    "base-compose": lambda: (
        gauss_eps_for_delta(1e-5, analytic_sigma(1.0, 1e-5) / math.sqrt(100)),  # T Gaussians = one with σ/√T
        laplace_composed_epsilon(1.0, 1e-5, 100),
        100 * 1.0,
    ),
    "base-accuracy": lambda: tuple(
        v
        for e in (0.5, 2.0)
        for v in (1 - math.exp(-(e - 2 * math.log1p(-1e-5))), math.erf(1 / (analytic_sigma(e, 1e-5) * math.sqrt(2))))
    ),
    "brdp-counterexample-b": _brdp_b,
    "brdp-counterexample-a": _brdp_a,
    "brdp-sound": _brdp_sound,
    "nr-rho": lambda: (_rho(10.0, 1e-6, 1),),
    "nr-printed": lambda: (_rho(10.0, 1e-6, 2), 100 * (1 - _rho(10.0, 1e-6, 2) / _rho(10.0, 1e-6, 1))),
    "svt-c": lambda: (svt_r_op(*svt_scales(1.0, 1), 200), svt_r_op(*svt_scales(1.0, 50), 200)),
    "svt-eps": lambda: (svt_r_op(*svt_scales(0.1, 50), 200),),
    "svt-at-threshold": lambda: (1 / 201,),
    "ldp-filter": lambda: (math.floor(4.0 / 1.0),),
    "ldp-example1": _rr_example1,
    "ldp-bound": lambda: (25 * 1.0,),
    "r2dp-threshold": lambda: (2 / (1 - 0.1 / 1.0), 1 - math.exp(-0.1 * 2.0), 1 - math.exp(-0.1 * 2.5)),
    "r2dp-laplace": lambda: (1 - math.exp(-0.1 * 5.0),),
    "neg-laplace": lambda: (
        optimize.brentq(
            lambda e: stats.laplace.cdf(1, scale=1 / e) - stats.laplace.cdf(-1, scale=1 / e) - 0.95,
            0.1,
            20.0,
            xtol=1e-12,
        ),
    ),
    "neg-meaning": lambda: (math.exp(7.0), _odds(0.01, 7.0)),
    # the poll: p = e/(1 + e) by hand, Warner's estimate solved for the true share with scipy's root finder
    "poll-estimate": lambda: (
        math.e / (1 + math.e),
        1 / (1 + math.e),
        (math.e - 1) / (math.e + 1),
        100 * optimize.brentq(lambda s: 1 / (1 + math.e) + (math.e - 1) / (math.e + 1) * s - 0.6, 0.0, 1.0, xtol=1e-14),
    ),
    "poll-epsilon": lambda: (
        (math.e**2 - 1) / (math.e**2 + 1),
        (math.exp(0.5) - 1) / (math.exp(0.5) + 1),
        ((math.e**2 - 1) / (math.e**2 + 1)) / ((math.exp(0.5) - 1) / (math.exp(0.5) + 1)),
    ),
}

#: Independently computed values the page numbers must also agree with (the SVT correction at ε = 1, c = 1).
REFERENCE = {"svt-c": (None, 564.4856), "svt-eps": (5644.8557,)}

#: What the page shows when opened with the exercise's settings: metric label → text in the answer.
SHOWN = {
    "base-sigma": {"Gaussian noise scale σ": "14.06", "Laplace noise scale b": "4"},
    "base-classic": {"Gaussian noise scale σ": "9.69"},
    "base-compose": {
        "Gaussian: total ε after T = 100 releases": "14.43",
        "Laplace: total ε after T = 100 releases": "68.26",
    },
    "base-accuracy": {
        "Laplace: chance of landing within ±θ": "0.3935",
        "Gaussian: chance of landing within ±θ": "0.1131",
    },
    "brdp-counterexample-b": {"δ at ε = 5 — exact": "7.53·10⁻⁶", "δ at ε = 5 — paper's accountant": "10⁻⁸"},
    "brdp-counterexample-a": {"δ at ε = 0.1 — exact": "1", "δ at ε = 0.1 — paper's accountant": "6.7·10⁻⁴"},
    "brdp-sound": {"BR-DP: chance within ±θ": "0.3957", "plain DP: chance within ±θ": "0.2113"},
    "nr-rho": {"zCDP budget ρ*": "1.35301"},
    "nr-printed": {"zCDP budget ρ*": "0.770693"},
    "svt-c": {"correction r in use": "20.78"},
    "svt-eps": {"correction r in use": "5645"},
    "svt-at-threshold": {"P[yes] at τ": "0.004975"},
    "ldp-filter": {"Answered under basic composition": "4 of 25"},
    "ldp-bound": {"LDP bound Σε of the 25 answers (ℓ)": "25.0000"},
    "ldp-example1": {"ℓ of the balanced pattern": "0.0000", "Basic composition 2nε": "4.2000"},
    "r2dp-threshold": {"Laplace U(γ) at ε": "0.2212"},
    "r2dp-laplace": {"Laplace U(γ) at ε": "0.3935"},
    "neg-meaning": {"Largest posterior from a 1 % prior": "91.7 %"},
}

#: Answered in words; their claims are checked on the page by the tests at the end of this file.
QUALITATIVE = {"nr-expost", "ledger-accountants", "ledger-filter", "audit-laplace", "audit-brdp"}

ALL = [(page.url_path, ex) for page in registry.PAGES for ex in page.exercises]
ALL_LIVE = [(path, ex) for path, ex in ALL if path in SCRIPT]  # exercises of pages whose script exists


def _tolerance(text: str) -> float:
    """Half a unit in the last digit shown: '14.06' → 0.005, '7.53·10⁻⁶' → 0.005·10⁻⁶, '10⁻⁸' → 0.5·10⁻⁸,
    '753' → 0.5."""
    powered = any(c in "⁰¹²³⁴⁵⁶⁷⁸⁹" for c in text)
    mantissa = text.partition("·")[0] if "·" in text else "1" if powered else text
    decimals = len(mantissa.partition(".")[2])
    scale = abs(read_number(text) / float(mantissa)) if powered else 1.0
    return 0.5 * 10.0 ** (-decimals) * scale * (1 + 1e-9)


def _first_metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


# ------------------------------------------------------------------------------------------------- glossary


def test_glossary_has_the_recurring_terms_in_plain_sentences():
    wanted = [
        "ε",
        "δ",
        "sensitivity",
        "composition",
        "privacy profile",
        "zCDP",
        "PLD",
        "ex-post",
        "privacy filter",
        "sparse vector",
        "realized privacy loss",
        "randomized response",
        "hockey-stick",
        "Laplace mechanism",
        "Gaussian mechanism",
        "usefulness",
    ]
    for word in wanted:
        assert any(word.lower() in term.lower() for term in classroom.GLOSSARY), word
    for term, text in classroom.GLOSSARY.items():
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
        assert 1 <= len(sentences) <= 3, (term, sentences)
        assert len(text) < 400, term
    for page in registry.PAGES:
        assert set(page.terms) <= set(classroom.GLOSSARY), page.url_path
        assert page.terms or page is registry.COURSE, page.url_path  # the course's chapters define their words


def test_glossary_formulas_are_right():
    # the two formulas the glossary states in words, checked numerically
    eps, delta = 1.0, 1e-5
    rr = classroom.GLOSSARY["randomized response"]
    assert "e^ε/(1 + e^ε)" in rr  # truthful with this probability: likelihood ratio (p/(1-p)) = e^ε exactly
    p = math.exp(eps) / (1 + math.exp(eps))
    assert math.isclose(p / (1 - p), math.exp(eps))
    z = classroom.GLOSSARY["zCDP"]
    assert "ρ + 2√(ρ ln(1/δ))" in z
    rho = 0.3
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) > rho  # stated conversion is the corrected constant
    assert "Δ/ε" in classroom.GLOSSARY["Laplace mechanism"]


# ----------------------------------------------------------------------------------------------- share link


def test_share_url_builds_full_links():
    su = classroom.share_url
    assert su("http://h:1/brdp", "brdp", {"eps": "2", "delta": "1e-05"}) == "http://h:1/brdp?eps=2&delta=1e-05"
    assert su("http://h:1", "brdp", {"eps": "2"}) == "http://h:1/brdp?eps=2"
    assert su("http://h:1/", "", {"eps": "2"}) == "http://h:1/?eps=2"
    assert su("http://h:1", "", {}) == "http://h:1/"
    assert su("http://h:1/app/svt", "svt", {}) == "http://h:1/app/svt"
    assert su(None, "svt", {"c": "5"}) == "/svt?c=5"
    assert su(None, "", {"eps": "2"}) == "/?eps=2"
    # anything odd in a value is percent-encoded, never passed through
    assert su(None, "svt", {"x": "<a b>&c=1"}) == "/svt?x=%3Ca%20b%3E%26c%3D1"


def test_lesson_links_start_at_the_app_root(monkeypatch):
    """A lesson link made on any page opens its first view's page under the app's own address (never
    ``/brdp/brdp``), and the public address replaces the server's when it is set."""
    monkeypatch.delenv(classroom.PUBLIC_URL_ENV, raising=False)
    assert classroom.app_root("http://h:1/brdp", "brdp") == "http://h:1"
    assert classroom.app_root("http://h:1/app/svt", "svt") == "http://h:1/app"
    assert classroom.app_root("http://h:1/", "") == "http://h:1"
    assert classroom.app_root(None, "svt") == ""
    lesson = sequences.LESSONS["brdp"]
    url = classroom.lesson_url(classroom.app_root("http://h:1/svt", "svt"), lesson)
    assert url.startswith("http://h:1/baselines?") and "seq=brdp" in url and "step=1" in url
    own = sequences.Lesson(
        sequences.encode([sequences.Step("", {"eps": "2"}, "")]), "Your lesson", (sequences.Step("", {"eps": "2"}, ""),)
    )
    assert classroom.lesson_url("http://h:1", own).startswith("http://h:1/?eps=2&seq=~")
    monkeypatch.setenv(classroom.PUBLIC_URL_ENV, "https://dp.example.edu/")
    assert classroom.app_root("http://127.0.0.1:8501/brdp", "brdp") == "https://dp.example.edu"


def test_my_lesson_offers_every_ready_made_lesson():
    at = open_page("svt.py")
    assert not any("Ready-made lessons" in m.value for m in at.markdown)  # drawn only when opened
    open_boxes(at, classroom.MY_LESSON_KEY)
    md = " ".join(m.value for m in at.markdown)
    assert "Ready-made lessons" in md
    for lesson in sequences.LESSONS.values():
        first = lesson.steps[0].page
        assert f'href="./{first}?' in md and lesson.title in md, lesson.title


def _share_code(at) -> str:
    codes = [c.value for c in at.code]
    assert len(codes) == 1, codes
    return codes[0]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.url_path or "home")
def test_every_page_has_the_strip(page):
    query = {"present": "true", **({"eps": "2"} if page.url_path in WITH_EPS else {})}
    at = open_page(page.script, query)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    labels = [p.proto.popover.label for p in at.get("popover")]
    assert "Share this view" in labels
    assert not at.code  # the share box is drawn when opened, with the values of that moment
    url = _share_code(open_boxes(at, classroom.SHARE_KEY))
    parts = urlsplit(url)
    assert parts.path == f"/{page.url_path}"
    shared = dict(parse_qsl(parts.query))
    assert shared.items() >= query.items()  # the link's values, plus every other control at its current value
    controls = {w.key: w.value for w in (*at.select_slider, *at.radio, *at.toggle, *at.number_input)}
    for key, value in shared.items():
        if key in controls and isinstance(controls[key], int | float) and not isinstance(controls[key], bool):
            assert math.isclose(float(value), float(controls[key])), key
    assert "My lesson" in labels
    # presentation mode leaves the glossary out; without it, the page's glossary popovers with their definitions
    assert [t for t in labels if t not in ("Share this view", "My lesson")] == []
    at = open_page(page.script, {k: v for k, v in query.items() if k != "present"})
    labels = [p.proto.popover.label for p in at.get("popover")]
    terms = page.terms
    assert [t for t in labels if t not in ("Share this view", "My lesson")] == list(terms)
    for term in terms:
        assert tex(classroom.GLOSSARY[term]) not in " ".join(m.value for m in at.markdown)  # until opened
    open_boxes(at, *map(classroom.term_key, terms))
    text = " ".join(m.value for m in at.markdown)
    for term in terms:
        assert tex(classroom.GLOSSARY[term]) in text
    assert at.toggle(key=classroom.PRESENT_KEY).value is False


#: Controls moved in a session (kind, key, value) on the baselines page and two paper pages.
MOVES = {
    "baselines.py": [
        ("select_slider", "eps", 2.0),
        ("select_slider", "delta", 1e-8),
        ("select_slider", "sens", 2.0),
        ("select_slider", "T", 100),
        ("radio", "calib", "classic"),
        ("number_input", "seed", 7),
    ],
    "svt.py": [
        ("select_slider", "eps", 0.5),
        ("select_slider", "c", 10),
        ("select_slider", "neg", 50),
        ("radio", "corr", "mean"),
        ("toggle", "mono", True),
    ],
    "noise_reduction.py": [
        ("select_slider", "eps", 5.0),
        ("select_slider", "delta", 1e-8),
        ("select_slider", "eta", 0.05),
        ("select_slider", "y", 100.0),
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("script", list(MOVES))
def test_the_share_link_restores_the_view_in_a_fresh_session(script):
    at = open_page(script)
    default = shown_numbers(at)
    for kind, key, value in MOVES[script]:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception
    moved = shown_numbers(at)
    assert moved != default
    url = _share_code(open_boxes(at, classroom.SHARE_KEY))
    assert urlsplit(url).path == f"/{SCRIPT_PATH[script]}"
    shared = dict(parse_qsl(urlsplit(url).query))
    controls = {w.key for w in (*at.select_slider, *at.radio, *at.toggle, *at.number_input)}
    assert {key for _, key, _ in MOVES[script]} <= set(shared) <= controls | {"tab", "part"}, shared  # every control
    fresh = open_page(script, shared)
    assert not fresh.exception and not fresh.error
    for kind, key, value in MOVES[script]:
        assert getattr(fresh, kind)(key=key).value == value, key
    assert shown_numbers(fresh) == moved


# --------------------------------------------------------------------------------------------- presentation


def _presentation_css(at) -> list[str]:
    return [
        h.proto.body
        for h in at.get("html")
        if h.proto.body == classroom.PRESENTATION_CSS.strip() or h.proto.body == classroom.PRESENTATION_CSS
    ]


def test_presentation_toggle_injects_the_stylesheet_and_keeps_the_page_working():
    at = open_page("baselines.py", {"eps": "2"})
    before = shown_numbers(at)
    assert not _presentation_css(at)
    at.toggle(key=classroom.PRESENT_KEY).set_value(True).run()
    assert not at.exception and not at.error
    assert _presentation_css(at) == [classroom.PRESENTATION_CSS.strip()] or _presentation_css(at) == [
        classroom.PRESENTATION_CSS
    ]
    assert shown_numbers(at) == before
    at.select_slider(key="eps").set_value(0.5).run()  # controls still work in presentation mode
    assert not at.exception and shown_numbers(at) != before and _presentation_css(at)
    at.toggle(key=classroom.PRESENT_KEY).set_value(False).run()
    assert not _presentation_css(at)


def _chart_font_sizes(at) -> list:
    return [(json.loads(c.proto.spec).get("layout", {}).get("font") or {}).get("size") for c in at.get("plotly_chart")]


@pytest.mark.parametrize(("script", "query"), [("r2dp.py", {}), ("svt.py", {"view": "reproduce"})])
def test_presentation_mode_enlarges_only_its_own_charts(script, query):
    """Pages whose figures are memoised share one figure object between sessions: a teacher's projector-size text
    must not reach a student's screen on the same server."""
    teacher = open_page(script, query | {"present": "true"})
    assert set(_chart_font_sizes(teacher)) == {screen.PRESENT_FONT}
    student = open_page(script, query)
    sizes = _chart_font_sizes(student)
    assert sizes and screen.PRESENT_FONT not in sizes


def test_presentation_css_is_a_fixed_stylesheet():
    css = classroom.PRESENTATION_CSS
    assert css.strip().startswith("<style>") and css.strip().endswith("</style>")
    assert "<script" not in css.lower() and "{" in css
    assert "font-size" in css and "stMain" in css


def test_bad_presentation_link_is_reported():
    at = open_page("baselines.py", {"present": "maybe"})
    assert not at.exception
    assert any("present=maybe" in e.value for e in at.error)
    assert not _presentation_css(at)


EDITOR = "split-editor"  # the negotiate page's list of statistics, edited in place


def test_presentation_draws_short_tables_as_plain_tables_with_the_same_numbers():
    """The data grid leaves cells blank under the presentation stylesheet's zoom: short tables become HTML tables
    (same rows, same numbers, link columns as the site they point to); long ones keep the grid."""
    at = open_page("negotiate.py", {"theta": "50"})
    grids = [d.value for d in at.dataframe if d.key != EDITOR]  # the split's editor is an input, not a table
    at = open_page("negotiate.py", {"theta": "50", "present": "true"})
    assert not at.exception and [d.key for d in at.dataframe] == [EDITOR] and len(at.table) == len(grids) >= 3
    for grid, table in zip(grids, at.table, strict=True):
        assert table.value.reset_index(drop=True).equals(grid.reset_index(drop=True))
    # what the reader sees (the table's display values): the smallest ε as the grid shows it, sites for links
    shown = [pa.ipc.open_stream(t.proto.arrow_data.styler.display_values).read_all().to_pandas() for t in at.table]
    mechanisms = next(t for t in shown if "smallest ε" in t.columns)
    laplace = mechanisms.set_index("mechanism").loc["Laplace", "smallest ε"]
    assert float(laplace) == pytest.approx(math.log(20) / 50, rel=1e-3)
    sources = next(t for t in shown if "source" in t.columns)
    assert "census.gov" in set(sources["source"]) and not sources["source"].str.contains("https://").any()


# ------------------------------------------------------------------------------------------------ exercises


def test_every_page_with_content_has_2_to_4_exercises():
    for page in (registry.HOME, registry.BASELINES, *registry.TOPICS):
        assert 2 <= len(page.exercises) <= 4, page.url_path
    for page in registry.PAGES:
        assert len({ex.id for ex in page.exercises}) == len(page.exercises)
    ids = [ex.id for _, ex in ALL]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.url_path or "home")
def test_exercises_render_with_link_answer_box_and_hidden_solution(page):
    """Each exercise: its question, a link with its settings, an answer box, and the worked solution only on
    request (or after the third wrong answer, tests/app/test_exercises.py)."""
    at = open_page(page.script)
    items = page.exercises
    text = " ".join(m.value for m in at.markdown)
    assert "Worked solution" not in text
    for i, ex in enumerate(items, 1):
        assert tex(ex.question) in text
        # a same-tab page link (st.page_link) carrying the exercise's settings, or a plain link without page objects
        queries = [
            dict(parse_qsl(p.proto.query_string))
            for p in at.get("page_link")
            if p.proto.label == "Open this page with these settings"
        ]
        if ex.settings:
            assert dict(ex.settings) in queries or f"]({ex.link(page.url_path)})" in text
        box = at.radio(key=classroom.answer_key(i)) if ex.check.options else at.text_input(key=classroom.answer_key(i))
        assert box.label == "Your answer" and box.value in (None, "")
    if items:
        assert any(h.value == "Try this" for h in at.header)
        at.button(key=f"{classroom.answer_key(1)}_ask").click().run()
        shown = [m.value for m in at.markdown if m.value.startswith("**Worked solution.**")]
        assert shown == [f"**Worked solution.** {tex(items[0].answer)}"]


#: Answers quoting an upper bound computed on a privacy-loss grid (above the exact value by at most 1e-4 relative).
PESSIMISTIC = {"base-compose"}


@pytest.mark.parametrize("path,ex", ALL, ids=lambda v: v.id if isinstance(v, Exercise) else None)
def test_numeric_answers_match_independent_computation(path, ex):
    if ex.id not in QUALITATIVE:
        assert ex.numbers and ex.id in CHECKS, f"no independent check for {ex.id}"
    values = CHECKS[ex.id]() if ex.id in CHECKS else ()
    assert len(values) == len(ex.numbers), ex.id
    for text, value in zip(ex.numbers, values, strict=True):
        assert re.search(rf"(?<![\d.]){re.escape(text)}(?![\d])", ex.answer), (ex.id, text)
        # a composed Laplace ε is a pessimistic upper bound (within 1e-4 relative of a fine grid): it may round up
        slack = 1e-4 * abs(value) if ex.id in PESSIMISTIC else 0.0
        assert abs(read_number(text) - value) <= _tolerance(text) + slack, (ex.id, text, value)
    for text, ref in zip(ex.numbers, REFERENCE.get(ex.id, ()), strict=False):
        if ref is not None:
            assert abs(read_number(text) - ref) <= _tolerance(text), (ex.id, text, ref)


@pytest.mark.slow
@pytest.mark.parametrize("path,ex", ALL_LIVE, ids=lambda v: v.id if isinstance(v, Exercise) else None)
def test_exercise_link_opens_the_page_with_those_settings(path, ex):
    assert ex.link(path).startswith(f"./{path}?")
    assert dict(parse_qsl(urlsplit(ex.link(path)).query)) == dict(ex.settings)
    at = open_page(SCRIPT[path], dict(ex.settings))
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert not [e for e in errors if e.startswith("The link set")], errors  # every setting is a valid link value
    assert path == "audit" or not errors, errors  # the audit reports a violation with st.error
    widgets = {w.key: w for w in (*at.select_slider, *at.radio, *at.toggle, *at.number_input)}
    for key, value in ex.settings.items():
        if key in widgets:
            shown = widgets[key].value
            if isinstance(shown, bool):
                assert str(shown).lower() == value, (key, shown)
            elif isinstance(shown, int | float):
                assert math.isclose(float(shown), float(value)), (key, shown, value)
            else:
                assert str(shown) == value, (key, shown)
    for label, text in SHOWN.get(ex.id, {}).items():
        assert _first_metric(at, label) == text, (ex.id, label)
        if ex.id != "brdp-counterexample-b" or "exact" in label:  # the page shows what the answer says
            shown = read_number(text.split(" ")[0])
            assert any(abs(shown - read_number(n)) <= _tolerance(n) for n in ex.numbers), (ex.id, label, text)


@pytest.mark.slow
def test_ldp_filter_answers_more_than_basic_composition():
    at = open_page("ldp.py", dict(next(ex for _, ex in ALL if ex.id == "ldp-filter").settings))
    bayes = int(_first_metric(at, "Answered by the Bayesian filter").split(" ")[0])
    basic = int(_first_metric(at, "Answered under basic composition").split(" ")[0])
    assert bayes > basic == 4
    realized = float(_first_metric(at, "Realized loss ℓ of the 25 answers"))
    assert realized < 25.0  # ldp-bound: far below Σε


@pytest.mark.slow
def test_noise_reduction_expost_is_below_the_worst_case():
    at = open_page("noise_reduction.py", dict(next(ex for _, ex in ALL if ex.id == "nr-expost").settings))
    median = float(_first_metric(at, tex("Typical cost of one count, ρ_T")))
    worst = float(_first_metric(at, tex("Cost if it never stopped, ρ_T")))
    assert math.isclose(worst, _rho(10.0, 1e-6, 1), rel_tol=1e-3)
    assert median < 0.2 * worst


@pytest.mark.slow
def test_audit_exercises_get_the_verdicts_they_state():
    verdicts = {}
    for ex in registry.page("audit").exercises:
        at = open_page("audit.py", dict(ex.settings))
        verdicts[ex.id] = _first_metric(at, "verdict")
        if ex.id == "audit-laplace":
            assert float(next(m.value for m in at.metric if m.label.startswith("ε lower bound"))) < 1.0
    assert verdicts == {"audit-laplace": "consistent", "audit-brdp": "VIOLATION"}


@pytest.mark.slow
def test_r2dp_gamma_beats_laplace_only_above_the_threshold():
    at2 = open_page("r2dp.py", {"part": "families", "eps": "2", "gamma": "0.1"})
    at25 = open_page("r2dp.py", {"part": "families", "eps": "2.5", "gamma": "0.1"})
    best2 = float(_first_metric(at2, "best gamma U(γ) (Alg. 1)"))
    best25 = float(_first_metric(at25, "best gamma U(γ) (Alg. 1)"))
    assert abs(best2 - (1 - math.exp(-0.2))) < 1e-4  # = Laplace below ε = 2.22
    assert best25 > (1 - math.exp(-0.25)) + 1e-4  # beats Laplace above it


def test_adding_a_view_to_my_lesson_keeps_its_note_and_empties_the_box():
    at = open_boxes(open_page("baselines.py", {"eps": "2"}), classroom.MY_LESSON_KEY)
    at.text_input(key="_dpx_say").input("Point at the taller peak").run()
    at.button(key="_dpx_add").click().run()
    mine = at.session_state[classroom.MY_LESSON]
    assert [(s.page, s.query.get("eps"), s.say) for s in mine] == [("baselines", "2", "Point at the taller peak")]
    assert at.text_input(key="_dpx_say").value == ""  # ready for the next view's note
    at.button(key="_dpx_add").click().run()
    assert [s.say for s in at.session_state[classroom.MY_LESSON]] == ["Point at the taller peak", ""]
