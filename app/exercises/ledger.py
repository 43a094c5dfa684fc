"""“Try this” exercises of the Privacy ledger page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "ledger-accountants",
        "Set the session budget to ε_B = 1, δ_B = 10⁻⁵, then add a few releases from the paper pages (the *Add to the "
        "privacy ledger* button in their sidebars). Which accountant gives the smallest total, which the "
        "largest? Which gives the smallest?",
        {"beps": "1", "bdelta": "1e-05"},
        "PLD is the tightest (it composes the exact privacy-loss distributions), basic composition the loosest "
        "(it adds the ε's). Advanced composition beats basic only with many small releases; zCDP lies in "
        "between.",
        check=Check(
            "PLD",
            (
                "Compare the totals of the accountants in the ledger's table after a few releases.",
                "The tightest accountant composes the exact distributions of the privacy loss, not just their ε's.",
            ),
            options=("basic composition", "advanced composition", "zCDP", "PLD"),
        ),
    ),
    Exercise(
        "ledger-filter",
        "Add a noise-reduction release from *Accuracy first* and switch the enforcing accountant between "
        "*privacy filter* and *basic composition*. Why can the filter fit more?",
        {"beps": "1", "bdelta": "1e-05", "enforce": "filter"},
        "The filter charges a noise reduction only for the level where it stopped (ε_T²/2 in zCDP, ex-post), "
        "while basic composition must charge the declared maximum ε_max. Both stay valid when releases are "
        "chosen adaptively.",
        check=Check(
            "it charges the level where the release stopped",
            (
                "Look at what each accountant charges for the noise-reduction release.",
                "A noise reduction may stop early; one accountant knows where it stopped, the other must assume the "
                "worst.",
            ),
            options=(
                "it ignores releases from other pages",
                "it charges the level where the release stopped",
                "it uses a larger δ",
            ),
        ),
    ),
)
