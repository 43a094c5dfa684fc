"""“Try this” exercises of the Sparse vector technique page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "svt-c",
        "Keep ε = 1 and k = 200 (α = 0, optimal correction). Read the threshold correction r at c = 1, then at "
        "c = 50. How does r^op move with c?",
        {"eps": "1", "c": "1", "neg": "200", "alpha": "0", "corr": "optimal", "noise": "exponential",
         "mono": "false"},
        "r^op = **20.78** at c = 1 and **564.5** at c = 50. Each yes-answer gets ε₂/c, so the query noise scale "
        "1/λ grows with c and r^op grows with it (about 5–6 times 1/λ here): the threshold is raised so that 200 "
        "counts below it are rejected before one above it is accepted.",
        ("20.78", "564.5"),
    ),
    Exercise(
        "svt-eps",
        "At c = 50, k = 200, lower ε from 1 to 0.1. What happens to r^op?",
        {"eps": "0.1", "c": "50", "neg": "200", "alpha": "0", "corr": "optimal", "noise": "exponential",
         "mono": "false"},
        "It grows tenfold, from 564.5 to **5645**: all noise scales are ∝ Δ/ε, so r^op is too.",
        ("5645",),
    ),
    Exercise(
        "svt-at-threshold",
        "With r = r^op and α = 0, a count exactly at the threshold is reported as above it with what probability "
        "for k = 200? (The last number under the opening picture, or the Correction part.)",
        {"eps": "1", "c": "50", "neg": "200", "alpha": "0", "corr": "optimal", "part": "Correction"},
        "1/(k + 1) = **0.004975**, whatever the noise: r^op solves Pr[v − ρ > r] = 1/(k + 1) (Eq. 9 at "
        "α = 0). SVT with r^op buys a very low false-positive rate at the price of recall.",
        ("0.004975",),
    ),
)
