"""“Try this” exercises of the Negotiate a budget page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "neg-laplace",
        "Requirement: error at most ±1 with confidence 0.95, Δ = 1. Which ε does Laplace noise need? Derive it "
        "by hand, then find Laplace's row under “All numbers as a table”.",
        {"req": "error", "theta": "1", "conf": "0.95", "sens": "1"},
        "P(|Lap(b)| ≤ θ) = 1 − e^(−θ/b) ≥ 0.95 needs b ≤ θ/ln 20, i.e. ε = Δ·ln(20)/θ = **2.996**; the page states "
        "it rounded up, ε = 3.0. The Gaussian needs more at this δ: its light tails only pay off for a generous δ.",
        ("2.996",),
        check=Check(
            "2.996",
            (
                "Find Laplace's row in “All numbers as a table”, or solve 1 − e^(−θ/b) = 0.95 for b.",
                "The scale must be b = θ/ln 20, and ε = Δ/b; ln 20 is just under three.",
            ),
        ),
    ),
    Exercise(
        "neg-meaning",
        "Ask for ±1 with confidence 0.999. The page recommends ε = 7.0. How far can one answer move an observer "
        "who suspects with 1 % that you are in the data (panel 4), in %?",
        {"req": "error", "theta": "1", "conf": "0.999", "sens": "1"},
        "The odds can grow by e^7 ≈ **1097**×, so 1 % can become at most **91.7 %**: a very accurate single count "
        "costs a budget that protects little against a determined observer.",
        ("1097", "91.7"),
        check=Check(
            "91.7 %",
            (
                "Read the metric “Largest posterior from a 1 % prior”.",
                "Odds of 1 : 99 grow by the factor e^7, about a thousand; turn the new odds back into a percentage.",
            ),
        ),
    ),
)
