"""“Try this” exercises of the Privacy audit page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "audit-laplace",
        "Audit the Laplace mechanism at ε = 1. Does the audit find a violation? What does the ε lower bound "
        "tell you?",
        {"mech": "laplace", "eps": "1"},
        "No: the verdict is *consistent* and the ε lower bound stays below the claimed 1. An audit can only "
        "prove a mechanism is *not* private enough; passing is evidence, not proof.",
    ),
    Exercise(
        "audit-brdp",
        "Audit BR-DP calibrated by the paper's accountant at the counterexample (ε = 0.1, δ = 10⁻³, θ = 0.1, "
        "Δ = 5, ε_y = 0.6 ε). What does the audit find?",
        {"mech": "brdp_paper", "eps": "0.1", "delta": "0.001", "atheta": "0.1", "sens": "5", "ratio": "0.6"},
        "A VIOLATION: with q = 1 the outputs for the two neighbouring inputs never overlap, so the audit "
        "proves a δ far above the claimed 10⁻³ — the paper's accountant certified a mechanism that gives the "
        "secret away.",
    ),
)
