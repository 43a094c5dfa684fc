"""“Try this” exercises of the Privacy audit page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "audit-laplace",
        "Audit the Laplace mechanism at ε = 1. Does the audit find a violation? What does the ε lower bound tell you?",
        {"mech": "laplace", "eps": "1"},
        "No: the verdict is *consistent* and the ε lower bound stays below the claimed 1. An audit can only "
        "prove a mechanism is *not* private enough; passing is evidence, not proof.",
        check=Check(
            "no",
            (
                "Read the verdict metric at the top of the audit.",
                "An honest mechanism's lower bound stays below the ε it claims.",
            ),
            options=("yes", "no"),
        ),
    ),
    Exercise(
        "audit-brdp",
        "Audit BR-DP calibrated by the paper's accountant at its counterexample (ε = 0.1, δ = 0.001, acceptance "
        "region 0.1, Δ = 5, share 0.6 of ε per draw). What does the audit find?",
        {"mech": "brdp_paper", "eps": "0.1", "delta": "0.001", "atheta": "0.1", "sens": "5", "ratio": "0.6"},
        "A VIOLATION: every answer outside the acceptance region is redrawn, so the outputs for the two "
        "neighbouring data sets never overlap; the audit proves a δ far above the claimed 0.001: the paper's "
        "accountant certified a mechanism that gives the secret away.",
        check=Check(
            "a violation",
            (
                "Read the verdict metric at the top of the audit.",
                "Every answer outside the acceptance region is redrawn: can the outputs for the two data sets overlap?",
            ),
            options=("consistent", "a violation"),
        ),
    ),
)
