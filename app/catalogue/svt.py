"""Catalogue entries of the sparse-vector-technique page and lesson (see app/catalogue/__init__.py for an entry).

Liu, Wang, Liu, Li and Chen (2024) write k for the negatives expected before each positive, m for the bins of their
numerical framework and w for the budget split; those letters already mean other things elsewhere in the app, so
these entries carry them in their names ("the paper's k") rather than as symbols.
"""

from __future__ import annotations

from app.catalogue._core import Param, choice, int_log_grid, log_grid, register

#: Data sets of the paper's Table 2 (URL value → what the learner reads).
DATA_LABELS = {
    "zipf": "Zipf (the paper's)",
    "binary": "Binary (the paper's)",
    "t40": "T40I10D100K (imitation)",
    "bmspos": "BMS-POS (imitation)",
    "kosarak": "Kosarak (imitation)",
    "adult": "Adult (imitation)",
}

register(
    Param(
        "c",
        "c",
        "yes-answers before SVT stops",
        "SVT halts after c answers above the threshold; only those answers cost privacy, so the query-noise budget "
        "is shared among at most c of them. Larger c: more answers, more noise on each.",
        50,
        (1, 2, 3, 5, 10, 20, 50, 100),
        glossary="sparse vector technique",
        topic="svt",
    ),
    Param(
        "neg",
        "",
        "negatives before each positive (the paper's k)",
        "How many below-threshold queries SVT expects to meet before each query that is truly above it. The "
        "threshold correction is chosen to reject those k and still accept the next one; the paper takes k = number "
        "of items / c.",
        200,
        int_log_grid(1, 5000, (1.0, 2.0, 5.0)),
        topic="svt",
    ),
    Param(
        "alpha",
        "α",
        "error tolerance (counts)",
        "How far from the threshold a query may be and still be allowed to go either way: SVT is (α, β)-accurate "
        "when every answer more than α above (below) the threshold is reported as above (below), except with "
        "probability β. The same idea as the error tolerance θ of the other pages, in the SVT paper's own letter.",
        0.0,
        (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0),
        glossary="error tolerance",
        same_idea_as=("theta", "gamma"),
        topic="svt",
    ),
    Param(
        "thr",
        "τ",
        "threshold (counts)",
        "The public bar a count must pass to be reported: SVT answers yes when the noisy count reaches the noisy "
        "threshold τ + ρ + r.",
        200.0,
        log_grid(10.0, 10_000.0),
        topic="svt",
    ),
    choice(
        "noise",
        "query noise",
        "The noise added to each count. Exponential noise is one-sided (only upwards) and has half the variance of a "
        "Laplace noise of the same scale; Gaussian noise is not pure DP.",
        {"exponential": "Exponential", "laplace": "Laplace", "gumbel": "Gumbel", "gaussian": "Gaussian"},
        topic="svt",
    ),
    choice(
        "corr",
        "threshold correction r",
        "How much to raise the noisy threshold. Optimal: the r that maximises the chance of rejecting k negatives "
        "and then accepting a positive. Mean: the average query noise (removes its upward bias). None: r = 0.",
        {"optimal": "optimal", "mean": "mean of the noise", "none": "none"},
        topic="svt",
    ),
    Param(
        "mono",
        "",
        "monotonic queries",
        "On when every count can only move the same way between two neighbouring data sets (item counts do): the "
        "query noise may then be halved. On other queries this would break the privacy promise.",
        False,
        kind="toggle",
        topic="svt",
    ),
    Param(
        "resample",
        "",
        "new threshold noise after each yes",
        "Draw a fresh threshold noise ρ after every yes-answer instead of one for the whole run. It costs c·ε₁ + ε₂ "
        "instead of ε₁ + ε₂.",
        False,
        kind="toggle",
        topic="svt",
    ),
    Param(
        "append",
        "",
        "ask rejected queries again",
        "Put every query answered no back at the end of the queue, so it gets more chances. No-answers cost no "
        "privacy, so asking again is free; it only takes more time.",
        False,
        kind="toggle",
        topic="svt",
    ),
    Param(
        "trav",
        "",
        "passes over the queue",
        "With rejected queries asked again: how many times, at most, one query is compared with the threshold.",
        10,
        (1, 2, 3, 5, 10, 20),
        topic="svt",
    ),
    Param(
        "kmax",
        "kₘₐₓ",
        "most comparisons in one run",
        "Algorithm 2's kₘₐₓ: the run stops after this many comparisons with the threshold, even if it has not "
        "found c yes-answers. A small kₘₐₓ ends a run early (and can leave queries above the threshold unasked).",
        10_000,
        int_log_grid(10, 10_000, (1.0, 2.0, 5.0)),
        topic="svt",
    ),
    Param(
        "dataset",
        "",
        "data set",
        "The items whose counts SVT screens. Zipf and Binary are the paper's synthetic sets; the other four "
        "imitate the paper's real data sets (same number of records, items and threshold), which cannot be "
        "downloaded here.",
        "zipf",
        tuple(DATA_LABELS),
        kind="choice",
        labels=DATA_LABELS,
        topic="svt",
    ),
    choice(
        "metric",
        "quality measure",
        "How good a selection of c items is. Rank score (NCR): the share of the true top-c ranks it recovers. F1, "
        "precision and recall: against the items whose count passes the threshold.",
        {"ncr": "rank score (NCR)", "f1": "F1", "precision": "precision", "recall": "recall"},
        topic="svt",
    ),
    Param(
        "runs",
        "",
        "runs per point",
        "How many random queue orders each point of the experiment averages. More runs: narrower 95 % intervals, "
        "longer wait (the page says how long before it starts).",
        20,
        (10, 20, 50, 100, 200),
        topic="svt",
    ),
    Param(
        "bins",
        "",
        "bins per side of the numerical framework",
        "The paper's m: how finely the numerical framework cuts each noise before convolving them. More bins: a "
        "more exact correction, a little more time.",
        101,
        (11, 21, 51, 101, 201, 501, 1001, 2001, 5001, 10001, 20001),
        topic="svt",
    ),
    Param(
        "tail",
        "",
        "tail mass left outside the grid",
        "The numerical framework keeps the noise values in [−B, B] and leaves at most this probability outside. "
        "Smaller: a wider grid with coarser bins.",
        1e-8,
        (1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2),
        topic="svt",
    ),
    Param(
        "wsplit",
        "",
        "budget split ε₂/ε₁ (the paper's w)",
        "How the budget is shared between the threshold noise (ε₁) and the query noise (ε₂ = w·ε₁). The paper's "
        "split minimises the variance of the noisy comparison; try your own.",
        1.0,
        log_grid(0.1, 1000.0),
        topic="svt",
    ),
    Param(
        "gap",
        "d",
        "distance of a count from the threshold",
        "How far a query's true count is above the threshold (d = count − τ); the chart shades the chance that "
        "such a query is answered yes.",
        100.0,
        (0.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0),
        topic="svt",
    ),
    Param(
        "logp",
        "",
        "log scale for the success probability",
        "Shows the tails, where the paper's formula and the exact curve part.",
        False,
        kind="toggle",
        topic="svt",
    ),
)
