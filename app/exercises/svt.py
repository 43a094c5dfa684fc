"""“Try this” exercises of the Sparse vector technique page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "svt-c",
        "Keep ε = 1 and k = 200 (α = 0, optimal correction). Read the threshold correction r at c = 1, then at "
        "c = 50. What is r^op at c = 1?",
        {"eps": "1", "c": "1", "neg": "200", "alpha": "0", "corr": "optimal", "noise": "exponential", "mono": "false"},
        "r^op = **20.78** at c = 1 and **564.5** at c = 50. Each yes-answer gets ε₂/c, so the query noise scale "
        "1/λ grows with c and r^op grows with it (about 5–6 times 1/λ here): the threshold is raised so that 200 "
        "counts below it are rejected before one above it is accepted.",
        ("20.78", "564.5"),
        check=Check(
            "20.78",
            (
                "Open the settings and read the metric “correction r in use” (the optimal correction is chosen).",
                "At c = 1 the correction is a few times the query noise scale 1/λ shown beside it.",
            ),
        ),
    ),
    Exercise(
        "svt-eps",
        "At c = 50, k = 200, lower ε from 1 to 0.1. What is r^op now?",
        {
            "eps": "0.1",
            "c": "50",
            "neg": "200",
            "alpha": "0",
            "corr": "optimal",
            "noise": "exponential",
            "mono": "false",
        },
        "It grows tenfold, from 564.5 to **5645**: all noise scales are ∝ Δ/ε, so r^op is too.",
        ("5645",),
        check=Check(
            "5645",
            (
                "Read the metric “correction r in use” at ε = 0.1.",
                "Every noise scale is proportional to 1/ε: compare with r^op at ε = 1 (564.5) and scale it.",
            ),
        ),
    ),
    Exercise(
        "svt-at-threshold",
        "With r = r^op and α = 0, a count exactly at the threshold is reported as above it with what probability "
        "for k = 200? (The metric “P[yes] for a count at τ” under The paper in depth, or the Correction part.)",
        {"eps": "1", "c": "50", "neg": "200", "alpha": "0", "corr": "optimal", "part": "Correction"},
        "1/(k + 1) = **0.004975**, whatever the noise: r^op solves Pr[v − ρ > r] = 1/(k + 1) (Eq. 9 at "
        "α = 0). SVT with r^op buys a very low false-positive rate at the price of recall.",
        ("0.004975",),
        check=Check(
            "0.004975",
            (
                "Read the metric “P[yes] for a count at τ”.",
                "With the optimal correction and α = 0 it is 1/(k + 1), whatever the noise.",
            ),
            share=True,
        ),
    ),
)
