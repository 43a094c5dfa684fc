"""The Bayesian filter for regressions on a continuous box, with query grouping (Pan 2023, Sec. 5, App. C).

Closed groups of ``group_size`` queries contribute fixed certified losses; the open group is recomputed for both
outputs of each candidate query and capped by basic composition Σ ε (never worse than basic composition).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize

from dpcore import _validate as _v
from dpcore._exact import sum_up, up
from dpcore.ldp.branch_and_bound import _SUBSOLVER, _box, log_likelihood_bounds
from dpcore.ldp.likelihood import TOLERANCE, QueryRejected, _budget_limit
from dpcore.ldp.regression import RegressionQuery, RegressionTerm, _Stack


def _vertices(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    d = lo.size
    bits = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)
    return np.where(bits, hi, lo)


def _group_loss_exact_linear(st: _Stack, lo: np.ndarray, hi: np.ndarray, verts: np.ndarray) -> float:
    """Exact ℓ of a group of linear terms: min at a vertex, max a concave maximisation (Sec. 5.3 (a): ln Λ is
    concave)."""
    vals = st.f(verts @ st.A.T + st.c).sum(axis=1)
    mn = float(vals.min())

    def neg(x: np.ndarray) -> tuple[float, np.ndarray]:
        z = st.A @ x + st.c
        return float(-np.log(z).sum()), -(st.A.T @ (1.0 / z))

    x0 = verts[int(np.argmax(vals))]
    res = optimize.minimize(
        neg,
        (x0 + (lo + hi) / 2) / 2,
        jac=True,
        method=_SUBSOLVER,
        bounds=list(zip(lo, hi, strict=True)),
        options={"ftol": 1e-14, "gtol": 1e-10},
    )
    mx = max(-float(res.fun), float(vals.max()))
    return mx - mn


def _group_loss_multistart(
    st: _Stack, lo: np.ndarray, hi: np.ndarray, gen: np.random.Generator, n_probe: int = 400, n_start: int = 4
) -> float:
    """Heuristic (not certified) ℓ of a group by random probes + multi-start local search."""
    probes = lo + (hi - lo) * gen.random((n_probe, lo.size))
    vals = st.f(probes @ st.A.T + st.c).sum(axis=1)
    out = []
    for sg in (1, -1):

        def fun(x: np.ndarray, sg: int = sg) -> tuple[float, np.ndarray]:
            z = st.A @ x + st.c
            cc, dc, vv = st.parts(z, sg)
            # d/dz of V for logistic/linear/truncated: recompute via parts of opposite sign
            _, dv, _ = st.parts(z, -sg)
            return float(np.sum(cc - vv)), st.A.T @ (dc - dv)

        order = np.argsort(sg * vals)[:n_start]
        best = float(np.min(sg * vals))
        for i in order:
            res = optimize.minimize(fun, probes[i], jac=True, method=_SUBSOLVER, bounds=list(zip(lo, hi, strict=True)))
            best = min(best, float(res.fun))
        out.append(best)
    return -out[1] - out[0]


class RegressionFilter:
    """Bayesian Privacy Filter for regressions on a continuous box, with query grouping (Sec. 5, App. C).

    Closed groups of ``group_size`` queries contribute fixed (certified) losses; the open group is
    recomputed for both outputs of each candidate query and capped by Σ ε (Eq. 17 with the basic-composition cap).
    ``method``: "bnb" (certified branch-and-bound), "exact_linear" (linear queries only: vertex enumeration + concave
    maximisation), "multistart" (heuristic, NOT certified: the fast route for the 9-D logistic evaluation).
    """

    def __init__(
        self,
        budget: float,
        *,
        lower: Any,
        upper: Any,
        group_size: int = 10,
        tol: float = 1e-4,
        method: str = "bnb",
        tolerance: float = TOLERANCE,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.budget = _v.positive("budget", budget)
        self.lower, self.upper = _box(lower, upper)
        self.group_size = _v.integer("group_size", group_size, low=1)
        self.tol = _v.positive("tol", tol)
        self.method = _v.choice("method", method, ("bnb", "exact_linear", "multistart"))
        self.tolerance = _v.nonnegative("tolerance", tolerance)
        self._rng = _v.rng(rng)
        self.closed_loss = 0.0
        self.open_terms: list[RegressionTerm] = []
        self.open_loss = 0.0
        self.history: list[tuple[RegressionQuery, int]] = []
        self._verts = _vertices(self.lower, self.upper) if self.method == "exact_linear" else None
        self._cache: tuple[RegressionQuery, np.ndarray] | None = None

    @property
    def loss(self) -> float:
        """Odometer: certified upper bound Σ closed groups + open group (Eq. 17, Eq. 26), rounded up."""
        return sum_up(self.closed_loss, self.open_loss)

    @property
    def remaining(self) -> float:
        return self.budget - self.loss

    def _group_loss(self, terms: list[RegressionTerm]) -> float:
        cap = sum_up(*(t.epsilon for t in terms))  # basic composition, rounded up: never below Σ ε
        st = _Stack(terms)
        if self.method == "exact_linear":
            if not (st.lin.all()):
                raise ValueError("method 'exact_linear' needs linear regression queries only")
            assert self._verts is not None  # set for this method
            val = _group_loss_exact_linear(st, self.lower, self.upper, self._verts)
        elif self.method == "multistart":
            val = _group_loss_multistart(st, self.lower, self.upper, self._rng)
        else:
            val = log_likelihood_bounds(terms, self.lower, self.upper, tol=self.tol).certified_loss
        return min(val, cap)

    def look_ahead(self, query: RegressionQuery) -> np.ndarray:
        """Loss bound after accepting ``query`` for each of its two outputs (low, high)."""
        if not isinstance(query, RegressionQuery) or query.dimension != self.lower.size:
            raise ValueError(f"query must be a RegressionQuery of dimension {self.lower.size}")
        if self._cache is not None and self._cache[0] is query:
            return self._cache[1]
        out = np.array(  # rounded up: a bound that is never below the sum of its parts
            [sum_up(self.closed_loss, self._group_loss(self.open_terms + [query.term(j)])) for j in (0, 1)]
        )
        self._cache = (query, out)  # holds the query, so identity cannot be reused by a new object
        return out

    def worst_case(self, query: RegressionQuery) -> float:
        return float(self.look_ahead(query).max())

    def would_accept(self, query: RegressionQuery) -> bool:
        """Both outputs' certified loss bounds ≤ the budget (less ``tolerance``, which only refuses more)."""
        return bool(self.worst_case(query) <= _budget_limit(self.budget, self.tolerance))

    def submit(self, query: RegressionQuery, output: Any) -> float:
        """Commit an accepted query and its output (0/low or 1/high); returns the odometer."""
        if not self.would_accept(query):
            raise QueryRejected("query: the filter rejects this query (budget would be exceeded for some output)")
        term = query.term(output)
        la = self.look_ahead(query)
        self.open_terms.append(term)
        self.open_loss = up(float(la[term.output]) - self.closed_loss)  # closed + open stays ≥ the bound
        self.history.append((query, term.output))
        self._cache = None
        if len(self.open_terms) == self.group_size:
            self.closed_loss = sum_up(self.closed_loss, self.open_loss)
            self.open_terms, self.open_loss = [], 0.0
        return self.loss
