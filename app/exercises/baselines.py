"""“Try this” exercises of the Gaussian & Laplace page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "base-sigma",
        "Set ε = 0.5 and Δ = 2 (δ = 10⁻⁵, analytic calibration). How large is σ? And the Laplace scale b?",
        {"eps": "0.5", "delta": "1e-05", "sens": "2", "calib": "analytic"},
        "σ = **14.06** and b = **4** (= Δ/ε; δ shaves off only a hair). Halving ε or doubling Δ doubles "
        "both scales: noise is proportional to Δ/ε.",
        ("14.06", "4"),
    ),
    Exercise(
        "base-classic",
        "At ε = 0.5, δ = 10⁻⁵, Δ = 1 switch the Gaussian calibration from analytic to classic. How much "
        "noise does the textbook formula waste?",
        {"eps": "0.5", "delta": "1e-05", "sens": "1", "calib": "classic"},
        "Classic σ = Δ√(2 ln(1.25/δ))/ε = **9.69** against the analytic (tight) σ = **7.032**: about "
        "**1.38×** the noise for exactly the same (ε, δ) promise.",
        ("9.69", "7.032", "1.38"),
    ),
    Exercise(
        "base-compose",
        "Set ε = 1, δ = 10⁻⁵ and T = 100 releases. What total ε does each mechanism really spend, against "
        "the naive 100 × 1?",
        {"eps": "1", "delta": "1e-05", "T": "100"},
        "Gaussian: **14.43**, Laplace: **68.26** (both at δ = 10⁻⁵), far below the naive **100**. Exact "
        "accounting grows like √T; the Gaussian composes best.",
        ("14.43", "68.26", "100"),
    ),
    Exercise(
        "base-accuracy",
        "θ = 1, δ = 10⁻⁵: which mechanism is more often within ±1 of the truth at ε = 0.5 — and at ε = 2?",
        {"eps": "0.5", "delta": "1e-05", "sens": "1", "theta": "1"},
        "Laplace both times: at ε = 0.5 P(|noise| ≤ 1) is **0.3935** (Laplace) vs **0.1131** (Gaussian), "
        "at ε = 2 it is **0.8647** vs **0.3840**. At small ε and small δ Laplace is the more accurate choice.",
        ("0.3935", "0.1131", "0.8647", "0.3840"),
    ),
)
