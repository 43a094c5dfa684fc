"""BR-DP with subsampling (Jiang et al. 2024, Sec. 7: Thm. 4, Prop. 6, Eq. (13), Alg. 4): privacy amplification
by Poisson subsampling, the sampling error of count / sum / mean queries, the acceptance of the subsampled
estimator and the optimal sampling rate.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

from scipy import integrate, special

from dpcore import _validate as _v
from dpcore.brdp._common import _SQRT2, Kernel, _delta, _eps_pos, _kernel, _q, _scale, _sens, _theta
from dpcore.brdp.budget_split import _alg2
from dpcore.brdp.kernels import _acc, _den, _p_theta, _pdf


def amplify(epsilon: float, delta: float, *, rate: float) -> tuple[float, float]:
    """Thm. 4: an (eps, delta)-DP mechanism on a rate-p subsample is (ln(1 + p(e^eps - 1)), p delta)-DP."""
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    p = _v.probability("rate", rate, low_open=True)
    if e > 30:  # log space: ln(1 + p(e^eps - 1)) = eps + ln(p + (1 - p) e^-eps)
        return e + math.log(p + (1 - p) * math.exp(-e)), p * dl
    return float(math.log1p(p * math.expm1(e))), p * dl


def deamplify(epsilon: float, delta: float, *, rate: float) -> tuple[float, float]:
    """Inverse of Thm. 4 (the direction Sec. 7's prose also writes eps'): the inner budget
    (ln(1 + (e^eps - 1)/p), delta/p)."""
    e = _v.nonnegative("epsilon", epsilon)
    dl = _v.probability("delta", delta)
    p = _v.probability("rate", rate, low_open=True)
    if dl / p >= 1:
        raise ValueError(f"rate must exceed delta = {dl:g} so that the inner delta/p < 1, got {rate!r}")
    if e > 30:  # log space: ln(1 + (e^eps - 1)/p) = eps + ln((1 - e^-eps)/p + e^-eps)
        return e + math.log(-math.expm1(-e) / p + math.exp(-e)), dl / p
    return float(math.log1p(math.expm1(e) / p)), dl / p


def sampling_error_std(
    query: Literal["sum", "average", "count"],
    *,
    rate: float,
    n_records: int,
    sigma_x: float = 1.0,
    p_c: float = 0.5,
) -> float:
    """Prop. 6: std of the sampling error E (fixed-size sampling without replacement, x_i ~ N(mu, sigma_x^2)).

    sum: sigma_x sqrt(|X|(1-p)/p); average: sigma_x sqrt((1-p)/(p|X|)); count: sqrt(|X|(1-p)p_c(1-p_c)/p).
    (App. G has two wrong intermediate variance lines; its final formulas are right.)
    """
    query = _v.choice("query", query, ("sum", "average", "count"))
    p = _v.probability("rate", rate, low_open=True)
    n = _v.integer("n_records", n_records, low=1)
    sx = _v.nonnegative("sigma_x", sigma_x)
    pc = _v.probability("p_c", p_c)
    f = (1 - p) / p
    if query == "sum":
        return sx * math.sqrt(n * f)
    if query == "average":
        return sx * math.sqrt(f / n)
    return math.sqrt(n * f * pc * (1 - pc))


def subsampled_acceptance(
    *,
    scale: float,
    theta: float,
    q: float,
    sigma_e: float,
    kernel: Kernel = "gaussian",
    variant: Literal["true", "corrected", "as_printed"] = "true",
) -> float:
    """Acceptance Pr(|E + N_brdp| <= theta) of the subsampled estimator (Prop. 7, eq. 13).

    ``"true"``: int f_brdp(n)[Phi((theta-n)/sigma_E) - Phi((-theta-n)/sigma_E)] dn: Gaussian kernel in closed
    form (bivariate-normal rectangle by Owen's T function, Owen 1956), Laplace by quadrature over the pieces.
    ``"corrected"``: eq. (13) with q and 1 - q swapped back (as in the corrected eq. (10)),
    1/(q + (1-q)/P_tot), P_tot the N(0, sigma_y^2 + sigma_E^2) mass of [-theta, theta] (Gaussian kernel; it
    wrongly assumes the recycler bounds E + N).
    ``"as_printed"``: 1/(1 - q + q/P_tot).
    """
    kernel = _kernel(kernel)
    s, th, q = _scale(scale), _theta(theta), _q(q)
    se = _v.nonnegative("sigma_e", sigma_e)
    variant = _v.choice("variant", variant, ("true", "corrected", "as_printed"))
    if variant != "true":
        if kernel != "gaussian":
            raise ValueError("kernel must be 'gaussian' for eq. (13) (variant 'corrected'/'as_printed')")
        ptot = math.erf(th / (math.hypot(s, se) * _SQRT2))
        return 1 / (q + (1 - q) / ptot) if variant == "corrected" else 1 / (1 - q + q / ptot)
    p = _p_theta(kernel, s, th)
    if se == 0:
        return _acc(p, q)
    den = _den(p, q)
    if kernel == "gaussian":
        # closed form: with X = N/s, Y = (N + E)/tau (tau^2 = s^2 + sigma_E^2, corr rho = s/tau), the in-bound
        # part J = P(|N| <= theta, |N + E| <= theta) is a bivariate-normal rectangle; Owen's (1956) T-function
        # formula at its four corners (the Phi terms cancel) gives, with h = theta/s, k = theta/tau,
        # J = 1 - 2[T(k, sigma_E/s) + T(h, 2s/sigma_E) + T(k, (2s^2 + sigma_E^2)/(s sigma_E))]; the whole line
        # gives P(|N + E| <= theta) = erf(k/sqrt 2), the out-of-bound pieces the rest.
        tau = math.hypot(s, se)
        h, k = th / s, th / tau
        t_sum = float(
            special.owens_t(k, se / s)
            + special.owens_t(h, 2 * s / se)
            + special.owens_t(k, (2 * s * s + se * se) / (s * se))
        )
        j_in = min(max(1.0 - 2.0 * t_sum, 0.0), 1.0)
        ptot = math.erf(k / _SQRT2)
        return min(1.0, max(0.0, ((1 - q) * ptot + q * j_in) / den))

    def f(n: float) -> float:
        w = 1.0 if abs(n) <= th else 1 - q
        g = float(special.ndtr((th - n) / se) - special.ndtr((-th - n) / se))
        return float(_pdf(kernel, n, s)) * w * g

    # beyond theta + 40 s the kernel's mass is below e^-40 / 2; beyond theta + 13 sigma_E the Gaussian factor
    # is below Phi(-13) ~ 6e-39: integrating over the shorter span keeps quad's absolute tolerance reachable
    # (split where the integrand has a kink (0, +-theta) or changes on the scales s, sigma_E, so quad does not
    # step over a narrow peak)
    span = th + min(40 * s, 13 * se)
    cuts = {0.0, th, span}
    for c in (th - 10 * se, th - se, th + se, th + 10 * se, 10 * s, s, th + s, th + 10 * s):
        cuts.add(c)
    pos = sorted(c for c in cuts if 0 <= c <= span)
    edges = sorted({-c for c in pos} | set(pos))
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        total += integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-10, limit=200)[0]
    return min(1.0, total / den)


@dataclass(frozen=True)
class SubsamplingPlan:
    """Result of Alg. 4: sampling rate and the inner BR-DP parameters.

    ``acceptance`` is what the mode optimised (paper: eq. 13 corrected; corrected mode: the true acceptance);
    ``true_acceptance`` is always Pr(|E + N_brdp| <= theta) of the mechanism Thm. 4 covers.
    """

    mode: str
    query: str
    rate: float
    epsilon_in: float
    delta_in: float
    kernel_sensitivity: float
    epsilon_y: float
    q: float
    sigma_y: float
    sigma_e: float
    acceptance: float
    eq13_acceptance: float
    true_acceptance: float


def optimal_sampling_rate(
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    theta: float,
    n_records: int,
    query: Literal["sum", "average", "count"],
    sigma_x: float = 10.0,
    p_c: float = 0.1,
    mode: Literal["paper", "corrected"] = "paper",
    tol: float = 1e-3,
) -> SubsamplingPlan:
    """Alg. 4 (Gaussian kernel): sampling rate p maximising the acceptance of subsampled BR-DP.

    For each p: inner budget from Thm. 4 inverted, sigma_E from Prop. 6 (Alg. 4 prints "prop. 7"),
    eps_y and q from Alg. 2/1 at the inner budget.
    ``mode="paper"``: kernel sensitivity Delta_f and objective eq. (13) corrected (reproduces Fig. 6).
    ``mode="corrected"``: sensitivity Delta_f/p of the rescaled estimator and the true
    acceptance.  Ternary search on [p_min, 1] as printed (a *local* search: with
    eq. (13) the degenerate corner q = 1 at tiny p reports acceptance 1), then the better of its
    result and p = 1; p_min = max(1/|X|, 2 delta, 1e-4).
    """
    e = _eps_pos(epsilon)
    dl = _delta(delta)
    d, th = _sens(sensitivity), _theta(theta)
    n = _v.integer("n_records", n_records, low=1)
    query = _v.choice("query", query, ("sum", "average", "count"))
    sx = _v.nonnegative("sigma_x", sigma_x)
    pc = _v.probability("p_c", p_c)
    mode = _v.choice("mode", mode, ("paper", "corrected"))
    tol = _v.positive("tol", tol)
    cache: dict[float, SubsamplingPlan] = {}

    def ev(p: float) -> SubsamplingPlan:
        p = float(min(1.0, p))
        if p not in cache:
            ei, di = (e, dl) if p >= 1 else deamplify(e, dl, rate=p)
            se = sampling_error_std(query, rate=p, n_records=n, sigma_x=sx, p_c=pc) if p < 1 else 0.0
            dk = d if mode == "paper" else d / p
            if mode == "paper":
                p_fn = lambda s: math.erf(th / (math.hypot(s, se) * _SQRT2))  # noqa: E731
                ey, s, q, _ = _alg2("gaussian", ei, di, dk, th, "analytic", "corrected", p_fn=p_fn, n_grid=24)
            else:
                ey, s, q, _ = _alg2("gaussian", ei, di, dk, th, "analytic", "corrected", n_grid=24)
            eq13 = subsampled_acceptance(scale=s, theta=th, q=q, sigma_e=se, variant="corrected")
            # the true acceptance is what corrected mode optimises; paper mode needs it only for the
            # returned plan, so it is filled in after the search (NaN placeholder)
            true = (
                subsampled_acceptance(scale=s, theta=th, q=q, sigma_e=se, variant="true")
                if mode == "corrected"
                else math.nan
            )
            cache[p] = SubsamplingPlan(
                mode=mode,
                query=query,
                rate=p,
                epsilon_in=ei,
                delta_in=di,
                kernel_sensitivity=dk,
                epsilon_y=float(ey),
                q=q,
                sigma_y=s,
                sigma_e=se,
                acceptance=eq13 if mode == "paper" else true,
                eq13_acceptance=eq13,
                true_acceptance=true,
            )
        return cache[p]

    def done(sp: SubsamplingPlan) -> SubsamplingPlan:
        if not math.isnan(sp.true_acceptance):
            return sp
        true = subsampled_acceptance(scale=sp.sigma_y, theta=th, q=sp.q, sigma_e=sp.sigma_e, variant="true")
        return dataclasses.replace(sp, true_acceptance=true)

    p_min = max(1.0 / n, 2 * dl, 1e-4)
    if p_min >= 1:
        return done(ev(1.0))
    lo, hi = p_min, 1.0
    while hi - lo > tol:  # Alg. 4 lines 2-8: ternary search (local, as printed)
        p1, p2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if ev(p1).acceptance < ev(p2).acceptance:
            lo = p1
        else:
            hi = p2
    ev(0.5 * (lo + hi))
    ev(1.0)
    best = max(cache, key=lambda k: (cache[k].acceptance, k))
    return done(cache[best])
