"""Unit tests of dpcore.accounting: values, edge cases, bad inputs. Independent checks use quadrature."""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

import dpcore
from dpcore import accounting as acc


def hockey_stick_quad(eps: float, p, q, lo: float, hi: float, breaks=()) -> float:
    """δ(ε) = ∫ max(0, p − e^ε q) dx by adaptive quadrature (independent of the closed forms)."""
    f = lambda x: max(0.0, p(x) - math.exp(eps) * q(x))  # noqa: E731
    pts = sorted({lo, hi, *breaks})
    return sum(integrate.quad(f, a, b, limit=200, epsabs=1e-13)[0] for a, b in zip(pts, pts[1:], strict=False))


@pytest.mark.parametrize("eps", [-3.0, -1.0, 0.0, 0.5, 2.0, 4.0])
@pytest.mark.parametrize("sigma,sens", [(1.0, 1.0), (3.7, 2.0)])
def test_gaussian_delta_matches_quadrature(eps, sigma, sens):
    p = stats.norm(0, sigma).pdf
    q = stats.norm(sens, sigma).pdf
    expect = hockey_stick_quad(eps, p, q, -40 * sigma, 40 * sigma + sens, breaks=(0.0, sens / 2, sens))
    assert dpcore.gaussian_delta(eps, sigma=sigma, sensitivity=sens) == pytest.approx(expect, abs=1e-9)


@pytest.mark.parametrize("eps", [-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5])
def test_laplace_delta_matches_quadrature_including_the_low_branch(eps):
    b, sens = 0.7, 1.0
    p = stats.laplace(0, b).pdf
    q = stats.laplace(sens, b).pdf
    expect = hockey_stick_quad(eps, p, q, -60 * b, 60 * b + sens, breaks=(0.0, sens))
    assert dpcore.laplace_delta(eps, scale=b, sensitivity=sens) == pytest.approx(expect, abs=1e-10)


def test_profiles_at_infinities_and_vectorised_shape():
    e = np.array([-np.inf, -1.0, 0.0, 1.0, np.inf])
    g = dpcore.gaussian_delta(e, sigma=2.0)
    lp = dpcore.laplace_delta(e, scale=2.0)
    lc = dpcore.laplace_delta(e, scale=2.0, compositions=4)
    for d in (g, lp, lc):
        assert d.shape == e.shape
        assert d[0] == 1.0 and d[-1] == 0.0
    assert isinstance(dpcore.gaussian_delta(1.0, sigma=1.0), float)


def test_laplace_low_branch_is_one_minus_exp_eps():
    # δ_L(ε) = 1 − e^ε for ε < −Δ/b (the whole space as the event), for single and composed mechanisms
    for t in (1, 3):
        eps = -2.0 * t - 0.5
        assert dpcore.laplace_delta(eps, scale=0.5, compositions=t) == pytest.approx(-math.expm1(eps), rel=1e-12)


def test_gaussian_composition_equals_sqrt_t_sensitivity():
    e = np.linspace(-1, 6, 9)
    a = dpcore.gaussian_delta(e, sigma=2.0, sensitivity=0.5, compositions=16)
    b = dpcore.gaussian_delta(e, sigma=2.0, sensitivity=2.0)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)


@pytest.mark.parametrize("eps,sigma", [(30.0, 1.0), (20.0, 0.5), (8.0, 1.0), (0.001, 50.0)])
def test_gaussian_delta_tiny_values_keep_relative_precision(eps, sigma):
    # 60-digit mpmath evaluation of the closed form: no cancellation, so a true reference far in the tail
    mpmath.mp.dps = 60
    mu = mpmath.mpf(1) / sigma
    ref = mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)
    assert dpcore.gaussian_delta(eps, sigma=sigma) == pytest.approx(float(ref), rel=1e-9)


def test_analytic_sigma_is_tight_and_smaller_than_classic():
    for eps, delta in [(0.1, 1e-5), (1.0, 1e-5), (5.0, 1e-10), (0.5, 0.01)]:
        s = dpcore.gaussian_sigma(eps, delta)
        assert dpcore.gaussian_delta(eps, sigma=s) <= delta
        assert dpcore.gaussian_delta(eps, sigma=s * (1 - 1e-9)) > delta
        assert s < dpcore.gaussian_sigma(eps, delta, method="classic")


def test_analytic_sigma_at_eps_zero_is_finite():
    # at ε = 0, δ_G(0) = 2Φ(μ/2) − 1, so σ = Δ / (2 Φ⁻¹((1+δ)/2))
    expect = 1.0 / (2 * stats.norm.ppf((1 + 1e-5) / 2))
    assert dpcore.gaussian_sigma(0.0, 1e-5) == pytest.approx(expect, rel=1e-9)


