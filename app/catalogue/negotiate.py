"""Catalogue entries of the negotiate page and lesson (see app/catalogue/__init__.py for what an entry holds).

The error bound is the shared θ (``theta``); the number of releases the shared T; ε, δ, Δ are shared too. The
relative error η (``eta``) is the noise-reduction page's entry (same meaning, one key); the BR-DP kernel is the BR-DP
page's entry when that page defines one.
"""

from __future__ import annotations

from app.catalogue._core import CATALOGUE, Param, choice, log_grid, register

register(
    choice(
        "req",
        "kind of requirement",
        "What 'accurate enough' means: an error bound ±θ, an error relative to the true value, or picking the queries "
        "above a threshold (top-c selection).",
        {
            "error": "error at most ±θ",
            "relative": "relative error at most η",
            "topc": "top-c selection (sparse vector)",
        },
        glossary="error tolerance",
        topic="negotiate",
    ),
    Param(
        "conf",
        "",
        "confidence",
        "How often the requirement must hold: 0.95 means in 95 of 100 releases the answer is accurate enough.",
        0.95,
        (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999),
        topic="negotiate",
        ends=("← more often wrong", "more often right →"),
    ),
    Param(
        "size",
        "|x|",
        "size of the true value",
        "The true value a relative error refers to: the same η is a looser bound ±η·|x| on a big count, so big "
        "counts need less budget.",
        100.0,
        log_grid(1.0, 1e5, (1.0, 2.0, 5.0)),
        topic="negotiate",
    ),
    Param(
        "below",
        "",
        "queries below the threshold before each one above",
        "How many queries below the threshold must all be rejected before the next one above it is accepted: more "
        "rejections to get right makes success harder.",
        50,
        (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
        glossary="sparse vector technique",
        topic="negotiate",
    ),
)

if "kernel" not in CATALOGUE:  # the BR-DP page may define it first: the same choice, one key
    register(
        choice(
            "kernel",
            "BR-DP kernel",
            "The noise that budget recycling draws (and redraws when an answer lands too far from the truth).",
            {"gaussian": "Gaussian", "laplace": "Laplace"},
            topic="negotiate",
        ),
    )
