"""Sparse vector technique with exponential noise and the optimal threshold correction (paper 002, svt.md)."""

from __future__ import annotations

import streamlit as st

from app import ledger, params, ui
from app.compute import svt as csvt
from app.views import svt as views
from dpcore import ledger as dl

ui.header(
    "Sparse vector technique: exponential noise and the optimal threshold correction",
    "The **sparse vector technique (SVT)** answers a long stream of questions *“is this count above the "
    "threshold "
    "T?”* and pays privacy only for the **c** answers that come out ⊤ (yes): each count gets noise v, the "
    "threshold gets one noise ρ shared by all comparisons, and SVT stops after c ⊤'s. Liu et al. show that "
    "the "
    "query noise may be **exponential** (one-sided, half the variance of a Laplace of the same scale), and "
    "then "
    "raise the bar by a **correction r^op** chosen so that k negatives are rejected before a positive is "
    "accepted. "
    "Δ = 1 (item counts) throughout. Follow the panels from the noise to the run to the experiment.",
)

with st.sidebar:
    view = params.choice("view", "View", ("explore", "reproduce"), "explore", name="the view")
    st.header("Budget and stream")
    eps = params.epsilon()
    c = int(
        params.select_number(
            "c",
            "c — ⊤ answers before SVT halts",
            (1, 2, 3, 5, 10, 20, 50, 100),
            50,
            name="the cutoff c",
            help="The budget is shared among at most c positive answers.",
        )
    )
    k = int(
        params.select_number(
            "k",
            "k — negatives expected before each positive",
            (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
            200,
            name="k",
            help="Used to choose r^op (Eq. 8); the paper takes k = ⌊items/c⌋.",
        )
    )
    alpha = float(
        params.select_number(
            "alpha",
            "α — error tolerance",
            (0, 1, 2, 5, 10, 20, 50, 100, 200, 500),
            0,
            name="the tolerance α",
            help="Answers within α of T may go either way ((α, β)-accuracy, Def. 3).",
        )
    )
    threshold = float(
        params.select_number(
            "T",
            "T — threshold",
            params.log_grid(10.0, 10_000.0),
            200.0,
            name="the threshold T",
            help="Zipf and Binary data and the live run.",
        )
    )
    st.header("Mechanism")
    noise = params.choice("noise", "Query noise", csvt.NOISES, "exponential", name="the query noise")
    rule = params.choice(
        "corr",
        "Threshold correction r",
        csvt.RULES,
        "optimal",
        name="the correction",
        help="optimal: r^op of Eq. 9; mean: E[v] (removes the bias); none: r = 0.",
    )
    monotonic = params.toggle(
        "mono",
        "Monotonic queries (half the query noise)",
        help="Valid only if all answers move the same way between neighbours (item counts do).",
    )
    resample = params.toggle(
        "resample", "RESAMPLE: redraw ρ after each ⊤", help="Costs c·ε₁ + ε₂ instead of ε₁ + ε₂."
    )
    append = params.toggle(
        "append", "APPEND: re-ask ⊥ queries", help="⊥ answers are free, so re-asking costs nothing."
    )
    traverses = int(
        params.select_number(
            "trav",
            "t — traverses (with APPEND)",
            (1, 2, 3, 5, 10, 20),
            10,
            name="the number of traverses",
            help="How often a query may be compared.",
        )
    )
    st.header("Experiment")
    data = params.choice(
        "data",
        "Data set",
        tuple(csvt.DATASETS),
        "zipf",
        name="the data set",
        help="zipf and binary are the paper's; the others are generated stand-ins.",
    )
    metric = params.choice("metric", "Metric", ("ncr", "f1", "precision", "recall"), "ncr", name="the metric")
    n_runs = int(
        params.select_number("runs", "Runs per point", (10, 20, 50, 100, 200), 20, name="the number of runs")
    )
    n_bins = int(params.select_number("bins", "m — bins (numerical framework)", csvt.BIN_GRID, 101, name="m"))
    seed = params.seed()
    ui.share_hint()

try:  # one SVT run at the sidebar's settings: ε₁ + ε₂ (c·ε₁ + ε₂ with RESAMPLE), as the headline shows it
    _acct = csvt.accountant(eps, c, noise, monotonic)
    ledger.offer(dl.approx_release(_acct["on"] if resample else _acct["off"],
                                   0.0 if _acct["pure"] else _acct["delta"],
                                   label=f"SVT run c={c} ({noise})", source="svt"))
except Exception:  # noqa: BLE001 — the ledger offer never takes the page down
    pass  # the headline panel shows the error

views.render(
    views.Settings(
        eps,
        c,
        k,
        alpha,
        threshold,
        noise,
        rule,
        monotonic,
        resample,
        append,
        traverses,
        data,
        metric,
        n_runs,
        n_bins,
        seed,
    ),
    view,
)