def test_sigma_scales_linearly_with_sensitivity():
    assert dpcore.gaussian_sigma(1.0, 1e-6, sensitivity=3.0) == pytest.approx(3 * dpcore.gaussian_sigma(1.0, 1e-6))


def test_laplace_scale_formula():
    assert dpcore.laplace_scale(2.0, sensitivity=4.0) == 2.0
    b = dpcore.laplace_scale(1.0, delta=0.1)
    # Laplace(b) is (1, 0.1)-DP and the calibration is tight
    assert dpcore.laplace_delta(1.0, scale=b) == pytest.approx(0.1, abs=1e-12)


@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.05, 0.3, 0.9])
def test_gaussian_epsilon_inverts_delta(delta):
    for sigma, t in [(0.5, 1), (2.0, 7), (10.0, 1000)]:
        e = dpcore.gaussian_epsilon(delta, sigma=sigma, compositions=t)
        assert dpcore.gaussian_delta(e, sigma=sigma, compositions=t) <= delta * (1 + 1e-9)
        assert dpcore.gaussian_delta(e - 1e-7, sigma=sigma, compositions=t) > delta


def test_gaussian_epsilon_can_be_negative_and_infinite():
    # σ = 10: δ(0) = 2Φ(0.05) − 1 ≈ 0.04, so asking for δ = 0.5 needs a negative ε
    e = dpcore.gaussian_epsilon(0.5, sigma=10.0)
    assert e < 0
    assert dpcore.gaussian_delta(e, sigma=10.0) == pytest.approx(0.5, rel=1e-9)
    assert dpcore.gaussian_epsilon(0.0, sigma=1.0) == math.inf
    assert dpcore.gaussian_epsilon(1.0, sigma=1.0) == -math.inf


def test_gaussian_epsilon_vectorised_over_compositions():
    t = np.arange(1, 51)
    e = dpcore.gaussian_epsilon(1e-5, sigma=3.0, compositions=t)
    assert e.shape == (50,) and np.all(np.diff(e) > 0)


def test_gaussian_epsilon_scalar_and_vectorised_roots_agree():
    """A few (δ, T) pairs take scalar brentq, many take scipy's vectorised Chandrupatla search: same roots (to the
    search tolerance 1e-13 + 1e-14·|ε|), each checked against the closed form δ_G independently of both."""
    rng = np.random.default_rng(7)
    deltas = 10.0 ** rng.uniform(-300, -0.05, 40)
    for sigma, t in [(0.05, 1), (1.0, 3), (30.0, 1000)]:
        many = dpcore.gaussian_epsilon(deltas, sigma=sigma, compositions=t)  # 40 roots: vectorised path
        for d, e_many in zip(deltas, many, strict=True):
            e_one = dpcore.gaussian_epsilon(float(d), sigma=sigma, compositions=t)  # one root: scalar path
            assert abs(e_one - e_many) <= 2 * (1e-13 + 1e-14 * abs(e_many))
            assert dpcore.gaussian_delta(e_one, sigma=sigma, compositions=t) <= d * (1 + 1e-12)


@pytest.mark.parametrize("delta", [0.0, 1e-6, 0.2, 0.7])
def test_laplace_epsilon_single_inverts_closed_form(delta):
    e = dpcore.laplace_epsilon(delta, scale=0.8)
    assert dpcore.laplace_delta(e, scale=0.8) == pytest.approx(delta, abs=1e-12)


def test_epsilon_for_delta_generic_root():
    f = lambda e: dpcore.gaussian_delta(e, sigma=2.0)  # noqa: E731
    assert acc.epsilon_for_delta(f, 1e-4) == pytest.approx(dpcore.gaussian_epsilon(1e-4, sigma=2.0), abs=1e-9)
    assert acc.epsilon_for_delta(lambda e: 0.2 if e < math.inf else 0.2, 0.1) == math.inf
    assert acc.epsilon_for_delta(f, 1.0) == -math.inf


def test_zcdp_round_trip_and_reference():
    rho = dpcore.dp_to_zcdp(10.0, 1e-6)
    assert dpcore.zcdp_to_dp(rho, 1e-6) == pytest.approx(10.0, rel=1e-14)
    assert dpcore.gaussian_rho(2.0, sensitivity=1.0) == 0.125
    assert acc.dp_to_zcdp_bun_steinke(0.0, 1e-6) == 0.0


