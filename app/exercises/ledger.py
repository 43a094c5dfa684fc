"""“Try this” exercises of the Privacy ledger page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "ledger-accountants",
        "Set the session budget to ε_B = 1, δ_B = 10⁻⁵, then add a few releases from the paper pages (the *Add to the "
        "privacy ledger* button in their sidebars). Which accountant gives the smallest total, which the "
        "largest?",
        {"beps": "1", "bdelta": "1e-05"},
        "PLD is the tightest (it composes the exact privacy-loss distributions), basic composition the loosest "
        "(it adds the ε's). Advanced composition beats basic only with many small releases; zCDP lies in "
        "between.",
    ),
    Exercise(
        "ledger-filter",
        "Add a noise-reduction release from *Accuracy first* and switch the enforcing accountant between "
        "*privacy filter* and *basic composition*. Why can the filter fit more?",
        {"beps": "1", "bdelta": "1e-05", "enforce": "filter"},
        "The filter charges a noise reduction only for the level where it stopped (ε_T²/2 in zCDP, ex-post), "
        "while basic composition must charge the declared maximum ε_max. Both stay valid when releases are "
        "chosen adaptively.",
    ),
)
