"""“Try this” exercises of the R²DP page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "r2dp-threshold",
        "Families view, γ = 0.1, Δ = 1: compare the best Gamma law with Laplace at ε = 2 and at ε = 2.5. "
        "From which ε on does R²DP (Gamma or Uniform) beat Laplace?",
        {"part": "families", "eps": "2.5", "gamma": "0.1", "sens": "1", "fam": "gamma"},
        "From ε = 2/(1 − γ/Δ) = **2.222** on. At ε = 2 the best Gamma law *is* Laplace (U = **0.1813**); "
        "at ε = 2.5 it beats Laplace's **0.2212**. Below the threshold only a non-local law (two-point) can "
        "help.",
        ("2.222", "0.1813", "0.2212"),
    ),
    Exercise(
        "r2dp-laplace",
        "At ε = 5, γ = 0.1, Δ = 1, what is the usefulness U(γ) = P(|noise| ≤ γ) of plain Laplace noise?",
        {"eps": "5", "gamma": "0.1", "sens": "1"},
        "1 − e^(−γε/Δ) = **0.3935**. Randomizing the scale (the global two-point optimum) does markedly better "
        "at the same exact ε — compare the headline metrics.",
        ("0.3935",),
    ),
)
