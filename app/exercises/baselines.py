"""“Try this” exercises of the Gaussian & Laplace page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "base-sigma",
        "Set ε = 0.5 and Δ = 2 (δ = 10⁻⁵, analytic calibration). How large is σ? (Note the Laplace scale b too.)",
        {"eps": "0.5", "delta": "1e-05", "sens": "2", "calib": "analytic"},
        "σ = **14.06** and b = **4** (= Δ/ε; δ shaves off only a hair). Halving ε or doubling Δ doubles "
        "both scales: noise is proportional to Δ/ε.",
        ("14.06", "4"),
        check=Check(
            "14.06",
            (
                "Open the page with these settings and read the metric “Gaussian noise scale σ”.",
                "Noise is proportional to Δ/ε: going from ε = 1, Δ = 1 to ε = 0.5, Δ = 2 multiplies σ by four.",
            ),
        ),
    ),
    Exercise(
        "base-classic",
        "At ε = 0.5, δ = 10⁻⁵, Δ = 1 switch the Gaussian calibration from analytic to classic. How much "
        "noise does the textbook formula waste? Give the classic σ.",
        {"eps": "0.5", "delta": "1e-05", "sens": "1", "calib": "classic"},
        "Classic σ = Δ√(2 ln(1.25/δ))/ε = **9.69** against the analytic (tight) σ = **7.032**: about "
        "**1.38×** the noise for exactly the same (ε, δ) promise.",
        ("9.69", "7.032", "1.38"),
        check=Check(
            "9.69",
            (
                "With the classic calibration chosen, read the metric “Gaussian noise scale σ”.",
                "The classic σ is Δ√(2 ln(1.25/δ))/ε: with δ = 10⁻⁵ the square root is a little under 5, and ε = 0.5 "
                "doubles it.",
            ),
        ),
    ),
    Exercise(
        "base-compose",
        "Set ε = 1, δ = 10⁻⁵ and T = 100 releases. What total ε does the Gaussian mechanism really spend, "
        "against the naive 100 × 1? (Compare Laplace too.)",
        {"eps": "1", "delta": "1e-05", "T": "100"},
        "Gaussian: **14.43**, Laplace: **68.26** (both at δ = 10⁻⁵), far below the naive **100**. Exact "
        "accounting grows like √T; the Gaussian composes best.",
        ("14.43", "68.26", "100"),
        check=Check(
            "14.43",
            (
                "Read the metric “Gaussian: total ε after T = 100 releases” in the composition part.",
                "Exact accounting grows roughly like √T, not like T: expect a total well below a fifth of the naive "
                "sum.",
            ),
        ),
    ),
    Exercise(
        "base-accuracy",
        "θ = 1, δ = 10⁻⁵, ε = 0.5: how often does the Laplace mechanism land within ±1 of the truth? (Compare the "
        "Gaussian, and try ε = 2.)",
        {"eps": "0.5", "delta": "1e-05", "sens": "1", "theta": "1"},
        "Laplace both times: at ε = 0.5 P(|noise| ≤ 1) is **0.3935** (Laplace) vs **0.1131** (Gaussian), "
        "at ε = 2 it is **0.8647** vs **0.3840**. At small ε and small δ Laplace is the more accurate choice.",
        ("0.3935", "0.1131", "0.8647", "0.3840"),
        check=Check(
            "0.3935",
            (
                "Read the metric “Laplace: chance of landing within ±θ”.",
                "For Laplace noise of scale b the chance is 1 − e^(−θ/b), and here b is about Δ/ε = 2.",
            ),
            share=True,
        ),
    ),
)
