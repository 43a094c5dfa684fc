"""Huge and tiny finite numbers over the public dpcore API: ValueError naming the parameter, or a clean result.

Reuses the FAST table of ``test_public_api.py``: each numeric argument in turn is replaced by a finite but extreme
value (±1e300, 1e200, 1e100, 1e30, 1e15, 5e-324 — the smallest subnormal — and 1e-300; integer arguments by 10**18,
10**9 and -10**18). The call must raise ``ValueError`` (the argument is outside the documented supported range) or
return a NaN-free result without RuntimeWarning, OverflowError, ZeroDivisionError, MemoryError or a root finder's
"Failed to converge", and within a few seconds (an alarm turns a hang into a failure; an address-space limit turns
a runaway allocation into a MemoryError). A ValueError must name the parameter (project rule: "ValueError naming
the parameter and the valid range").

Nothing is excluded: ``ldp.*`` is swept too (size limits and extreme ε: :func:`test_ldp_limits_and_extremes`).

``brdp.*`` is swept again in variants the table leaves out (:data:`BRDP_VARIANTS`): the Laplace kernel,
q = 1 (every draw outside [-θ, θ] recycled: the release probability 1 - (1 - p_θ)q must not round to 0 at a
tiny θ/scale), classic calibration, the paper's accountant, and plans with the Laplace kernel or q = 1.
"""

from __future__ import annotations

import dataclasses
import inspect
import resource
import signal
import time
import warnings

import pytest

from dpcore import brdp
from tests.property.test_public_api import FAST, PLAN, _call_hostile

#: Modules not swept here (none: see the module docstring).
EXCLUDED_PREFIXES: tuple[str, ...] = ()
FLOATS = [1e300, -1e300, 1e200, 1e100, 1e30, 1e15, 5e-324, 1e-300]
INTS = [10**18, 10**9, -(10**18)]
#: A single call may take at most this long (seconds) before it counts as a hang.
ALARM_S = 10
#: Extra address space a single call may take (bytes): a huge allocation fails fast as MemoryError (reported as a
#: failure) instead of swamping the shared machine.
EXTRA_MEMORY = 3 * 2**30


def _vm_size() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


CASES = [c for c in FAST if not c.name.startswith(EXCLUDED_PREFIXES)]


def _brdp_variants() -> list:
    """The FAST brdp cases with one setting changed: kernel, q = 1, classic calibration, accountant, plan."""
    lap_plan = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="laplace")
    q1_plan = brdp.make_plan(
        epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", epsilon_y=0.8, q=1.0
    )
    out = []
    for case in FAST:
        if not case.name.startswith("brdp."):
            continue
        kw = case.kwargs
        changes = []
        eq13 = kw.get("variant") in ("corrected", "as_printed")  # subsampled_acceptance: eq. (13) is Gaussian only
        if kw.get("kernel") == "gaussian" and not eq13:
            changes.append({"kernel": "laplace"})
        if "q" in kw and kw["q"] is not None:
            changes += [{"q": 1.0}, {"q": 1.0, "kernel": "laplace"}] if "kernel" in kw else [{"q": 1.0}]
        if kw.get("calibration") == "analytic":
            changes.append({"calibration": "classic", **({"kernel": "laplace"} if "kernel" in kw else {})})
        if kw.get("accountant") == "exact" and "objective" in kw:
            changes.append({"accountant": "paper"})
        for key, plan_kw in (("plan", kw.get("plan")), ("#0", case.args[0] if case.args else None)):
            if plan_kw is PLAN:
                changes += [{key: lap_plan, "label": "laplace plan"}, {key: q1_plan, "label": "q = 1 plan"}]
        for change in changes:
            label = change.pop("label", None) or ", ".join(f"{k}={v}" for k, v in change.items())
            args = tuple(change.get(f"#{i}", a) for i, a in enumerate(case.args))
            kwargs = {k: change.get(k, v) for k, v in kw.items()}
            out.append(dataclasses.replace(case, name=f"{case.name}[{label}]", args=args, kwargs=kwargs))
    return out


BRDP_VARIANTS = _brdp_variants()
#: ValueErrors that name the *other* parameter of an order constraint (low ≤ high) instead of the fuzzed one.
NAMES_PARTNER = {("data.binary_scores", "high")}


def _param_name(case, param: str) -> str:
    """The keyword name of a fuzzed argument ("#0" → the first positional parameter's name)."""
    if not param.startswith("#"):
        return param
    sig = inspect.signature(case.fn)
    pos = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return pos[int(param[1:])].name


