"""Cached tables for the SVT page (Liu, Wang, Liu, Li and Chen 2024): the explore view's analysis, the top-c
experiments (worker-pool jobs) and the paper's own figures and tables, one module each; every public name is
re-exported here (``from app.compute import svt as csvt; csvt.summary(...)``)."""

from app.compute.svt.analysis import *  # noqa: F403
from app.compute.svt.analysis import _GAUSS_DELTA, _alpha_beta  # noqa: F401 — used by the reproduce module
from app.compute.svt.experiments import *  # noqa: F403
from app.compute.svt.reproduce import *  # noqa: F403
