"""The parameter catalogue: every user-facing parameter of the app and the lessons, defined once.

An entry says what a learner needs to read a control: its symbol, its name in words, its unit, the values it can take
(a grid, or the options of a choice), its default, a help text that says what the quantity *means*, and the glossary
term that explains it further. The Streamlit widgets (:mod:`app.params`), the glossary popovers (:mod:`app.classroom`)
and the marimo lesson controls (:mod:`app.lessons`) all read this catalogue, so a control has the same name, range,
default and help everywhere.

One symbol means one thing in the whole app (``tests/app/test_catalogue.py`` checks it). The error tolerance keeps
each paper's own letter so a reader can follow the paper — θ for BR-DP and the baselines, γ for R²DP's usefulness, α
for SVT's (α, β)-accuracy — and their entries say they are the same idea (``same_idea_as``).

Entries are grouped by topic (``app/catalogue/<topic>.py``); the URL key of an entry is unique across the app.
"""

from app.catalogue._core import (
    CATALOGUE,
    DEFAULT_EPSILON,
    GLOSSARY,
    SEED_MAX,
    Param,
    fmt_number,
    get,
    int_log_grid,
    log_grid,
    register,
)

# isort: split
# The topic modules register their own entries.
from app.catalogue import (  # noqa: E402
    audit,
    brdp,
    course,
    ldp,
    ledger,
    negotiate,
    noise_reduction,
    poll,
    r2dp,
    svt,
)

__all__ = [
    "CATALOGUE",
    "DEFAULT_EPSILON",
    "GLOSSARY",
    "Param",
    "SEED_MAX",
    "fmt_number",
    "get",
    "int_log_grid",
    "log_grid",
    "register",
    "audit",
    "brdp",
    "course",
    "ldp",
    "ledger",
    "negotiate",
    "noise_reduction",
    "poll",
    "r2dp",
    "svt",
]