def _unnamed_value_error(case, param: str, value) -> str | None:
    """When the call raises ValueError, a description if its message does not name the parameter, else None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case.call(**{param: value})
    except ValueError as exc:
        name = _param_name(case, param)
        if name not in str(exc) and (case.name, name) not in NAMES_PARTNER:
            return f"ValueError does not name {name!r}: {str(exc)[:120]}"
    except Exception:  # noqa: BLE001 — reported by _call_hostile
        return None
    return None


def _numeric_params(case) -> list[tuple[str, object]]:
    out = []
    for p in case.params():
        orig = dict(enumerate(case.args)).get(int(p[1:])) if p.startswith("#") else case.kwargs.get(p)
        if isinstance(orig, bool) or not isinstance(orig, int | float):
            continue
        out.append((p, orig))
    return out


def _sweep(case) -> tuple[list[str], float]:
    failures = []
    t0 = time.perf_counter()

    def on_alarm(*_):
        raise TimeoutError(f"took > {ALARM_S} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    limits = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_vm_size() + EXTRA_MEMORY, limits[1]))
    try:
        for param, orig in _numeric_params(case):
            for value in INTS if isinstance(orig, int) else FLOATS:
                signal.alarm(ALARM_S)
                try:
                    msg = _call_hostile(case, param, value) or _unnamed_value_error(case, param, value)
                except TimeoutError as exc:  # raised outside the call's own except clauses
                    msg = str(exc)
                finally:
                    signal.alarm(0)
                if msg is not None:
                    failures.append(f"{case.name}({param}={value!r}): {msg[:160]}")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limits)
        signal.signal(signal.SIGALRM, old)
    return failures, time.perf_counter() - t0


def test_cases_cover_the_modules():
    """The sweep is not vacuous: every hardened module contributes cases with numeric arguments."""
    names = {c.name.split(".")[0] if "." in c.name else "accounting" for c in CASES if _numeric_params(c)}
    assert {"accounting", "svt", "noise_reduction", "filters", "r2dp", "data", "ldp"} <= names


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_huge_and_tiny_values(case):
    failures, _ = _sweep(case)
    assert not failures, "\n".join(failures)


def test_brdp_variants_cover_the_settings():
    """The variant sweep is not vacuous: each changed setting occurs, on cases with numeric arguments."""
    names = " ".join(c.name for c in BRDP_VARIANTS if _numeric_params(c))
    for label in ("kernel=laplace", "q=1.0", "calibration=classic", "accountant=paper", "laplace plan", "q = 1 plan"):
        assert label in names, label


@pytest.mark.parametrize("case", BRDP_VARIANTS, ids=[c.name for c in BRDP_VARIANTS])
def test_huge_and_tiny_values_brdp_variants(case):
    failures, _ = _sweep(case)
    assert not failures, "\n".join(failures)


def test_range_helpers():
    """The new _validate helpers: limits inclusive, messages name the parameter and the range, ±inf where allowed."""
    import math

    from dpcore import _validate as _v

    assert _v.scale("sigma", 1e-100) == 1e-100 and _v.scale("sigma", 1e100) == 1e100
    for bad in (0.0, 9.9e-101, 1.01e100, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"sigma must .*\[1e-100, 1e\+100\]"):
            _v.scale("sigma", bad)
    assert _v.bounded("epsilon", math.inf, low=0.0, allow_inf=True) == math.inf
    assert _v.bounded("epsilon", 1e100, low=0.0) == 1e100
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 1e\+100\] \(or inf\), got 1e\+101"):
        _v.bounded("epsilon", 1e101, low=0.0, allow_inf=True)
    with pytest.raises(ValueError, match=r"x must be in \[-1e\+100, 1e\+100\], got -1e\+200"):
        _v.bounded("x", -1e200)


def test_ldp_limits_and_extremes():
    """dpcore.ldp at its limits: size caps inclusive with named errors; extreme ε against independent values."""
    import math

    import mpmath
    import numpy as np

    from dpcore import ldp

    # size caps: the cap itself works, one past it is a ValueError naming the parameter and the range
    assert ldp.BayesianPrivacyFilter(1.0, domain_size=ldp.MAX_DOMAIN_SIZE).domain_size == ldp.MAX_DOMAIN_SIZE
    for call, name in [
        (lambda: ldp.BayesianPrivacyFilter(1.0, domain_size=ldp.MAX_DOMAIN_SIZE + 1), "domain_size"),
        (lambda: ldp.running_example_query(1, domain_size=ldp.MAX_DOMAIN_SIZE + 1), "domain_size"),
        (lambda: ldp.randomized_response(1.0, domain_size=ldp.MAX_RR_DOMAIN + 1), "domain_size"),
        (lambda: ldp.rr_accepted_pmf(1.0, 3.0, max_count=ldp.MAX_GRID + 1), "max_count"),
        (
            lambda: ldp.simulate_accepted_counts(
                ldp.randomized_response(1.0), 2.0, true_value=0, n_runs=ldp.MAX_RUNS + 1
            ),
            "n_runs",
        ),
        (lambda: ldp.example3(n_queries=ldp.MAX_EXAMPLE_LENGTH + 1), "n_queries"),
    ]:
        with pytest.raises(ValueError, match=rf"{name} must be an integer in \[\d+, \d+\]"):
            call()
    assert ldp.MAX_RR_DOMAIN**2 <= ldp.MAX_TABLE_CELLS < (ldp.MAX_RR_DOMAIN + 1) ** 2

    # RR stream: m = ⌊ε_G/ε⌋ up to MAX_RR_THRESHOLD vs the gambler's-ruin duration (Feller XIV.3), 40 digits
    eps = 1e-3
    budget = ldp.MAX_RR_THRESHOLD * eps
    m = math.floor(budget / eps + 1e-9)
    assert m >= ldp.MAX_RR_THRESHOLD - 1
    with mpmath.workdps(40):
        p = 1 / (1 + mpmath.exp(-eps))
        q, r = 1 - p, mpmath.exp(-eps)
        duration = m / (q - p) - (2 * m / (q - p)) * (1 - r**m) / (1 - r ** (2 * m))
    assert ldp.rr_expected_accepted(eps, budget) == pytest.approx(float(duration), rel=1e-7)
    for e, b in [(5e-324, 1.0), (1e-300, 1.0), (1.0, 1e15), (eps, 1.01 * (ldp.MAX_RR_THRESHOLD + 1) * eps)]:
        with pytest.raises(ValueError, match=r"budget/epsilon must be below \d+.*budget=.*epsilon="):
            ldp.rr_expected_accepted(e, b)

    # mean estimate beyond e^ε's float range (ε ≥ 700 branch) equals the 60-digit Eq.-5 inversion
    outputs = [-2.0, 3.0, 3.0, -2.0, 3.0]  # Eq.-5 outputs on [low, high] = [-2, 3]: 3/5 high
    for e in (699.0, 700.0, 705.0, 1e4, 1e300):
        with mpmath.workdps(60):
            f = mpmath.mpf(3) / 5
            ref = ((mpmath.exp(e) + 1) * f - 1) / mpmath.expm1(e)
        got = ldp.mean_estimate(outputs, epsilon=e, low=-2.0, high=3.0)
        assert got == pytest.approx(-2 + 5 * float(ref), rel=1e-14)

    # Example 1 closed form e^{nε}/(1 + e^ε)^{2n} near and beyond the overflow of e^ε
    for e in (705.0, 708.0):
        with mpmath.workdps(40):
            ref = mpmath.exp(e) / (1 + mpmath.exp(e)) ** 2
        assert ldp.example1(e, 1).closed_form == pytest.approx(float(ref), rel=1e-12)
    ex = ldp.example1(1e300, 3)
    assert ex.closed_form == 0.0 and ex.loss_balanced == 0.0
    assert ex.loss_all_ones == pytest.approx(6e300, rel=1e-12)  # 2n·ε: every output certain

    # Examples 2-3 at a huge ε: ratios are e^ℓ, +inf past the float range, never an OverflowError
    df = ldp.example3(epsilon=1e30)
    for side in ("0", "1"):
        loss, ratio = df[f"loss_if_{side}"].to_numpy(), df[f"ratio_if_{side}"].to_numpy()
        assert np.array_equal(np.isinf(ratio), loss > math.log(np.finfo(float).max))
    ex2 = ldp.example2(epsilon=1e30)
    assert ex2.loss > 710 and ex2.ratio == math.inf

    # two-point: low/high at ±1e100 (finite width) against Eq. 5 directly; the ends named in errors
    tab = ldp.two_point(2.0, [0.0, 5e99, -1e100], low=-1e100, high=1e100)
    t = np.array([0.5, 0.75, 0.0])
    direct = 1 / (math.exp(2.0) + 1) + t * (math.exp(2.0) - 1) / (math.exp(2.0) + 1)
    assert np.exp(tab.log_prob[:, 1]) == pytest.approx(direct, rel=1e-12)
    with pytest.raises(ValueError, match=r"high must be > low, got low=1e\+30, high=1"):
        ldp.two_point(1.0, [0.5], low=1e30)
    with pytest.raises(ValueError, match=r"low must be in \[-1e\+100, 1e\+100\]"):
        ldp.mean_estimate([1.0], epsilon=1.0, low=-1e300)
    with pytest.raises(ValueError, match=r"values must lie in \[low, high\] = \[0, 1e-300\]"):
        ldp.two_point(1.0, [0.5], high=1e-300)

    # the DC relaxation of a linear term down to the smallest subnormal z: ln z, no overflow warning
    term = ldp.linear_regression_query([0.1, 0.2], epsilon=1.0).term(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sec = ldp.secant_relaxation(term, 5e-324, 0.8, n=5)
    assert sec["f"].iloc[0] == math.log(5e-324) and sec["z"].iloc[-1] == 0.8
