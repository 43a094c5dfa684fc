"""Cached tables for the SVT page (Liu, Wang, Liu, Li and Chen 2024), one module per concern: the calibrated method
(:mod:`~app.compute.svt.method`), the explore view's panels (:mod:`~app.compute.svt.noises`,
:mod:`~app.compute.svt.correction`, :mod:`~app.compute.svt.accuracy`, :mod:`~app.compute.svt.runs`,
:mod:`~app.compute.svt.framework`), the top-c experiments (worker-pool jobs, :mod:`~app.compute.svt.experiments`)
and the paper's own figures and tables (:mod:`~app.compute.svt.reproduce`); every public name is re-exported here
(``from app.compute import svt as csvt; csvt.summary(...)``), each module's ``__all__`` saying which."""

from app.compute.svt import accuracy, correction, experiments, framework, method, noises, reproduce, runs
from app.compute.svt.accuracy import *  # noqa: F403
from app.compute.svt.correction import *  # noqa: F403
from app.compute.svt.experiments import *  # noqa: F403
from app.compute.svt.framework import *  # noqa: F403
from app.compute.svt.method import *  # noqa: F403
from app.compute.svt.noises import *  # noqa: F403
from app.compute.svt.reproduce import *  # noqa: F403
from app.compute.svt.runs import *  # noqa: F403

__all__ = [
    *accuracy.__all__,
    *correction.__all__,
    *experiments.__all__,
    *framework.__all__,
    *method.__all__,
    *noises.__all__,
    *reproduce.__all__,
    *runs.__all__,
]
