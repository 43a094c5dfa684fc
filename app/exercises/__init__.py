"""The "Try this" exercises of every page, one module per page (``app/exercises/<page>.py``), keyed here by the page's
URL path (the home page's is "")."""

from __future__ import annotations

from app.exercises import audit, baselines, brdp, home, ldp, ledger, negotiate, noise_reduction, poll, r2dp, svt
from app.exercises._base import Exercise, query_string

EXERCISES: dict[str, tuple[Exercise, ...]] = {
    "": home.EXERCISES,
    "baselines": baselines.EXERCISES,
    "brdp": brdp.EXERCISES,
    "noise_reduction": noise_reduction.EXERCISES,
    "svt": svt.EXERCISES,
    "ldp": ldp.EXERCISES,
    "r2dp": r2dp.EXERCISES,
    "negotiate": negotiate.EXERCISES,
    "ledger": ledger.EXERCISES,
    "audit": audit.EXERCISES,
    "poll": poll.EXERCISES,
}

__all__ = ["EXERCISES", "Exercise", "query_string"]
