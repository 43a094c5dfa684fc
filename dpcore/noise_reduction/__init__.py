"""Accuracy-first noise reduction (Rogers, Samorodnitsky, Wu, Ramdas 2023)."""

from dpcore.noise_reduction.release import *  # noqa: F403
from dpcore.noise_reduction.release import MAX_PATHS, MAX_SUPPORT, __all__, _bm_run, _bm_run_linear, _grid  # noqa: F401
