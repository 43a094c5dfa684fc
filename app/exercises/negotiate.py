"""“Try this” exercises of the Negotiate a budget page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
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
)
