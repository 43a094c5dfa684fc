"""Cached tables of the BR-DP page and lesson (Jiang et al. 2024): scalar arguments in, dpcore results / frames out.

Every function evaluates :mod:`dpcore.brdp` on the grid a chart needs; ``@cached`` keys on the scalars (one bounded
process-wide cache, :mod:`app.compute._cache`, in the app, a lesson or a worker alike). The heavy panels' functions
(:func:`composition`, :func:`subsampling`, :func:`experiment`, :func:`experiment_acceptance`, seconds on a new
setting) are plain functions that the page runs as background jobs through :mod:`app.background` (which caches and
bounds them itself). A *plan key* is the tuple of scalars that fixes the BR-DP configuration shown on the page (see
:func:`plan`).

One module per concern: the plan (:mod:`~app.compute.brdp.plans`), the mechanism at work, the budget split,
privacy and composition, subsampling and the paper's own figures; every public name is re-exported here
(``from app.compute import brdp as compute; compute.recycler(...)``).
"""

from app.compute.brdp.budget import (
    EXACT_ACCEPTANCE_EPS,
    acceptance,
    landscape,
    q_curves,
)
from app.compute.brdp.mechanism import (
    DENSITY_SAMPLES,
    RECYCLER_COUNTED,
    RECYCLER_MAX_DRAWS,
    RECYCLER_SHOWN,
    OutputDensity,
    Recycler,
    density,
    live_counters,
    recycler,
)
from app.compute.brdp.plans import (
    Accountant,
    Calibration,
    Mode,
    PlanKey,
    Query,
    audit,
    build_plan,
    optimal_plan,
    plan,
)
from app.compute.brdp.privacy import (
    COMPOSITION_INTERVAL,
    Composition,
    LossPicture,
    composition,
    composition_range,
    loss,
    profile,
    profile_grid,
    remarks,
)
from app.compute.brdp.reproduce import (
    FIG6_SETTINGS,
    FIG6_SIZES,
    FIG7_RIGHT,
    FIG7_SETTINGS,
    PAPER_TABLE1,
    TABLE1_LAPLACE_EPS_Y,
    KernelAlone,
    fig4,
    fig5,
    fig6,
    fig7,
    fig7_acceptance,
    table1,
    table1_laplace_kernel_alone,
)
from app.compute.brdp.sampling import (
    MU_X,
    P_C,
    SANDBOX_EPS,
    SANDBOX_RELEASES,
    SIGMA_X,
    SIZE_GRID,
    Subsampling,
    at_rate,
    experiment,
    experiment_acceptance,
    rate_vs_size,
    sampling_plan,
    subsampling,
    subsampling_curve,
    synthetic_records,
)

__all__ = [
    "Accountant", "Calibration", "Query", "Mode", "PlanKey", "optimal_plan", "build_plan", "plan", "audit",
    "RECYCLER_SHOWN", "RECYCLER_MAX_DRAWS", "RECYCLER_COUNTED", "DENSITY_SAMPLES", "Recycler", "recycler",
    "live_counters", "OutputDensity", "density",
    "EXACT_ACCEPTANCE_EPS", "landscape", "q_curves", "acceptance",
    "COMPOSITION_INTERVAL", "profile_grid", "profile", "LossPicture", "loss", "composition_range", "Composition",
    "composition", "remarks",
    "SIGMA_X", "MU_X", "P_C", "subsampling_curve", "sampling_plan", "at_rate", "SIZE_GRID", "rate_vs_size",
    "Subsampling", "subsampling", "synthetic_records", "experiment", "SANDBOX_EPS", "SANDBOX_RELEASES",
    "experiment_acceptance",
    "fig4", "fig5", "FIG6_SETTINGS", "FIG6_SIZES", "fig6", "FIG7_SETTINGS", "FIG7_RIGHT", "fig7", "PAPER_TABLE1",
    "fig7_acceptance", "TABLE1_LAPLACE_EPS_Y", "KernelAlone", "table1_laplace_kernel_alone", "table1",
]
