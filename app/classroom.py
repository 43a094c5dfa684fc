"""Classroom features drawn around every page by app/main.py: a "share this view" link, glossary popovers, a
presentation mode (larger type, sidebar collapsed, wider charts) and a few "Try this" exercises per page.

Everything here is data (``GLOSSARY``, ``PAGE_TERMS``, ``EXERCISES`` keyed by the page's ``url_path``) plus two small
renderers; a page without content shows nothing. Numeric answers are written out as text and listed in
``Exercise.numbers`` so tests/app/test_classroom.py can recompute each one independently from ``dpcore``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import streamlit as st

from app import params

PRESENT_KEY = "present"  # URL key of the presentation toggle (?present=true)

#: Plain-language glossary: term → one or two sentences.
GLOSSARY: dict[str, str] = {
    "ε (epsilon)": "The privacy-loss budget. For any two data sets that differ in one person, every output is at "
    "most e^ε times as likely under one as under the other: smaller ε, stronger privacy, more noise.",
    "δ (delta)": "A small slack added to the e^ε promise: Pr[M(D) ∈ S] ≤ e^ε·Pr[M(D′) ∈ S] + δ for every set of "
    "outputs S. Keep it far below 1/(number of people).",
    "sensitivity Δ": "The most one person can change the true answer of the query (1 for a count). Noise is scaled "
    "to Δ/ε: double Δ and the noise doubles.",
    "Laplace mechanism": "Adds Laplace noise Lap(b), density e^(−|x|/b)/(2b), to the answer. With b = Δ/ε it is "
    "ε-DP with δ = 0 (pure DP).",
    "Gaussian mechanism": "Adds normal noise N(0, σ²) to the answer. A calibrated σ (analytic: Balle & Wang 2018; "
    "classic: Δ√(2 ln(1.25/δ))/ε, proven for ε < 1) makes it (ε, δ)-DP; it is never pure DP (δ > 0).",
    "composition": "Running several DP mechanisms on the same data adds up privacy loss. Basic composition sums the "
    "ε's and δ's; tighter accountants (advanced composition, zCDP, PLD) give totals that grow roughly like √T.",
    "privacy profile": "The whole curve δ(ε) of guarantees one mechanism meets: for each ε, the smallest δ for which "
    "it is (ε, δ)-DP. It equals the largest hockey-stick divergence between the outputs on neighbouring data sets.",
    "hockey-stick divergence": "H_{e^ε}(P‖Q) = sup over output sets S of P(S) − e^ε·Q(S). A mechanism is (ε, δ)-DP "
    "exactly when this is at most δ for the output laws P, Q of every pair of neighbouring data sets.",
    "privacy loss": "For an output y, the log-ratio ln(P(y)/Q(y)) of its probabilities under two neighbouring data "
    "sets. ε-DP says it never exceeds ε; (ε, δ)-DP roughly lets it exceed ε with probability about δ.",
    "PLD": "Privacy-loss distribution: the law of the privacy loss when y is drawn from the mechanism. Composing "
    "mechanisms convolves their PLDs, which gives the tight total δ(ε) (the dp_accounting library does this).",
    "zCDP": "Zero-concentrated DP with parameter ρ: the Rényi divergence of order α between neighbouring outputs is "
    "at most ρα. ρ's simply add under composition, and ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP.",
    "ex-post privacy": "The privacy loss actually paid for the outcome that happened, as opposed to the worst case "
    "declared in advance. A mechanism that stops as soon as its answer is accurate enough pays only the ex-post ε "
    "of the level where it stopped.",
    "privacy filter": "An accountant that refuses the next query if answering it could push the total privacy loss "
    "past a fixed budget, even when the analyst chooses queries and their budgets adaptively.",
    "sparse vector technique": "Compares a long stream of noisy query answers with a noisy threshold and pays "
    "privacy only for the (at most c) answers reported above the threshold, not for the many below it.",
    "local DP": "Each person randomises their own data before sending it, so nobody — not even the collector — "
    "sees a raw value. An ε-LDP answer is at most e^ε times likelier under any one input than under any other.",
    "randomized response": "Report your true answer with probability e^ε/(1 + e^ε) and the opposite one otherwise. "
    "It is the classic ε-local-DP mechanism for a yes/no question.",
    "realized privacy loss": "What one concrete transcript of answers reveals: ln of the largest over the smallest "
    "likelihood of those answers across all possible true values. It is often far below the worst-case sum of ε's.",
    "usefulness": "The probability that the released answer is within the tolerated error γ of the truth, "
    "U(γ) = P(|noise| ≤ γ) (the R²DP paper's accuracy measure); higher is better.",
}

#: Glossary terms shown on each page (url_path → terms, in the order shown).
PAGE_TERMS: dict[str, tuple[str, ...]] = {
    "": ("ε (epsilon)", "δ (delta)", "sensitivity Δ", "Laplace mechanism", "Gaussian mechanism"),
    "baselines": ("ε (epsilon)", "δ (delta)", "sensitivity Δ", "Laplace mechanism", "Gaussian mechanism",
                  "privacy profile", "composition", "PLD"),
    "brdp": ("ε (epsilon)", "δ (delta)", "privacy loss", "privacy profile", "hockey-stick divergence", "PLD",
             "composition"),
    "noise_reduction": ("ex-post privacy", "privacy filter", "zCDP", "privacy loss", "Laplace mechanism",
                        "Gaussian mechanism"),
    "svt": ("sparse vector technique", "ε (epsilon)", "sensitivity Δ", "Laplace mechanism", "composition"),
    "ldp": ("local DP", "randomized response", "realized privacy loss", "privacy filter", "composition"),
    "r2dp": ("Laplace mechanism", "usefulness", "ε (epsilon)", "sensitivity Δ", "privacy loss"),
    "negotiate": ("ε (epsilon)", "δ (delta)", "usefulness", "Laplace mechanism", "Gaussian mechanism"),
    "ledger": ("composition", "zCDP", "PLD", "privacy filter", "ex-post privacy"),
    "audit": ("privacy loss", "hockey-stick divergence", "ε (epsilon)", "δ (delta)"),
}


@dataclass(frozen=True)
class Exercise:
    """A "Try this" task: the settings a link opens, and an answer revealed on click.

    ``numbers`` lists, in order, every computed number exactly as written in ``answer``; the test recomputes each
    one from dpcore (keyed by ``id``) and checks it to the precision shown.
    """

    id: str
    question: str
    settings: Mapping[str, str]
    answer: str
    numbers: tuple[str, ...] = field(default=())

    def link(self, url_path: str) -> str:
        """Relative URL that opens ``url_path`` with this exercise's settings (``?eps=0.5&sens=2``)."""
        return f"./{url_path}?{_query(self.settings)}" if self.settings else f"./{url_path}"


