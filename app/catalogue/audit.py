"""Catalogue entries of the privacy-audit page and lesson (see app/catalogue/__init__.py for what an entry holds)."""

from __future__ import annotations

from app.catalogue._core import Param, log_grid, register
from dpcore import audit as _audit
from dpcore import mechanisms as _mechanisms

register(
    Param(
        "mech",
        "",
        "mechanism",
        "The mechanism whose privacy claim is put to the test: it runs many times on two data sets that differ in "
        "one person.",
        "laplace",
        tuple(_audit.MECHANISMS),
        kind="choice",
        labels={m: _mechanisms.display_name(m) for m in _audit.MECHANISMS},
        topic="audit",
    ),
    Param(
        "draws",
        "",
        "outputs per data set",
        "How many times the mechanism runs on each of the two data sets. More runs make the lower bound on ε "
        "tighter and the audit slower.",
        100_000,
        (10_000, 30_000, 100_000, 300_000, 1_000_000),
        topic="audit",
    ),
    Param(
        "level",
        "",
        "audit confidence",
        "How sure the audit must be before it calls a violation: at 0.95 an honest mechanism is wrongly accused in "
        "at most 5 of 100 audits.",
        0.95,
        (0.9, 0.95, 0.99, 0.999),
        topic="audit",
    ),
    Param(
        "atheta",
        "",
        "BR-DP acceptance region",
        "BR-DP redraws an answer that lands further than this from the truth (its error tolerance).",
        1.0,
        log_grid(0.1, 10.0),
        glossary="error tolerance",
        topic="audit",
    ),
    Param(
        "ratio",
        "",
        "BR-DP share of ε for each draw",
        "The paper's accountant spends this share of ε on each draw and keeps the rest for the redraws.",
        0.6,
        (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
        topic="audit",
    ),
    Param(
        "curve",
        "",
        "show how the bound tightens with more outputs",
        "Re-audits growing shares of the outputs, so you can see the lower bound climb; it doubles the cost of a new "
        "setting.",
        False,
        kind="toggle",
        topic="audit",
    ),
)
