"""“Try this” exercises of the R²DP page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "r2dp-threshold",
        "Open the families part with γ = 0.1 and Δ = 1, and compare the best Gamma law with Laplace at ε = 2 and at "
        "ε = 2.5. From which ε on does a Gamma or Uniform law beat Laplace?",
        {"part": "Families", "eps": "2.5", "gamma": "0.1", "sens": "1", "fam": "gamma"},
        "From ε = 2/(1 − γ/Δ) = **2.222** on. At ε = 2 the best Gamma law *is* Laplace (U = **0.1813**); at "
        "ε = 2.5 it beats Laplace's **0.2212**. Below that threshold only a law with two far-apart values of u "
        "(the two-point law) can help.",
        ("2.222", "0.1813", "0.2212"),
        check=Check(
            "2.222",
            (
                "Look for the ε at which the best Gamma law's curve leaves the Laplace curve in the families part.",
                "The threshold is 2/(1 − γ/Δ): with γ/Δ = 0.1 it is a little above 2.",
            ),
        ),
    ),
    Exercise(
        "r2dp-laplace",
        "At ε = 5, γ = 0.1 and Δ = 1, how often is plain Laplace noise within ±γ, i.e. what is its usefulness U(γ)?",
        {"eps": "5", "gamma": "0.1", "sens": "1"},
        "1 − e^(−γε/Δ) = **0.3935**. Drawing the noise scale at random does markedly better at the same exact ε: "
        "compare the best R²DP law (two-point) in the headline numbers.",
        ("0.3935",),
        check=Check(
            "0.3935",
            (
                "Read the metric “Laplace U(γ) at ε”.",
                "For Laplace noise of scale Δ/ε the chance to land within ±γ is 1 − e^(−γε/Δ).",
            ),
            share=True,
        ),
    ),
)