EXERCISES: dict[str, tuple[Exercise, ...]] = {
    "": (
        Exercise(
            "home-eps1",
            "Set ε = 1. A sceptic gives 50 % to “Alice is in the data”. How far can a single ε-DP answer push "
            "her belief?",
            {"eps": "1"},
            "To at most **73.1 %**: her odds 1 : 1 can grow by at most e^1 ≈ 2.72, and 2.72 / (1 + 2.72) = 0.731.",
            ("73.1",),
        ),
        Exercise(
            "home-eps01",
            "Set ε = 0.1. What is the largest factor on the odds, and where can the 50 % sceptic end up?",
            {"eps": "0.1"},
            "The odds move by at most e^0.1 = **1.11×**, so her belief stays at or below **52.5 %**: a single "
            "answer barely tells her anything. That is what a small ε buys.",
            ("1.11", "52.5"),
        ),
        Exercise(
            "home-eps5",
            "Set ε = 5. Where can the 50 % sceptic end up now — and an observer who started at only 1 %?",
            {"eps": "5"},
            "At up to **99.3 %** and **60.0 %**: the odds can move by e^5 ≈ 148×. One answer at ε = 5 can "
            "almost reveal membership, which is why such an ε is a weak promise for a single release.",
            ("99.3", "60.0"),
        ),
    ),
    "baselines": (
        Exercise(
            "base-sigma",
            "Set ε = 0.5 and Δ = 2 (δ = 10⁻⁵, analytic calibration). How large is σ? And the Laplace scale b?",
            {"eps": "0.5", "delta": "1e-05", "sens": "2", "calib": "analytic"},
            "σ = **14.06** and b = **4** (= Δ/ε; δ shaves off only a hair). Halving ε or doubling Δ doubles "
            "both scales: noise is proportional to Δ/ε.",
            ("14.06", "4"),
        ),
        Exercise(
            "base-classic",
            "At ε = 0.5, δ = 10⁻⁵, Δ = 1 switch the Gaussian calibration from analytic to classic. How much "
            "noise does the textbook formula waste?",
            {"eps": "0.5", "delta": "1e-05", "sens": "1", "calib": "classic"},
            "Classic σ = Δ√(2 ln(1.25/δ))/ε = **9.69** against the analytic (tight) σ = **7.032**: about "
            "**1.38×** the noise for exactly the same (ε, δ) promise.",
            ("9.69", "7.032", "1.38"),
        ),
        Exercise(
            "base-compose",
            "Set ε = 1, δ = 10⁻⁵ and T = 100 releases. What total ε does each mechanism really spend, against "
            "the naive 100 × 1?",
            {"eps": "1", "delta": "1e-05", "T": "100"},
            "Gaussian: **14.43**, Laplace: **68.25** (both at δ = 10⁻⁵), far below the naive **100**. Exact "
            "accounting grows like √T; the Gaussian composes best.",
            ("14.43", "68.25", "100"),
        ),
        Exercise(
            "base-accuracy",
            "θ = 1, δ = 10⁻⁵: which mechanism is more often within ±1 of the truth at ε = 0.5 — and at ε = 2?",
            {"eps": "0.5", "delta": "1e-05", "sens": "1", "theta": "1"},
            "Laplace both times: at ε = 0.5 P(|noise| ≤ 1) is **0.3935** (Laplace) vs **0.1131** (Gaussian), "
            "at ε = 2 it is **0.8647** vs **0.3840**. At small ε and small δ Laplace is the more accurate choice.",
            ("0.3935", "0.1131", "0.8647", "0.3840"),
        ),
    ),
    "brdp": (
        Exercise(
            "brdp-counterexample-b",
            "Open the *Counterexample B* settings (ε = 5, δ = 10⁻⁸, θ = 3, Δ = 0.2, ε_y = 0.3 ε, q from the "
            "paper's Alg. 1). The paper's accountant says δ = 10⁻⁸. What is the exact δ?",
            {"eps": "5", "delta": "1e-08", "theta": "3", "sens": "0.2", "kernel": "gaussian", "acct": "paper",
             "split": "true", "share": "0.3", "qov": "false"},
            "The exact δ (hockey-stick divergence of the two output laws) is **7.53e-06**, about **753×** the "
            "target: the plan is not (5, 10⁻⁸)-DP although the paper's accountant approves it. The mixture model of "
            "Thm. 1 shifts the kernel's loss everywhere, while recycling really shifts it only where one output law "
            "is recycled and the other is not.",
            ("7.53e-06", "753"),
        ),
        Exercise(
            "brdp-counterexample-a",
            "Open *Counterexample A* (ε = 0.1, δ = 10⁻³, θ = 0.1, Δ = 5, ε_y = 0.6 ε). Alg. 1 picks q = 1: "
            "every draw outside ±θ is redrawn. Why is that a privacy disaster whatever the paper's δ says?",
            {"eps": "0.1", "delta": "0.001", "theta": "0.1", "sens": "5", "kernel": "gaussian", "acct": "paper",
             "split": "true", "share": "0.6", "qov": "false"},
            "With q = 1 the output always lies within ±θ of the true answer. Two neighbouring answers 5 apart give "
            "disjoint output ranges [−0.1, 0.1] and [4.9, 5.1], so one release tells them apart for sure: exact "
            "δ = **1**. The paper's accountant reports **0.00067**.",
            ("1", "0.00067"),
        ),
        Exercise(
            "brdp-sound",
            "With the sound defaults (ε = 1, δ = 10⁻⁵, θ = Δ = 1, exact accountant), how often does a plain "
            "Gaussian release land within ±θ, and how often a BR-DP release?",
            {"eps": "1", "delta": "1e-05", "theta": "1", "sens": "1", "kernel": "gaussian", "acct": "exact"},
            "Plain DP: **0.2113**; BR-DP with the exact optimum: **0.3957**, at the same exact (1, 10⁻⁵) "
            "guarantee. Recycling pays off when θ is small against the noise.",
            ("0.2113", "0.3957"),
        ),
    ),
    "noise_reduction": (
        Exercise(
            "nr-rho",
            "With ε = 10 and δ = 10⁻⁶, what zCDP budget ρ* does the privacy filter get?",
            {"eps": "10", "delta": "1e-06", "const": "corrected"},
            "ρ* = **1.35301**, the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε, i.e. ρ* = (√(ln(1/δ) + ε) − "
            "√ln(1/δ))². The filter may spend Σε²/2 ≤ ρ* over all releases.",
            ("1.35301",),
        ),
        Exercise(
            "nr-printed",
            "Switch the filter constant to *printed* (Thm. 6 as printed: ρ + 2√(2ρ ln(1/δ)) ≤ ε). How much "
            "budget is lost?",
            {"eps": "10", "delta": "1e-06", "const": "printed"},
            "ρ* drops to **0.770693** from 1.35301: the printed constant is still sound but throws away about "
            "**43 %** of the budget (erratum E1).",
            ("0.770693", "43"),
        ),
        Exercise(
            "nr-expost",
            "Ex-post vs declared: at the defaults (ε = 10, y = 100, α = 0.1), compare the median ex-post charge "
            "with the ex-ante worst case. What does the filter gain?",
            {"eps": "10", "delta": "1e-06", "alpha": "0.1", "y": "100", "noise": "brownian"},
            "The worst case is the whole budget ρ* (a release at the last, least noisy level), while the median run "
            "stops much earlier and is charged only the ex-post ρ_T = ε_T²/2 of its stopping level — a small "
            "fraction of ρ*. The unspent budget pays for more counts (compare *Counts returned*).",
        ),
    ),
    "svt": (
        Exercise(
            "svt-c",
            "Keep ε = 1 and k = 200 (α = 0, optimal correction). Read the correction r in use at c = 1, then at "
            "c = 50. How does r^op move with c?",
            {"eps": "1", "c": "1", "k": "200", "alpha": "0", "corr": "optimal", "noise": "exponential",
             "mono": "false"},
            "r^op = **20.78** at c = 1 and **564.5** at c = 50. Each ⊤ answer gets ε₂/c, so the query noise scale "
            "θ grows with c and r^op grows with it (about 5–6 θ here): the threshold is raised so that 200 "
            "negatives are rejected before a positive is accepted.",
            ("20.78", "564.5"),
        ),
        Exercise(
            "svt-eps",
            "At c = 50, k = 200, lower ε from 1 to 0.1. What happens to r^op?",
            {"eps": "0.1", "c": "50", "k": "200", "alpha": "0", "corr": "optimal", "noise": "exponential",
             "mono": "false"},
            "It grows tenfold, from 564.5 to **5645**: all noise scales are ∝ Δ/ε, so r^op is too.",
            ("5645",),
        ),
        Exercise(
            "svt-at-threshold",
            "With r = r^op and α = 0, a query exactly at the threshold is accepted with what probability for "
            "k = 200? (Explore view, panel on P[⊤].)",
            {"eps": "1", "c": "50", "k": "200", "alpha": "0", "corr": "optimal", "tab": "Correction"},
            "1/(k + 1) = **0.004975**, whatever the noise: r^op solves Pr[v − ρ > r] = 1/(k + 1) (Eq. 9 at "
            "α = 0). SVT with r^op buys a very low false-positive rate at the price of recall.",
            ("0.004975",),
        ),
    ),
    "ldp": (
        Exercise(
            "ldp-filter",
            "At the defaults (ε = 1 per query, budget ε_G = 4, 25 running-example queries) compare how many "
            "queries the Bayesian filter answers with basic composition.",
            {"eps": "1", "budget": "4", "k": "25", "query": "powers"},
            "Basic composition stops after ε_G/ε = **4** queries. The Bayesian filter looks at the *realized* "
            "loss of the answers actually given (and of every answer the next query could give) and answers many "
            "more — how many depends on the random answers: change the seed.",
            ("4",),
        ),
        Exercise(
            "ldp-example1",
            "Reproduce view, Example 1: six binary randomized-response answers at ε = 0.7, three 1's and three "
            "0's. What do they reveal, and what does basic composition charge?",
            {"view": "reproduce"},
            "Nothing: the likelihood of the balanced pattern is e^(3ε)/(1 + e^ε)^6 whether the secret is 0 or 1, "
            "so the realized loss is **0**, while basic composition charges 2nε = **4.2**. Six 1's would really "
            "cost 4.2.",
            ("0", "4.2"),
        ),
        Exercise(
            "ldp-bound",
            "Without a filter, all 25 queries are answered. Compare the realized loss of the 25 answers with the "
            "LDP bound Σε.",
            {"eps": "1", "budget": "4", "k": "25", "query": "powers"},
            "The LDP bound is Σε = **25**; the realized loss of the answers actually given is much smaller, "
            "because most answers are nearly as likely under every true value.",
            ("25",),
        ),
    ),
    "negotiate": (
        Exercise(
            "neg-laplace",
            "Requirement: error at most ±1 with probability 0.95, Δ = 1. Which ε does Laplace noise need? Derive it "
            "by hand and find the Laplace row of the table.",
            {"req": "error", "theta": "1", "conf": "0.95", "sens": "1"},
            "P(|Lap(b)| ≤ θ) = 1 − e^(−θ/b) ≥ 0.95 needs b ≤ θ/ln 20, i.e. ε = Δ·ln(20)/θ = **2.996**. The "
            "Gaussian needs more at this δ: its light tails only pay off for a generous δ.",
            ("2.996",),
        ),
        Exercise(
            "neg-meaning",
            "Set ε = 10 (panel 3). How far can one answer move an observer who suspects with 1 % that you are in "
            "the data?",
            {"eps": "10"},
            "The odds can grow by e^10 ≈ **22026**×, so 1 % can become at most **99.6 %**: an ε of 10 for a single "
            "release protects very little against a determined observer.",
            ("22026", "99.6"),
        ),
    ),
    "ledger": (
        Exercise(
            "ledger-accountants",
            "Set a session budget of ε = 1, δ = 10⁻⁵, then add a few releases from the paper pages (the *Add to the "
            "privacy ledger* button in their sidebars). Which accountant gives the smallest total, which the "
            "largest?",
            {"beps": "1", "bdelta": "1e-05"},
            "PLD is the tightest (it composes the exact privacy-loss distributions), basic composition the loosest "
            "(it adds the ε's). Advanced composition beats basic only with many small releases; zCDP lies in "
            "between.",
        ),
        Exercise(
            "ledger-filter",
            "Add a noise-reduction release from *Accuracy first* and switch the enforcing accountant between "
            "*filter* and *basic*. Why can the filter fit more?",
            {"beps": "1", "bdelta": "1e-05", "enforce": "filter"},
            "The filter charges a noise reduction only for the level where it stopped (ε_T²/2 in zCDP, ex-post), "
            "while basic composition must charge the declared maximum ε_max. Both stay valid when releases are "
            "chosen adaptively.",
        ),
    ),
    "audit": (
        Exercise(
            "audit-laplace",
            "Audit the Laplace mechanism at ε = 1. Does the audit find a violation? What does the ε lower bound "
            "tell you?",
            {"mech": "laplace", "eps": "1"},
            "No: the verdict is *consistent* and the ε lower bound stays below the claimed 1. An audit can only "
            "prove a mechanism is *not* private enough; passing is evidence, not proof.",
        ),
        Exercise(
            "audit-brdp",
            "Audit BR-DP calibrated by the paper's accountant at the counterexample (ε = 0.1, δ = 10⁻³, θ = 0.1, "
            "Δ = 5, ε_y = 0.6 ε). What does the audit find?",
            {"mech": "brdp_paper", "eps": "0.1", "delta": "0.001", "atheta": "0.1", "sens": "5", "ratio": "0.6"},
            "A VIOLATION: with q = 1 the outputs for the two neighbouring inputs never overlap, so the audit "
            "proves a δ far above the claimed 10⁻³ — the paper's accountant certified a mechanism that gives the "
            "secret away.",
        ),
    ),
    "r2dp": (
        Exercise(
            "r2dp-threshold",
            "Families view, γ = 0.1, Δ = 1: compare the best Gamma law with Laplace at ε = 2 and at ε = 2.5. "
            "From which ε on does R²DP (Gamma or Uniform) beat Laplace?",
            {"part": "families", "eps": "2.5", "gamma": "0.1", "sens": "1", "fam": "gamma"},
            "From ε = 2/(1 − γ/Δ) = **2.222** on. At ε = 2 the best Gamma law *is* Laplace (U = **0.1813**); "
            "at ε = 2.5 it beats Laplace's **0.2212**. Below the threshold only a non-local law (two-point) can "
            "help.",
            ("2.222", "0.1813", "0.2212"),
        ),
        Exercise(
            "r2dp-laplace",
            "At ε = 5, γ = 0.1, Δ = 1, what is the usefulness U(γ) = P(|noise| ≤ γ) of plain Laplace noise?",
            {"eps": "5", "gamma": "0.1", "sens": "1"},
            "1 − e^(−γε/Δ) = **0.3935**. Randomizing the scale (the global two-point optimum) does markedly better "
            "at the same exact ε — compare the headline metrics.",
            ("0.3935",),
        ),
    ),
}


