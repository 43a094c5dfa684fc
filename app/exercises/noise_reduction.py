"""“Try this” exercises of the Accuracy first: noise reduction page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "nr-rho",
        "With ε = 10 and δ = 10⁻⁶ (the paper's experiments), what zCDP budget ρ* does the privacy filter get?",
        {"eps": "10", "delta": "1e-06", "const": "corrected"},
        "ρ* = **1.35301**, the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε, i.e. ρ* = (√(ln(1/δ) + ε) − "
        "√ln(1/δ))². Every release that stops at level ε_T uses ε_T²/2 of it, so Σ ε_T² ≤ 2ρ* ≈ 2.706, the "
        "paper's “roughly 2.705”.",
        ("1.35301",),
        check=Check(
            "1.35301",
            (
                "Read the metric “zCDP budget ρ*” under The paper in depth.",
                "It is the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε; with ln(1/δ) ≈ 13.8 it lies between one and two.",
            ),
        ),
    ),
    Exercise(
        "nr-printed",
        "Switch the conversion constant to *as printed* (the paper's Theorem 6 prints ρ + 2√(2ρ ln(1/δ)) ≤ ε). How "
        "much of the budget is lost, in %?",
        {"eps": "10", "delta": "1e-06", "const": "printed"},
        "ρ* drops to **0.770693** from 1.35301: the printed constant is still safe but throws away about "
        "**43 %** of the budget. The theorem's proof gives the smaller constant, and the paper's own experiments "
        "use it.",
        ("0.770693", "43"),
        check=Check(
            "43 %",
            (
                "Read ρ* with the corrected constant, then with the printed one, and compare the two.",
                "The share lost is 1 − (printed ρ*)/(corrected ρ*); the printed ρ* is a bit more than half of the "
                "corrected one.",
            ),
        ),
    ),
    Exercise(
        "nr-expost",
        "Paid vs declared: at ε = 10, y = 100 and η = 0.1, compare the typical cost of one count with the cost if it "
        "never stopped. How does the typical cost compare?",
        {"eps": "10", "delta": "1e-06", "eta": "0.1", "y": "100", "process": "brownian"},
        "If it never stopped, a release would pay the whole budget ρ* (its least noisy level uses all of it). The "
        "typical run stops much earlier and is charged only ρ_T = ε_T²/2 of its stopping level, a small fraction "
        "of ρ*. The unspent budget pays for more counts (compare *Counts returned*).",
        check=Check(
            "far less than if it never stopped",
            (
                "Compare the two metrics “Typical cost of one count” and “Cost if it never stopped”.",
                "A release stops at the first level where it is accurate enough and pays only for that level.",
            ),
            options=("far less than if it never stopped", "about the same", "more, because it checks at every level"),
        ),
    ),
)
