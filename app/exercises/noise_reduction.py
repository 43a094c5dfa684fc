"""“Try this” exercises of the Accuracy first: noise reduction page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
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
)
