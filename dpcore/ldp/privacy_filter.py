"""Bayesian privacy filters and the privacy odometer (Pan 2023, Sec. 4.1–4.3, Algorithms 2–4).

Each filter keeps ``ln Λ_r`` of the accepted transcript; the odometer is its realized loss ``ℓ(r)`` (Def. 4.5),
which can go down.  A query is judged *before* it runs, over every output it could produce (Cor. 4.1, Eq. 15), so
the accept/reject decision never depends on the secret.

Every decision is exact.  The tables' log-probabilities (and the budget) are floats, i.e. exact numbers, so the loss
of a transcript has an exact value; a filter refuses whatever would take it over the budget, even by an ulp, and
accepts a loss that lands exactly on it (Example 3).  For speed ``ln Λ_r`` is kept *normalised* (its largest entry
0, every column of a table shifted the same way), so its entries stay the size of the loss instead of growing by
|ln Pr| ≈ 0.7 per answer, together with a bound on their accumulated round-off; only when a loss lies within that
bound of the budget is it recomputed exactly from the accepted columns (``math.fsum``, whose sign is exact).
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np

from dpcore import _validate as _v
from dpcore._exact import ExactSum, up
from dpcore.ldp.likelihood import (
    _RND,
    DECLARED_ROUNDOFF,
    MAX_DOMAIN_SIZE,
    TOLERANCE,
    LikelihoodTable,
    QueryRejected,
    _absmax,
    _as_table,
    _budget_limit,
    _margin,
)


class _FilterBase(abc.ABC):
    """Shared state: ``ln Λ_r`` over the domain (normalised, with its round-off bound), the exact record of the
    transcript, the history, and the odometer (Def. 4.5)."""

    def __init__(
        self,
        budget: float,
        *,
        domain_size: int,
        tolerance: float = TOLERANCE,
        log_likelihood: Any | None = None,
    ) -> None:
        self.budget = _v.positive("budget", budget)
        n = _v.integer("domain_size", domain_size, low=1, high=MAX_DOMAIN_SIZE)
        self.tolerance = _v.nonnegative("tolerance", tolerance)
        if log_likelihood is None:
            ll0 = np.zeros(n)
        else:
            ll0 = _v.real_array("log_likelihood", log_likelihood, allow_inf=False)
            if ll0.shape != (n,):
                raise ValueError(f"log_likelihood must have shape ({n},), got {ll0.shape}")
            ll0 = ll0.copy()
        ll0.setflags(write=False)
        self._ll0 = ll0  # the exact record: ln Λ_r = ll0 + Σ accepted columns, every term a float taken exactly
        self._cols: list[np.ndarray] = []
        self._raw = ll0.copy()  # ln Λ_r in plain floats, for display
        self._ll = ll0 - ll0.max()  # normalised: max 0, entries the size of the loss
        self._err = _RND * _absmax(self._ll)  # bound on |self._ll − (exact ln Λ_r − shift)| for every entry
        self.domain_size = n
        self.history: list[tuple[LikelihoodTable, Any]] = []

    # --- odometer ---------------------------------------------------------------------------
    @property
    def log_likelihood(self) -> np.ndarray:
        """``ln Λ_r(x)`` of the accepted transcript (a copy)."""
        return self._raw.copy()

    @property
    def limit(self) -> float:
        """The exact bound every decision tests against: the budget (less ``tolerance``, which only refuses more)."""
        return _budget_limit(self.budget, self.tolerance)

    @property
    def loss(self) -> float:
        """Privacy odometer ``O(r) = ℓ(r)`` (Def. 4.5, log scale), never below the exact value; 0 when empty.

        It can decrease.  A loss exactly on the budget reads as the budget.
        """
        v = float(self._ll.max() - self._ll.min())
        bound = up(v + 2 * self._err + _RND * v)
        if bound <= self.budget or not self._state_within(self.budget):
            return bound
        return min(bound, self.budget)  # exact loss ≤ budget: the budget is a sound reading

    @property
    def remaining(self) -> float:
        """Remaining budget ``ε_G − O(r)`` (can grow back)."""
        return self.budget - self.loss

    # --- exact record -----------------------------------------------------------------------
    def _terms(self, idx: np.ndarray) -> np.ndarray:
        """The exact terms of ln Λ_r at the values ``idx``: rows ll0, then one row per accepted column."""
        return np.array([self._ll0[idx], *(c[idx] for c in self._cols)])

    def _candidates(self, values: np.ndarray, slack: float) -> tuple[np.ndarray, np.ndarray]:
        """Values that may be the exact maximiser / minimiser of ``values`` (each within ``slack`` of exact)."""
        top, bot = float(values.max()), float(values.min())
        return np.flatnonzero(values >= top - 2 * slack), np.flatnonzero(values <= bot + 2 * slack)

    def _pairs_within(
        self, his: np.ndarray, los: np.ndarray, extra: list[float], bound: float, column: np.ndarray | None = None
    ) -> bool:
        """Exactly: ln Λ(a) + column(a) − ln Λ(b) − column(b) + Σ extra ≤ bound for every a in his, b in los."""
        idx = np.union1d(his, los)
        terms = self._terms(idx)
        if column is not None:
            terms = np.vstack([terms, column[idx]])
        pos = {int(x): i for i, x in enumerate(idx)}
        for a in his:
            ta = terms[:, pos[int(a)]]
            for b in los:
                if a != b and math.fsum([*ta, *(-terms[:, pos[int(b)]]), *extra, -bound]) > 0:
                    return False
        return True

    def _state_within(self, bound: float, extra: list[float] | None = None) -> bool:
        """Exactly: ℓ(r) + Σ extra ≤ bound."""
        his, los = self._candidates(self._ll, self._err + _RND * _absmax(self._ll))
        return self._pairs_within(his, los, list(extra or []), bound)

    # --- look-ahead ---------------------------------------------------------------------------
    def _check(self, table: Any) -> LikelihoodTable:
        tab = _as_table("table", table)
        if tab.domain_size != self.domain_size:
            raise ValueError(f"table must have {self.domain_size} rows (domain_size), got {tab.domain_size}")
        return tab

    def _joint(self, tab: LikelihoodTable) -> tuple[np.ndarray, np.ndarray, float]:
        """ln Λ_r + ln Pr[y | x] for every output (normalised), each output's ℓ in floats, and the entries' bound."""
        lpn, err_tab = tab._normalised
        joint = self._ll[:, None] + lpn
        with np.errstate(invalid="ignore"):
            d = joint.max(axis=0) - joint.min(axis=0)  # -inf - -inf = nan (impossible output); finite - -inf = inf
        return joint, d, self._err + err_tab + _RND * _absmax(joint)

    def look_ahead(self, table: Any) -> np.ndarray:
        """ℓ(r + (q, y)) for every output y of the query, never below the exact value (nan for outputs that cannot
        occur; Eq. 15)."""
        _, d, e1 = self._joint(self._check(table))
        return up(d + (2 * e1 + _RND * d))

    def worst_case(self, table: Any) -> float:
        """``W = max_y ℓ(r + (q, y))`` over the outputs that can occur (the left side of Eq. 15, log scale)."""
        return float(np.nanmax(self.look_ahead(table)))

    def _fits(self, tab: LikelihoodTable) -> bool:
        """Look-ahead test, exact: every possible output's ℓ(r + (q, y)) ≤ the limit (nan = impossible output)."""
        joint, d, e1 = self._joint(tab)
        ok = ~np.isnan(d)
        if not ok.any():
            return True
        dd = d[ok]
        if np.any(dd == np.inf):
            return False
        lim = self.limit
        eta = 2 * e1 + _RND * (dd + lim)
        if np.any(dd - eta > lim):
            return False
        unsure = np.flatnonzero(ok)[dd + eta > lim]
        for j in unsure:  # within round-off of the limit: decide on the exact sums
            col = joint[:, j]
            his, los = self._candidates(col, e1)
            if not self._pairs_within(his, los, [], lim, column=tab.log_prob[:, j]):
                return False
        return True

    @abc.abstractmethod
    def would_accept(self, table: Any) -> bool:
        """Whether the filter admits the query (each filter's own rule)."""

    def submit(self, table: Any, output: Any) -> float:
        """Commit an accepted query and its output; returns the new odometer value ℓ(r).

        Raises :class:`QueryRejected` (a ValueError) if the filter rejects the query: the accept/reject
        decision never looks at ``output`` (Algorithm 2; deciding after the run would leak x*).
        """
        tab = self._check(table)
        if not self.would_accept(tab):
            raise QueryRejected("table: the filter rejects this query (budget would be exceeded for some output)")
        j = tab.output_index(output)
        col = tab.log_prob[:, j]
        if np.all(col == -np.inf):
            raise ValueError(f"output {output!r} cannot occur for any true value")
        lpn, err_tab = tab._normalised
        g = self._ll + lpn[:, j]
        new = g - g.max()
        self._err += err_tab + _RND * (_absmax(g) + _absmax(new))
        self._ll = new
        self._raw = self._raw + col
        self._cols.append(col)
        self._on_commit(tab)
        self.history.append((tab, output))
        return self.loss

    def _on_commit(self, tab: LikelihoodTable) -> None:  # noqa: B027 — an optional hook: nothing by default
        pass

    def copy(self):  # noqa: ANN201
        """An independent copy (for dry-running transcript trees)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._ll = self._ll.copy()
        new._raw = self._raw.copy()
        new._cols = list(self._cols)
        new.history = list(self.history)
        return new


class BayesianPrivacyFilter(_FilterBase):
    """Bayesian Privacy Filter (Def. 4.3, Algorithm 2, Cor. 4.1/Eq. 15): exact, discrete, fully adaptive.

    Accepts a query iff ``ℓ(r + (q, y)) ≤ ε_G`` exactly for **every** output y the query can produce.  An output
    with zero probability for some x but not all gives ℓ = ∞ and a rejection.  ``loss`` is the odometer
    (Def. 4.5; it can decrease).
    """

    def would_accept(self, table: Any) -> bool:
        """Look-ahead over every possible output of the query (decision uses public data only)."""
        return self._fits(self._check(table))


class SimplifiedBayesianFilter(_FilterBase):
    """Simplified Bayesian Privacy Filter (Def. 4.4, Thm 4.2, Algorithm 3): accept iff ``ℓ(r) + ε_q ≤ ε_G``.

    ``ε_q`` is the declared LDP level of the query (defaults to its tight level); a declared value below the
    tight level by more than round-off (``DECLARED_ROUNDOFF·max(1, |ln Pr|)``) is invalid.  The test uses
    ``max(ε_q, tight)`` exactly, so a declaration within round-off below the tight level never buys budget.
    Whenever this filter accepts, the full BPF accepts.
    """

    def would_accept(self, table: Any, *, epsilon: float | None = None) -> bool:
        tab = self._check(table)
        tight = tab.epsilon
        hi, lo = tab.tight_terms
        options: list[list[float]] = [[hi, -lo]]  # the exact terms of each candidate ε_q: the tight level, declared
        if epsilon is not None:
            eps_q = _v.nonnegative("epsilon", epsilon, allow_inf=True)
            if eps_q < tight - _margin(DECLARED_ROUNDOFF, tight, tab.log_prob):
                raise ValueError(f"epsilon must be ≥ the query's tight LDP level {tight!r}, got {eps_q!r}")
            options.append([eps_q])
        if any(math.isinf(sum(o)) for o in options):
            return False
        eff = max(math.fsum(o) for o in options)
        loss = float(self._ll.max() - self._ll.min())
        lim = self.limit
        v = loss + eff
        eta = 2 * self._err + _RND * (loss + eff + v + lim)
        if v + eta <= lim:
            return True
        if v - eta > lim:
            return False
        return all(self._state_within(lim, o) for o in options)  # exactly ℓ(r) + max(ε_q, tight) ≤ limit


class ApproximateBayesianFilter(_FilterBase):
    """EXPERIMENTAL (ε_G, δ_G)-Bayesian Privacy Filter (Sec. 4.3, Def. 4.7, Algorithm 4).

    The paper gives no proof; the rigorous (ε, δ) guarantee of the combined procedure is not
    established.  The output-independent part is basic composition (Σ ε_i ≤ ε_G, Σ δ_i ≤ δ_G, both sums exact);
    when it wants to halt the filter switches to Bayesian mode if ℓ(r) ≤ ε_G, else halts.
    """

    experimental = True

    def __init__(self, budget: float, delta: float, *, domain_size: int, tolerance: float = TOLERANCE) -> None:
        super().__init__(budget, domain_size=domain_size, tolerance=tolerance)
        self.delta = _v.probability("delta", delta, high_open=True)
        self.mode = "OI"
        self._eps_spent = ExactSum()
        self._delta_spent = ExactSum()
        self._pending: tuple[tuple[float, float], float] = ((0.0, 0.0), 0.0)

    @property
    def spent(self) -> tuple[float, float]:
        """``(Σ ε_i, Σ δ_i)`` of the queries accepted while adding up ε and δ (before any switch to the look-ahead),
        each rounded up."""
        return self._eps_spent.upper, self._delta_spent.upper

    def would_accept(self, table: Any, *, delta: float = 0.0) -> bool:
        tab = self._check(table)
        dq = _v.probability("delta", delta)
        hi, lo = tab.tight_terms
        if self.mode == "OI":
            if (
                math.isfinite(hi)
                and math.fsum([*self._eps_spent.partials, hi, -lo, -self.limit]) <= 0
                and self._delta_spent.fits(dq, _budget_limit(self.delta, self.tolerance))
            ):
                self._pending = ((hi, lo), dq)
                return True
            self.mode = "BAYES" if self._state_within(self.limit) else "HALT"
        if self.mode == "BAYES":
            self._pending = ((0.0, 0.0), 0.0)
            return self._fits(tab)
        return False

    def _on_commit(self, tab: LikelihoodTable) -> None:
        if self.mode == "OI":
            (hi, lo), dq = self._pending
            self._eps_spent.add(hi)
            self._eps_spent.add(-lo)
            self._delta_spent.add(dq)

    def copy(self):  # noqa: ANN201
        new = super().copy()
        new._eps_spent = self._eps_spent.copy()
        new._delta_spent = self._delta_spent.copy()
        return new
