"""Catalogue entries of the Local DP page and lesson (Pan 2023; see app/catalogue/__init__.py for what an entry holds).

The keys are the page's own (``epsg``, ``nq``, ``dsize`` …): generic letters such as ``k``, ``n`` or ``x`` mean other
things on other pages.
"""

from __future__ import annotations

from app.catalogue._core import Param, choice, register

TOPIC = "ldp"

BUDGETS = (0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0, 50.0)
QUERY_COUNTS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60)
DOMAIN_SIZES = (2, 3, 4, 5, 6, 8, 11, 16, 21, 31, 51, 101)
WEIGHTS = (1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.5)

register(
    Param(
        "epsg",
        "ε_G",
        "the person's total budget",
        "The most the answers, all together, may reveal about one person: the filter keeps the realized loss of "
        "everything it has answered at or below ε_G, so the whole conversation is ε_G-LDP.",
        4.0,
        BUDGETS,
        glossary="privacy filter",
        topic=TOPIC,
    ),
    Param(
        "nq",
        "k",
        "number of queries",
        "How many questions the analyst sends about the same person, one after the other.",
        25,
        QUERY_COUNTS,
        glossary="composition",
        topic=TOPIC,
    ),
    Param(
        "dsize",
        "|D|",
        "number of possible values",
        "The secret X is one of 0, 1, …, |D| − 1 (an age band, a rating …).",
        11,
        DOMAIN_SIZES,
        glossary="local DP",
        topic=TOPIC,
    ),
    Param(
        "xtrue",
        "x*",
        "the person's true value",
        "The secret the answers are drawn from. Only the random answers depend on it; the filter never looks at it.",
        7,
        tuple(range(101)),
        topic=TOPIC,
    ),
    choice(
        "family",
        "queries",
        "Which questions the analyst asks. The running example asks for X, X², X³, … (scaled to [0, 1]) through the "
        "two-point mechanism: most answers separate some values more than others. Randomized response asks for X "
        "itself: every answer reveals the full ε.",
        {"powers": "running example: X, X², X³, …", "rr": "randomized response"},
        glossary="randomized response",
        topic=TOPIC,
    ),
    choice(
        "prior",
        "prior belief about X",
        "What an observer believes about the secret before any answer. It changes the posterior, never the realized "
        "loss.",
        {
            "uniform": "Uniform",
            "skewed": "Skewed to small values",
            "peaked": "Peaked in the middle",
            "bimodal": "Both ends",
        },
        topic=TOPIC,
    ),
    Param(
        "stmt",
        "φ",
        "statement about the person",
        "A claim about the secret whose confidence we follow: how sure an observer is of it before and after the "
        "answers.",
        "above",
        ("equal", "above", "even"),
        kind="choice",
        labels={"equal": "X = x*", "above": "X ≥ x*", "even": "X is even"},
        topic=TOPIC,
    ),
    Param(
        "weight",
        "w",
        "weight of the adversarial prior",
        "The observer of Lemma 3.2 puts weight w on the most revealing value and 1 − w on the least: the smaller w, "
        "the closer her gain in confidence comes to the realized loss. The slider is logarithmic.",
        0.01,
        WEIGHTS,
        topic=TOPIC,
    ),
    Param(
        "showratio",
        "",
        "show losses as ratios e^ℓ",
        'Display only. The paper\'s examples print the ratio e^ℓ ("the loss is 1.5"); budgets are always compared '
        "as ℓ ≤ ε_G.",
        False,
        kind="toggle",
        glossary="realized privacy loss",
        topic=TOPIC,
    ),
    Param(
        "mc",
        "",
        "simulate the analyst",
        "Run 100 seeded analyst streams per filter (a fraction of a second per new setting).",
        False,
        kind="toggle",
        topic=TOPIC,
    ),
    choice(
        "regkind",
        "regression answers",
        "The questions of the continuous part: logistic regressions (a smooth score) or truncated linear "
        "regressions (a clipped line: flat where it is clipped).",
        {"logistic": "Logistic", "truncated": "Truncated linear"},
        topic=TOPIC,
    ),
    Param(
        "group",
        "m",
        "group size",
        "The filter bounds the loss of every m consecutive answers separately and adds the bounds: larger groups "
        "give a tighter total but are slower to compute.",
        10,
        (10, 20),
        kind="choice",
        labels={10: "10", 20: "20"},
        topic=TOPIC,
    ),
)