def cks_epsilon_by_minimisation(rho: float, delta: float) -> float:
    """Canonne, Kamath & Steinke 2020, Cor. 13 minimised over α with 50-digit mpmath (independent of the Newton
    root)."""
    mpmath.mp.dps = 50
    r, big_l = mpmath.mpf(rho), -mpmath.log(mpmath.mpf(delta))

    def f(log_x):
        a = 1 + mpmath.exp(log_x)
        return a * r + (big_l + (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)) / (a - 1)

    grid = [mpmath.mpf(u) / 4 for u in range(-200, 200)]
    u0 = min(grid, key=f)
    u = mpmath.findroot(lambda v: mpmath.diff(f, v), u0)
    return float(max(f(u), 0))


@pytest.mark.parametrize(
    "rho,delta",
    [(2.556, 1e-10), (0.0749, 1e-10), (0.001, 1e-5), (1e-8, 1e-5), (100.0, 1e-300), (1e-8, 1e-300), (0.3, 0.4)],
)
def test_tight_zcdp_conversion_matches_a_direct_minimisation(rho, delta):
    assert dpcore.zcdp_to_dp(rho, delta) == pytest.approx(cks_epsilon_by_minimisation(rho, delta), rel=1e-12)


def test_tight_zcdp_reference_numbers():
    # US Census 2020 redistricting data: persons ρ = 2.556 and housing units ρ = 0.0749 at δ = 1e-10
    assert dpcore.zcdp_to_dp(2.556, 1e-10) == pytest.approx(17.14, abs=0.005)
    assert dpcore.zcdp_to_dp(0.0749, 1e-10) == pytest.approx(2.47, abs=0.005)
    assert dpcore.zcdp_to_dp(0.001, 1e-5) == pytest.approx(0.157, abs=0.0005)
    assert acc.zcdp_to_dp_bun_steinke(2.56, 1e-10) == pytest.approx(2.56 + 2 * math.sqrt(2.56 * math.log(1e10)))


def test_tight_zcdp_at_epsilon_zero_admits_a_tiny_rho():
    # ε = 0: the bound ε(ρ) tends to ln(1 − δ) < 0 as ρ → 0, so a tiny ρ > 0 still meets (0, δ)
    rho = dpcore.dp_to_zcdp(0.0, 1e-6)
    assert 0 < rho < 1e-10
    assert dpcore.zcdp_to_dp(rho, 1e-6) == 0.0
    assert dpcore.zcdp_to_dp(rho * 1.01, 1e-6) > 0.0
    assert dpcore.zcdp_to_dp(0.0, 1e-6) == 0.0


def test_posterior_bound_is_odds_times_e_eps():
    p = np.array([0.01, 0.3, 0.5])
    post = dpcore.posterior_bound(p, 1.2)
    np.testing.assert_allclose(post / (1 - post), math.exp(1.2) * p / (1 - p), rtol=1e-12)


def test_pld_delta_on_randomized_response_matches_closed_form():
    # Randomized response with e^ε0 : 1 has losses ±ε0 with P-masses e^ε0/(1+e^ε0), 1/(1+e^ε0): exact 2-fold δ.
    e0 = 0.8
    pa = math.exp(e0) / (1 + math.exp(e0))
    losses, probs = np.array([e0, -e0]), np.array([pa, 1 - pa])
    eps = 0.5
    # two-fold: losses 2e0 (pa²), 0 (2 pa(1−pa)), −2e0 ((1−pa)²)
    exact = pa**2 * (1 - math.exp(eps - 2 * e0))
    got = dpcore.pld_delta(eps, losses=losses, probabilities=probs, compositions=2, discretization=1e-4)
    assert got == pytest.approx(exact, abs=2e-4)
    assert got >= exact - 1e-12  # pessimistic


