"""Releases of the sidebar's law (Mohammady et al. 2020): simulated noisy answers, the secret draws of u behind
them, and the ε of many releases with fresh or reused draws."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from app.compute._cache import cached
from app.compute.r2dp.law import LawKey, make_law
from dpcore import r2dp

TRUE_ANSWER = 100.0


class Releases(NamedTuple):
    """Simulated releases, one row each, and the exact usefulness U(γ) their running share tends to."""

    table: pd.DataFrame  #: release, released, within, running_share, standard_error
    usefulness: float


@cached
def releases(key: LawKey, gamma: float, sensitivity: float, n: int, seed: int, extra: int = 0) -> Releases:
    """n seeded releases q(D) + W of the true answer 100, then ``extra`` one-at-a-time releases (the "release"
    button; release n + i uses the generator seeded (seed, i), so earlier releases never change), and the analytic
    U(γ).

    Columns: release, released, within (|error| ≤ γ), running share and its standard error. The secret draws of u
    are not in this table (see :func:`secret_draws`).
    """
    law = make_law(key)
    w = _noise_draws(law, n, seed, extra)
    within = np.abs(w) <= gamma
    count = np.arange(1, w.size + 1)
    share = np.cumsum(within) / count
    df = pd.DataFrame(
        {
            "release": count,
            "released": TRUE_ANSWER + w,
            "within": within,
            "running_share": share,
            "standard_error": np.sqrt(share * (1 - share) / count),
        }
    )
    return Releases(df, float(r2dp.usefulness(law, gamma=gamma)))


def _release_rng(seed: int, i: int) -> np.random.Generator:
    """The generator of the i-th release added by the "release" button."""
    return np.random.default_rng([seed, i])


def _noise_draws(law: r2dp.MixingLaw, n: int, seed: int, extra: int) -> np.ndarray:
    """The noise of the n seeded releases and the ``extra`` button releases."""
    return np.concatenate(
        [
            r2dp.sample_noise(n, law, np.random.default_rng(seed)),
            *(r2dp.sample_noise(1, law, _release_rng(seed, i)) for i in range(1, extra + 1)),
        ]
    )


@cached
def secret_draws(key: LawKey, sensitivity: float, n: int, seed: int, extra: int = 0, shown: int = 10) -> pd.DataFrame:
    """The secret draws u of the last ``shown`` releases of :func:`releases` (each from the generator stream that
    :func:`dpcore.r2dp.sample_noise` consumes first) with the ε of Laplace(1/u) — what the guarantee collapses to if
    u is published."""
    law = make_law(key)
    u = np.concatenate(
        [
            law.sample(n, np.random.default_rng(seed)),
            *(law.sample(1, _release_rng(seed, i)) for i in range(1, extra + 1)),
        ]
    )
    released = TRUE_ANSWER + _noise_draws(law, n, seed, extra)
    last = slice(max(0, u.size - shown), u.size)
    return pd.DataFrame(
        {
            "release": np.arange(1, u.size + 1)[last],
            "secret u": u[last],
            "released": released[last],
            "ε if u were published": [r2dp.epsilon(r2dp.Dirac(x), sensitivity=sensitivity) for x in u[last]],
        }
    )


@cached
def reuse(key: LawKey, sensitivity: float, queries: int = 6) -> pd.DataFrame:
    """Composition: total ε of n releases with a fresh secret u each (n·ε) against reusing one draw of u for all n
    (exact joint ε ln(M⁽ⁿ⁾(0)/M⁽ⁿ⁾(−nΔq))). Columns: queries, fresh draws, one reused draw."""
    law = make_law(key)
    one = r2dp.epsilon(law, sensitivity=sensitivity)
    return pd.DataFrame(
        [
            {
                "queries": n,
                "fresh draws": n * one,
                "one reused draw": r2dp.reuse_epsilon(law, sensitivity=sensitivity, queries=n),
            }
            for n in range(1, queries + 1)
        ]
    )
