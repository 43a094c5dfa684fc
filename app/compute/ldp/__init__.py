"""Cached numbers of the Local DP page and lesson (Pan 2023): scalars in, frozen results or frames out.

Every loss is stored on the log scale (ε units); each frame also carries a ``*_ratio`` column (``e^ℓ``) so the page
can switch the *display* scale without recomputing. No figures here, and no formulas beyond evaluating
:mod:`dpcore.ldp` on the grids the charts need. One module per concern: the queries and priors
(:mod:`~app.compute.ldp.queries`), beliefs (:mod:`~app.compute.ldp.posterior`), the filter
(:mod:`~app.compute.ldp.privacy_filter`), how many queries it answers (:mod:`~app.compute.ldp.answered`), the
continuous part (:mod:`~app.compute.ldp.continuous`) and the paper's own results (:mod:`~app.compute.ldp.reproduce`);
every public name is re-exported here (``from app.compute import ldp as C; C.beliefs(...)``).
"""

from app.compute.ldp.answered import (
    RR_CLOSED_FORM_MAX_M,
    RR_MC_MULTIPLES,
    RR_MC_RUNS,
    RR_MULTIPLES,
    SIM_CAP,
    SIM_RUNS,
    AcceptedCounts,
    accepted_counts,
    rr_closed_form,
    rr_curve,
    rr_expected,
)
from app.compute.ldp.continuous import (
    BNB_MAX_QUERIES,
    BNB_TOL,
    BNB_WAIT,
    LOOSE_GAP,
    REGRESSIONS,
    BranchAndBound,
    bnb,
)
from app.compute.ldp.posterior import (
    MAX_PATTERNS,
    Beliefs,
    OutputLosses,
    Statement,
    beliefs,
    output_losses,
    qif,
    realized_path,
    statement,
)
from app.compute.ldp.privacy_filter import (
    APPROX_DELTA,
    REGION_MAX_EPSILON,
    ApproximateRun,
    Regions,
    Timeline,
    approximate_run,
    regions,
    timeline,
)
from app.compute.ldp.queries import (
    FAMILIES,
    PRIORS,
    STATEMENT_TEXT,
    STATEMENTS,
    add_ratio,
    prior,
    show_loss,
)
from app.compute.ldp.reproduce import (
    EX3_PAPER,
    PAPER_MEDIAN,
    PATH_RUNS,
    RR_REFERENCE,
    Counterexamples,
    Evaluation,
    Examples,
    Healthcare,
    evaluation,
    examples,
    healthcare,
    loss_paths,
    rr_reference,
    rr_simulated,
)

__all__ = [
    "FAMILIES", "PRIORS", "STATEMENTS", "STATEMENT_TEXT", "show_loss", "add_ratio", "prior",
    "MAX_PATTERNS", "Beliefs", "beliefs", "realized_path", "Statement", "statement", "qif", "OutputLosses",
    "output_losses",
    "REGION_MAX_EPSILON", "APPROX_DELTA", "Timeline", "timeline", "Regions", "regions", "ApproximateRun",
    "approximate_run",
    "SIM_RUNS", "SIM_CAP", "RR_MULTIPLES", "RR_MC_MULTIPLES", "RR_MC_RUNS", "RR_CLOSED_FORM_MAX_M", "AcceptedCounts",
    "accepted_counts", "rr_curve", "rr_closed_form", "rr_expected",
    "REGRESSIONS", "BNB_MAX_QUERIES", "BNB_TOL", "BNB_WAIT", "LOOSE_GAP", "BranchAndBound", "bnb",
    "RR_REFERENCE", "PATH_RUNS", "Counterexamples", "Examples", "EX3_PAPER", "examples", "rr_reference", "rr_simulated",
    "Evaluation", "PAPER_MEDIAN", "evaluation", "loss_paths", "Healthcare", "healthcare",
]