BAD_CALLS = [
    (lambda: dpcore.gaussian_sigma(-1, 1e-5), "epsilon"),
    (lambda: dpcore.gaussian_sigma(1, 0), "delta"),
    (lambda: dpcore.gaussian_sigma(1, 1), "delta"),
    (lambda: dpcore.gaussian_sigma(1, 1e-5, method="magic"), "method"),
    (lambda: dpcore.gaussian_sigma(0, 1e-5, method="classic"), "epsilon"),
    (lambda: dpcore.gaussian_sigma(1, 1e-5, sensitivity=0), "sensitivity"),
    (lambda: dpcore.laplace_scale(math.nan), "epsilon"),
    (lambda: dpcore.laplace_scale(1, delta=1), "delta"),
    (lambda: dpcore.gaussian_delta(math.nan, sigma=1), "epsilon"),
    (lambda: dpcore.gaussian_delta(1, sigma=-1), "sigma"),
    (lambda: dpcore.gaussian_delta(1, sigma=1, compositions=0), "compositions"),
    (lambda: dpcore.laplace_delta(1, scale=0), "scale"),
    (lambda: dpcore.laplace_delta(1, scale=1, compositions=2.5), "compositions"),
    (lambda: dpcore.gaussian_epsilon(2.0, sigma=1), "delta"),
    (lambda: dpcore.gaussian_epsilon(1e-5, sigma=1, compositions=0), "compositions"),
    (lambda: dpcore.laplace_epsilon(-0.1, scale=1), "delta"),
    (lambda: dpcore.zcdp_to_dp(-1.0, 1e-5), "rho"),
    (lambda: dpcore.dp_to_zcdp(1.0, 0.0), "delta"),
    (lambda: dpcore.zcdp_to_dp(math.inf, 1e-5), "rho"),
    (lambda: dpcore.dp_to_zcdp(-1.0, 1e-5), "epsilon"),
    (lambda: acc.zcdp_to_dp_bun_steinke(1.0, 1.0), "delta"),
    (lambda: acc.dp_to_zcdp_bun_steinke(math.nan, 1e-5), "epsilon"),
    (lambda: acc.laplace_discretization(0.0), "eps0"),
    (lambda: dpcore.laplace_delta(1.0, scale=1.0, compositions=3, discretization=0.5), "discretization"),
    (lambda: dpcore.posterior_bound(1.5, 1.0), "prior"),
    (lambda: acc.epsilon_for_delta("not callable", 0.1), "delta_fn"),
    (lambda: dpcore.pld_delta(0.0, losses=[1.0], probabilities=[0.5]), "sum to 1"),
]


@pytest.mark.parametrize("call,name", BAD_CALLS)
def test_bad_inputs_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_composed_laplace_accepts_unsorted_epsilon_and_matches_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    e = np.array([3.0, -0.5, 1.0, 0.0, 7.0, -3.0])
    ours = dpcore.laplace_delta(e, scale=1.0, compositions=5)
    h = acc.laplace_discretization(1.0, 5)
    ref = pld.from_laplace_mechanism(1.0, value_discretization_interval=h).self_compose(5)
    theirs = np.array([ref.get_delta_for_epsilon(float(x)) for x in e])
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_pld_profile_public_fallback_agrees_with_fast_path():
    from dp_accounting.pld import privacy_loss_distribution as pld

    p = pld.from_laplace_mechanism(0.8).self_compose(3)
    e = np.linspace(-4, 5, 23)[::-1]
    fast = acc.pld_profile(p)(e)
    slow = np.array([p.get_delta_for_epsilon(float(x)) for x in e])
    np.testing.assert_allclose(fast, slow, atol=1e-12)


@pytest.mark.parametrize("eps0,t", [(20.0, 1000), (8.0, 1000), (1.0, 50), (0.1, 1000)])
def test_laplace_epsilon_is_the_smallest_epsilon_meeting_delta(eps0, t):
    # dp_accounting's own get_epsilon_for_delta over-reports by ~1 at (20, 1000); ours must be tight
    e = dpcore.laplace_epsilon(1e-5, scale=1 / eps0, compositions=t)
    assert dpcore.laplace_delta(e, scale=1 / eps0, compositions=t) <= 1e-5 * (1 + 1e-9)
    assert dpcore.laplace_delta(e - 1e-6 * max(1.0, e), scale=1 / eps0, compositions=t) > 1e-5


def test_dp_accounting_version_check_names_versions_and_range():
    from dpcore.accounting import _dp_accounting as dpa

    dpa.check_version("0.4.4")
    dpa.check_version("0.6.0")
    for bad in ("0.4.3", "0.7.0", "1.0"):
        with pytest.raises(ImportError, match=rf"{bad}.*>=0.4.4,<0.7"):
            dpa.check_version(bad)


def test_every_public_name_is_importable():
    for name in ("MAX_PLD_COMPOSITIONS", "MAX_CALIBRATION_EPSILON", "MAX_PLD_EPSILON0", "PLD_DISCRETIZATION"):
        assert hasattr(acc, name), name
    for name in acc.__all__:
        assert hasattr(acc, name), name


def test_dp_accounting_imported_in_one_module_only():
    import pathlib

    root = pathlib.Path(acc.__file__).parent
    importers = sorted(
        p.name
        for p in root.glob("*.py")
        if "import dp_accounting" in p.read_text() or "from dp_accounting" in p.read_text()
    )
    assert importers == ["_dp_accounting.py"]


def test_adaptive_grid_holds_plus_minus_eps0_and_shrinks_with_eps0():
    for eps0 in (1e-4, 0.0023, 0.3, 1.0, 20.0):
        h = acc.laplace_discretization(eps0)
        cells = eps0 / h
        assert abs(cells - round(cells)) < 1e-9 and round(cells) >= 20
    assert acc.laplace_discretization(1e-3) < acc.laplace_discretization(1.0) < acc.laplace_discretization(20.0)
