"""Bayesian privacy filters and the privacy odometer (Pan 2023, Sec. 4.1–4.3, Algorithms 2–4).

Each filter keeps ``ln Λ_r`` of the accepted transcript; the odometer is its realized loss ``ℓ(r)`` (Def. 4.5),
which can go down.  A query is judged *before* it runs, over every output it could produce (Cor. 4.1, Eq. 15), so
the accept/reject decision never depends on the secret.
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from dpcore import _validate as _v
from dpcore.ldp.likelihood import (
    MAX_DOMAIN_SIZE,
    TOLERANCE,
    LikelihoodTable,
    QueryRejected,
    _as_table,
    _column_losses,
    _margin,
)


class _FilterBase(abc.ABC):
    """Shared state: ``ln Λ_r`` over the domain, the history, and the odometer (Def. 4.5)."""

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
            self._ll = np.zeros(n)
        else:
            ll = _v.real_array("log_likelihood", log_likelihood, allow_inf=False)
            if ll.shape != (n,):
                raise ValueError(f"log_likelihood must have shape ({n},), got {ll.shape}")
            self._ll = ll.copy()
        self.domain_size = n
        self.history: list[tuple[LikelihoodTable, Any]] = []

    # --- odometer ---------------------------------------------------------------------------
    @property
    def log_likelihood(self) -> np.ndarray:
        """``ln Λ_r(x)`` of the accepted transcript (a copy)."""
        return self._ll.copy()

    @property
    def loss(self) -> float:
        """Privacy odometer ``O(r) = ℓ(r)`` (Def. 4.5, log scale); 0 when empty; can decrease."""
        return float(self._ll.max() - self._ll.min())

    @property
    def remaining(self) -> float:
        """Remaining budget ``ε_G − O(r)`` (can grow back)."""
        return self.budget - self.loss

    def _limit(self, *scales: Any) -> float:
        """Budget plus the round-off margin of the operands (budget, ln Λ_r, and ``scales``)."""
        return self.budget + _margin(self.tolerance, self.budget, self._ll, *scales)

    def _fits(self, losses: np.ndarray, tab: LikelihoodTable) -> bool:
        """Look-ahead test: every possible output's ℓ within the budget (nan = impossible output)."""
        la = losses[~np.isnan(losses)]
        return bool(la.size == 0 or la.max() <= self._limit(tab.log_prob))

    def _check(self, table: Any) -> LikelihoodTable:
        tab = _as_table("table", table)
        if tab.domain_size != self.domain_size:
            raise ValueError(f"table must have {self.domain_size} rows (domain_size), got {tab.domain_size}")
        return tab

    def look_ahead(self, table: Any) -> np.ndarray:
        """ℓ(r + (q, y)) for every output y of the query (nan for outputs that cannot occur; Eq. 15)."""
        tab = self._check(table)
        return _column_losses(self._ll[:, None] + tab.log_prob)

    def worst_case(self, table: Any) -> float:
        """``W = max_y ℓ(r + (q, y))`` over the outputs that can occur (the left side of Eq. 15, log scale)."""
        return float(np.nanmax(self.look_ahead(table)))

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
            raise QueryRejected(
                "table: the filter rejects this query (budget would be exceeded for some output)"
            )
        col = tab.column(output)
        if np.all(col == -np.inf):
            raise ValueError(f"output {output!r} cannot occur for any true value")
        self._ll = self._ll + col
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
        new.history = list(self.history)
        return new


class BayesianPrivacyFilter(_FilterBase):
    """Bayesian Privacy Filter (Def. 4.3, Algorithm 2, Cor. 4.1/Eq. 15): exact, discrete, fully adaptive.

    Accepts a query iff ``ℓ(r + (q, y)) ≤ ε_G`` (within ``tolerance``) for **every** output y the query
    can produce.  An output with zero probability for some x but not all gives ℓ = ∞ and a rejection.
    ``loss`` is the odometer (Def. 4.5; it can decrease).
    """

    def would_accept(self, table: Any) -> bool:
        """Look-ahead over every possible output of the query (decision uses public data only)."""
        tab = self._check(table)
        return self._fits(self.look_ahead(tab), tab)


class SimplifiedBayesianFilter(_FilterBase):
    """Simplified Bayesian Privacy Filter (Def. 4.4, Thm 4.2, Algorithm 3): accept iff ``ℓ(r) + ε_q ≤ ε_G``.

    ``ε_q`` is the declared LDP level of the query (defaults to its tight level ``table.epsilon``); a
    declared value below the tight level by more than round-off (``TOLERANCE·max(1, |ln Pr|)``) is
    invalid.  The test uses ``max(ε_q, tight)``, so a declaration within round-off below the computed
    tight level never buys budget.  Whenever this filter accepts, the full BPF accepts.
    """

    def would_accept(self, table: Any, *, epsilon: float | None = None) -> bool:
        tab = self._check(table)
        tight = tab.epsilon
        if epsilon is None:
            eps_q = tight
        else:
            eps_q = _v.nonnegative("epsilon", epsilon, allow_inf=True)
            if eps_q < tight - _margin(TOLERANCE, tight, tab.log_prob):
                raise ValueError(
                    f"epsilon must be ≥ the query's tight LDP level {tight!r}, got {eps_q!r}"
                )
        eff = max(eps_q, tight)
        return bool(self.loss + eff <= self._limit(tab.log_prob, eff))


class ApproximateBayesianFilter(_FilterBase):
    """EXPERIMENTAL (ε_G, δ_G)-Bayesian Privacy Filter (Sec. 4.3, Def. 4.7, Algorithm 4).

    The paper gives no proof; the rigorous (ε, δ) guarantee of the combined procedure is not
    established.  The output-independent part is basic composition (Σ ε_i ≤ ε_G, Σ δ_i ≤ δ_G); when it
    wants to halt the filter switches to Bayesian mode if ℓ(r) ≤ ε_G, else halts.
    """

    experimental = True

    def __init__(
        self, budget: float, delta: float, *, domain_size: int, tolerance: float = TOLERANCE
    ) -> None:
        super().__init__(budget, domain_size=domain_size, tolerance=tolerance)
        self.delta = _v.probability("delta", delta, high_open=True)
        self.mode = "OI"
        self._eps_spent = 0.0
        self._delta_spent = 0.0
        self._pending: tuple[float, float] = (0.0, 0.0)

    @property
    def spent(self) -> tuple[float, float]:
        """``(Σ ε_i, Σ δ_i)`` of the queries accepted while adding up ε and δ (before any switch to the look-ahead)."""
        return self._eps_spent, self._delta_spent

    def would_accept(self, table: Any, *, delta: float = 0.0) -> bool:
        tab = self._check(table)
        dq = _v.probability("delta", delta)
        eps_q = tab.epsilon
        if self.mode == "OI":
            if (
                self._eps_spent + eps_q
                <= self.budget + _margin(self.tolerance, self.budget, tab.log_prob, self._eps_spent + eps_q)
                and self._delta_spent + dq <= self.delta + _margin(self.tolerance, self.delta)
            ):
                self._pending = (eps_q, dq)
                return True
            self.mode = "BAYES" if self.loss <= self._limit() else "HALT"
        if self.mode == "BAYES":
            self._pending = (0.0, 0.0)
            return self._fits(self.look_ahead(tab), tab)
        return False

    def _on_commit(self, tab: LikelihoodTable) -> None:
        if self.mode == "OI":
            self._eps_spent += self._pending[0]
            self._delta_spent += self._pending[1]