def _query(values: Mapping[str, str]) -> str:
    return urlencode(dict(values), quote_via=quote, safe="")


def share_url(base: str | None, url_path: str, query: Mapping[str, str]) -> str:
    """The full URL of the current view: the page address (from ``st.context.url``) plus every query parameter.

    ``base`` may already end with the page's path (Streamlit adds it); without a base (no browser, e.g. in AppTest)
    the URL is relative to the app root.
    """
    root = (base or "").rstrip("/")
    if url_path and not root.endswith("/" + url_path):
        root = f"{root}/{url_path}"
    url = root if url_path else root + "/"  # the default page lives at the app root: /?eps=2
    return f"{url}?{_query(query)}" if query else url


#: Presentation mode: a fixed stylesheet (never user text). Larger type, full-width main area; the sidebar is
#: collapsed through st.set_page_config and its expand arrow stays visible so the controls remain one click away.
PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 1.5rem; padding-right: 1.5rem; }
[data-testid="stMain"] h1 { font-size: 3.6rem; line-height: 1.15; }
[data-testid="stMain"] h2 { font-size: 2.6rem; }
[data-testid="stMain"] h3 { font-size: 2.1rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 3rem; }
[data-testid="stMain"] [data-testid="stMetricLabel"] p { font-size: 1.25rem; }
[data-testid="stMain"] [data-testid="stPlotlyChart"] { width: 100%; }
[data-testid="stMain"] [data-testid="stPopover"] [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; }
</style>
"""


def current_query() -> dict[str, str]:
    """The query parameters of the current view: the URL the browser sent, corrected by every URL-bound widget's
    current value.

    The browser's query string can lag one change behind when a control moves while the page is still rerunning
    (seen in chromium: two quick slider moves left ``st.query_params`` at the first value), so each bound widget's
    value is re-serialised the way Streamlit writes it to the URL. Unlike the address bar, the link also names the
    controls left at their defaults, so it keeps its meaning if a default changes (the ledger's budget defaults to the
    session's). This reads Streamlit internals (1.67); should they change, the browser's query string is used.
    """
    query = st.query_params.to_dict()
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
        from streamlit.runtime.state.query_params import _coerce_value_for_query_url

        state = get_script_run_ctx().session_state._state
        widgets = state._new_widget_state
        for key, binding in list(state.query_params._bindings_by_param.items()):
            meta = widgets.widget_metadata.get(binding.widget_id)
            if meta is None or binding.widget_id not in widgets:
                continue
            url = _coerce_value_for_query_url(meta.serializer(widgets[binding.widget_id]), meta.value_type)
            if isinstance(url, list):
                if len(url) != 1:
                    continue
                url = url[0]
            query[key] = url
    except Exception:  # noqa: BLE001 — internals moved: the browser's query string is still a good link
        return st.query_params.to_dict()
    return query


def _share(popover: Any, url_path: str) -> None:
    url = share_url(st.context.url, url_path, current_query())
    with popover:
        st.markdown("This link restores every control on this page. Copy it with the button at its right:")
        st.code(url, language=None, wrap_lines=True)


def strip(url_path: str) -> None:
    """The slim strip above a page: share link, presentation toggle, a jump to the exercises, glossary popovers.

    Call it after the page ran (inside a container placed above the page) so every widget of the page exists and
    the share link carries its value. Presentation mode collapses the sidebar (its » arrow stays at the top left,
    so the controls are one click away) and injects the fixed ``PRESENTATION_CSS``.
    """
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    share = row.popover("Share this view", icon=":material/link:")
    present = params.toggle(
        PRESENT_KEY, "Presentation mode", help="Larger type and wider charts for a projector; the sidebar collapses "
        "(open it with the » arrow at the top left).", container=row,
    )
    _share(share, url_path)  # filled after the toggle exists, so the link carries it too
    with row:
        if EXERCISES.get(url_path):
            st.markdown("[:material/school: Try this ↓](#try-this)")
        for term in PAGE_TERMS.get(url_path, ()):
            with st.popover(term, type="tertiary"):
                st.markdown(f"**{term}** — {GLOSSARY[term]}")
    if present:
        st.set_page_config(initial_sidebar_state="collapsed")
        st.html(PRESENTATION_CSS)
    else:
        st.set_page_config(initial_sidebar_state="auto")


def exercises(url_path: str) -> None:
    """The page's "Try this" exercises: task, a link opening the page with its settings, the answer on click."""
    items = EXERCISES.get(url_path, ())
    if not items:
        return
    st.divider()
    st.header("Try this", anchor="try-this")
    for i, ex in enumerate(items, 1):
        with st.container(border=True):
            st.markdown(f"**{i}.** {ex.question}")
            if ex.settings:
                st.markdown(f"[:material/open_in_new: Open this page with these settings]({ex.link(url_path)})")
            with st.expander("Answer"):
                st.markdown(ex.answer)
