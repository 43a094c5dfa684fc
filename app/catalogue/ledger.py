"""Catalogue entries of the ledger page and lesson (see app/catalogue/__init__.py for what an entry holds)."""

from __future__ import annotations

from app.catalogue._core import Param, choice, log_grid, register

register(
    Param(
        "beps",
        "ε_B",
        "session privacy budget",
        "The total privacy loss that every release in the ledger may spend together. The enforcing accountant "
        "refuses a release that would push the total past it.",
        10.0,
        log_grid(0.01, 20.0),
        glossary="composition",
        topic="ledger",
    ),
    Param(
        "bdelta",
        "δ_B",
        "session failure probability",
        "The total failure probability the releases in the ledger may use together (their own δ's plus the slack of "
        "converting a zCDP total into an (ε, δ) guarantee).",
        1e-4,
        log_grid(1e-12, 0.1, (1.0, 2.0, 5.0)),
        glossary="δ (delta)",
        topic="ledger",
    ),
    choice(
        "enforce",
        "enforcing accountant",
        "Which accountant says yes or no to a new release. The privacy filter adds up zCDP costs and charges a noise "
        "reduction only for the level where it stopped; basic composition adds up the ε's and δ's. Both stay valid "
        "when each release is chosen after seeing the earlier results.",
        {"filter": "privacy filter", "basic": "basic composition"},
        glossary="privacy filter",
        topic="ledger",
    ),
)
