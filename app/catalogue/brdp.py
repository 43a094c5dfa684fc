"""Catalogue entries of the brdp page and lesson (see app/catalogue/__init__.py for what an entry holds)."""

from __future__ import annotations

from app.catalogue._core import Param, choice, log_grid, register

register(
    choice(
        "kernel",
        "noise kernel",
        "The noise BR-DP draws on each try: Gaussian (bell-shaped) or Laplace (peaked, heavier tails).",
        {"gaussian": "Gaussian", "laplace": "Laplace"},
        glossary="Gaussian mechanism",
        topic="brdp",
    ),
    choice(
        "acct",
        "accountant",
        "How the privacy loss of recycling is counted. Exact: the true δ of the whole mechanism, always sound. "
        "Paper: the paper's simpler model, which can report a δ far below the true one.",
        {"exact": "exact (sound)", "paper": "the paper's model"},
        glossary="hockey-stick divergence",
        topic="brdp",
    ),
    Param(
        "split",
        "",
        "choose the kernel's share myself",
        "Off: the optimiser splits ε between the noise kernel and the recycler. On: you set the kernel's share "
        "and the paper's rule (Alg. 1) picks how often to redraw.",
        False,
        kind="toggle",
        topic="brdp",
    ),
    Param(
        "share",
        "ε_y/ε",
        "kernel's share of the budget",
        "The part of ε spent on the noise itself; the rest pays for redrawing answers that miss. A smaller share "
        "means noisier draws but more of them may be redrawn.",
        1.0,
        tuple(round(0.05 * i, 2) for i in range(1, 21)),
        topic="brdp",
    ),
    Param(
        "dyov",
        "",
        "choose the kernel's δ_y myself",
        "Off: the noise kernel is calibrated at the same δ as the whole release, as in the paper's figures. On: "
        "you set the kernel's own δ_y (the paper's Alg. 1 takes it as a separate input).",
        False,
        kind="toggle",
        topic="brdp",
    ),
    Param(
        "dy",
        "δ_y",
        "kernel's failure probability",
        "The δ of the noise alone: the small chance with which the kernel's own e^(ε_y) promise may fail. A smaller "
        "δ_y means more noise on each draw; the whole release must still meet the overall δ.",
        1e-5,
        log_grid(1e-12, 0.1, (1.0, 2.0, 5.0)),
        glossary="δ (delta)",
        topic="brdp",
    ),
    Param(
        "qov",
        "",
        "set the redraw probability by hand",
        "On: you choose q yourself instead of the optimiser (the page then shows whether the result is still private).",
        False,
        kind="toggle",
        topic="brdp",
    ),
    Param(
        "q",
        "q",
        "redraw probability",
        "How often an answer that misses the target (error above θ) is thrown away and drawn again. q = 0 is "
        "plain DP; q = 1 always redraws, so every released answer is within ±θ.",
        0.5,
        tuple(round(0.01 * i, 2) for i in range(101)),
        topic="brdp",
    ),
    Param(
        "p",
        "p",
        "sampling rate",
        "The share of the records one subsampled release looks at. Looking at fewer records hides each person "
        "better (privacy amplification) but adds sampling error.",
        0.3,
        log_grid(0.01, 1.0),
        topic="brdp",
    ),
    choice(
        "query",
        "query",
        "What is asked of the records: their sum, their average, or how many satisfy a condition (a count).",
        {"sum": "sum", "average": "average", "count": "count"},
        default="count",
        topic="brdp",
    ),
    Param(
        "sigx",
        "σ_x",
        "spread of the records",
        "How much the individual records vary (their standard deviation). The sampling error of a subsampled sum "
        "or average grows in proportion to it.",
        10.0,
        log_grid(0.1, 100.0),
        topic="brdp",
    ),
    Param(
        "pc",
        "p_C",
        "share of records counted",
        "The share of records that meet the condition of a count. A subsampled count is least certain when half "
        "of the records meet it.",
        0.1,
        (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
        topic="brdp",
    ),
    Param(
        "n",
        "|X|",
        "number of records",
        "How many records the data set holds; the sampling error of a subsampled release depends on it.",
        1000.0,
        log_grid(100, 100_000, (1.0, 3.0)),
        topic="brdp",
    ),
)
