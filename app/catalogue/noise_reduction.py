"""Catalogue entries of the noise_reduction page and lesson (see app/catalogue/__init__.py for what an entry holds).

Accuracy-first noise reduction and privacy filters (Rogers, Samorodnitsky, Wu & Ramdas 2023). The relative-error
tolerance is η (the paper writes α, which the app keeps for SVT's absolute (α, β)-accuracy).
"""

from __future__ import annotations

from app.catalogue._core import Param, choice, int_log_grid, log_grid, register

T = "noise_reduction"

#: Figure 3 trials per sample size a request may run (a trial's cost: bench/results-where-time-goes.md).
FIG3_TRIALS = (20, 50, 100, 200, 500)

register(
    Param(
        "eta",
        "η",
        "relative-error tolerance",
        "How close to the truth a released count must be, as a share of the count: a noisy count ŷ of a true count y "
        "is accurate when |ŷ/y − 1| < η. Noise reduction stops as soon as its answer looks this accurate.",
        0.1,
        (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5),
        glossary="error tolerance",
        same_idea_as=("theta",),
        ends=("← more accurate", "rougher, cheaper →"),
        topic=T,
    ),
    Param(
        "y",
        "y",
        "true count",
        "The exact answer being released, for example how many people used a word. Large counts tolerate more noise "
        "at the same relative error, so they are cheaper to release.",
        1000.0,
        log_grid(1.0, 1e5),
        topic=T,
    ),
    Param(
        "K",
        "K",
        "number of noise levels",
        "How many steps the noise reduction may take from very noisy to the least noisy level it can afford. More "
        "levels: it can stop closer to the level it needs.",
        100,
        (2, 5, 10, 20, 50, 100, 200, 500, 1000),
        topic=T,
    ),
    choice(
        "spacing",
        "spacing of the noise levels",
        "Geometric: each level a fixed factor less noisy than the one before. Even in ε²: equal steps of the "
        "squared level, as in the paper's experiments (few steps where the noise is large).",
        {"geometric": "geometric", "linear": "even in ε² (the paper's)"},
        topic=T,
    ),
    choice(
        "process",
        "noise process",
        "Brownian noise reduction (normal noise, costs ε_T²/2 in zCDP at the level where it stops) or Laplace noise "
        "reduction (Laplace noise, costs ε_T in plain DP; it can only join a filter that adds up ε's).",
        {"brownian": "Brownian (normal noise)", "laplace": "Laplace"},
        glossary="ex-post privacy",
        topic=T,
    ),
    Param(
        "m",
        "M",
        "number of counts in the queue",
        "How many counts the analyst wants released under one budget, largest first (y, y/2^0.75, y/3^0.75, …).",
        20,
        (1, 2, 5, 10, 20, 50, 100, 200, 300),
        topic=T,
    ),
    choice(
        "const",
        "conversion constant of the filter",
        "How the filter turns its total budget (ε, δ) into a zCDP budget ρ*. The proof's: ε = ρ + 2√(ρ ln(1/δ)). "
        "As printed in the paper's Theorem 6: ε = ρ + 2√(2ρ ln(1/δ)), also safe but it wastes budget.",
        {"corrected": "the proof's (default)", "printed": "as printed"},
        glossary="privacy filter",
        topic=T,
    ),
    choice(
        "nb",
        "neighbour direction",
        "Whether the neighbouring data set has one count less (y − 1) or one more (y + 1). The privacy loss of the "
        "release against it flips its random part, not its average.",
        {"up": "neighbour has y − 1", "down": "neighbour has y + 1"},
        glossary="privacy loss",
        topic=T,
    ),
    Param(
        "lam",
        "λ",
        "exponent of the martingale",
        "How strongly the martingale M = exp(λ·noise − λ²/2·variance) reacts to the noise. Any λ keeps its average "
        "at 1; a large λ makes it swing wildly, so its sampled average wobbles more.",
        1.0,
        (0.25, 0.5, 1.0, 1.5, 2.0),
        topic=T,
    ),
    Param(
        "mix",
        "",
        "share of one-shot Gaussian releases",
        "In the simulated filter runs, the chance that the next request is an ordinary Gaussian release (the rest are "
        "noise reductions).",
        0.4,
        (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        topic=T,
    ),
    Param(
        "stop",
        "",
        "stopping aggressiveness",
        "Multiplies η inside the simulated filter runs: larger values accept rougher answers, stop earlier and leave "
        "budget for more requests.",
        1.0,
        (0.25, 0.5, 1.0, 2.0, 4.0),
        topic=T,
    ),
    Param(
        "epspost",
        "ε′",
        "budget of the ex-post filter",
        "The ε reserved for mechanisms whose cost is only known afterwards (Laplace noise reductions), next to the "
        "zCDP budget (ε, δ). Together the two filters promise (ε + ε′, δ).",
        1.0,
        log_grid(0.1, 20.0),
        glossary="ex-post privacy",
        topic=T,
    ),
    Param(
        "zipf",
        "",
        "Zipf exponent",
        "How steeply the counts fall from the most common item to the rarest: item k is drawn with probability "
        "proportional to k^(−a). The paper uses a = 0.75.",
        0.75,
        (0.5, 0.75, 1.0, 1.25, 1.5),
        topic=T,
    ),
    Param(
        "users",
        "",
        "Zipf sample size",
        "How many independent draws (one per user) make up the counts. The paper uses 8,000 to 128,000.",
        8000,
        (8000, 16000, 32000, 64000, 128000),
        topic=T,
    ),
    Param(
        "items",
        "",
        "number of items",
        "How many different items the draws are spread over (the paper's maximum value, 300).",
        300,
        int_log_grid(50, 3000),
        topic=T,
    ),
    Param(
        "fig3",
        "",
        "Figure 3 trials per sample size",
        "How many times the whole Zipf experiment is repeated at each sample size. The paper uses 1000; here at most "
        "500, so one request stays within about 40 seconds of computing.",
        100,
        FIG3_TRIALS,
        topic=T,
    ),
    Param(
        "eem",
        "ε_EM",
        "budget of each word's selection",
        "The privacy spent each time the experiment picks the next word to count (the exponential mechanism): a "
        "larger ε_EM picks the frequent words more reliably but leaves less budget for the counts themselves. The "
        "paper's Reddit experiment uses 0.01.",
        0.01,
        (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1),
        topic=T,
    ),
    Param(
        "emin",
        "ε_min",
        "smallest noise level",
        "The privacy level of the first, noisiest answer of each noise reduction (and doubling's first try). The "
        "paper prints 0.0001 for the Reddit experiment, which reads as ε_min = 0.0001 or, as in its synthetic "
        "experiment, as ε_min² = 0.0001, that is ε_min = 0.01.",
        1e-4,
        (1e-5, 1e-4, 1e-3, 0.01, 0.03),
        topic=T,
    ),
)
