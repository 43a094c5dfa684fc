"""Cached numbers of the class poll: the estimate of a poll's counts and seeded replays of the same class at another
ε (dpcore.ldp.rr_survey does the maths)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from dpcore.ldp import rr_survey as rr

#: Replays per ε: the spread of 2000 estimates is within a few per cent of its exact value.
RUNS = 2000


@dataclass(frozen=True)
class Replay:
    """One ε of a replay: the exact spread of the estimate over replays of this class, the median width of its
    95 % interval over the replays, and the first replay as an example (its Yes reports and estimate)."""

    epsilon: float
    std_error: float
    typical_width: float
    example: rr.ShareEstimate


@dataclass(frozen=True)
class Replays:
    """Replays of one class (``answers`` people, ``true_yes`` of them truly Yes) at the poll's ε and another one.

    ``frame`` has one row per replay: ``epsilon`` and the unbiased ``estimate`` (the histogram's data)."""

    answers: int
    true_yes: int
    frame: pd.DataFrame
    runs: tuple[Replay, ...]


@cached
def estimate(yes: int, answers: int, epsilon: float) -> rr.ShareEstimate:
    """The estimate of the true share of Yes from a poll's counts (95 % interval)."""
    return rr.estimate(yes, answers, epsilon)


class _Replayed(NamedTuple):
    """``RUNS`` replays of one class at one ε: every replay's estimate, and their summary."""

    estimates: np.ndarray
    summary: Replay


def _replay(true_yes: int, answers: int, epsilon: float, seed: int) -> _Replayed:
    reports = rr.simulate_reports(true_yes, answers, epsilon, RUNS, np.random.default_rng(seed))
    estimates = np.asarray(rr.unbiased_share(reports / answers, epsilon))
    first = rr.estimate(int(reports[0]), answers, epsilon)
    low, high = rr.share_interval(reports, answers, epsilon)
    widths = high - low
    spread = float(np.sqrt(rr.coin_variance(answers, epsilon)))  # this class, coins drawn afresh
    return _Replayed(estimates, Replay(epsilon, spread, float(np.median(widths)), first))


@cached
def replays(answers: int, share: float, epsilon: float, replay_epsilon: float, seed: int) -> Replays:
    """The same class replayed ``RUNS`` times at the poll's ε and at ``replay_epsilon`` (same seed for both): each of
    ``answers`` people answers afresh through the coin, ``round(share × answers)`` of them truly Yes."""
    true_yes = int(round(min(1.0, max(0.0, share)) * answers))
    parts, runs = [], []
    for eps in dict.fromkeys((float(epsilon), float(replay_epsilon))):
        est, run = _replay(true_yes, answers, eps, seed)
        parts.append(pd.DataFrame({"epsilon": eps, "estimate": est}))
        runs.append(run)
    return Replays(answers, true_yes, pd.concat(parts, ignore_index=True), tuple(runs))
