"""Releases of the privacy ledger: one (possibly T-fold) DP release described by its kind and scalars.

Each kind of release is one entry of :data:`RELEASE_KINDS`: how it is validated, its ε at a δ, its zCDP cost and its
privacy-loss distribution. A Gaussian is quoted at the δ its page used (exact ε at that δ, Balle & Wang 2018);
a Brownian noise reduction (Rogers et al. 2023) at the δ of its ex-ante Gaussian with μ = ε_max. zCDP costs:
Gaussian ρ = TΔ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6), ε-DP → ε²/2 (Prop. 1.4), (ε, δ)-DP → δ-approximate
ε²/2-zCDP (Bun & Steinke 2016, §8), noise reduction → ε_max²/2 (a data-independent accountant cannot use ε_T).
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpcore import _validate as _v
from dpcore import accounting as _acc
from dpcore._exact import frac_up

__all__ = [
    "KINDS",
    "RELEASE_KINDS",
    "ReleaseKind",
    "MAX_LABEL",
    "MAX_COMPOSITIONS",
    "MAX_EPSILON",
    "MIN_DELTA",
    "FIELDS",
    "Release",
    "gaussian_release",
    "laplace_release",
    "pure_release",
    "approx_release",
    "noise_reduction_release",
    "zcdp_cost",
]

MAX_LABEL = 80
MAX_COMPOSITIONS = 100_000
MAX_EPSILON = 1000.0  # per run (pure/approx ε, ε_max, Laplace Δ/b, Gaussian Δ/σ); the app's sliders stop at 20
#: Smallest positive δ a release or budget may carry: below it (sub-normal doubles) δ·(1 − share) or ln(1/δ) lose
#: their meaning; no deployment uses a δ anywhere near 1e-300.
MIN_DELTA = 1e-300
FIELDS = ("label", "source", "kind", "epsilon", "delta", "sensitivity", "scale", "compositions", "epsilon_max")
_FORMULA_START = ("=", "+", "-", "@")  # spreadsheet formula injection in an exported CSV


def _text(name: str, value: Any, *, allow_empty: bool = False, max_len: int = MAX_LABEL) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {type(value).__name__}")
    s = value.strip()
    if not s and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    if len(s) > max_len:
        raise ValueError(f"{name} must be at most {max_len} characters, got {len(s)}")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in s):
        raise ValueError(f"{name} must not contain control or invisible characters")
    if s.startswith(_FORMULA_START):
        raise ValueError(f"{name} must not start with {', '.join(_FORMULA_START)} (spreadsheet formulas)")
    return s


def _source(value: Any) -> str:
    s = _text("source", value, allow_empty=True, max_len=40)
    if s and not all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in s):
        raise ValueError(f"source must be a page name (letters, digits, _ or -), got {s!r}")
    return s


def short(value: Any) -> str:
    """A value as an error message shows it: huge integers by their size, not their 400 digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return f"an integer with {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def delta_value(name: str, value: Any, *, allow_zero: bool) -> float:
    """δ in {0} ∪ [MIN_DELTA, 1) (``allow_zero``) or [MIN_DELTA, 1); sub-normal δ is refused, naming ``name``."""
    x = _v.real(name, value, low=0.0, high=1.0, high_open=True)
    if (x == 0 and not allow_zero) or 0 < x < MIN_DELTA:
        rng = f"0 or in [{MIN_DELTA:g}, 1)" if allow_zero else f"in [{MIN_DELTA:g}, 1)"
        raise ValueError(f"{name} must be {rng}, got {short(value)}")
    return x


@functools.lru_cache(maxsize=1024)
def _gauss_eps(delta: float, sigma: float, sensitivity: float) -> float:
    """ε of one Gaussian run at δ (exact, Balle & Wang 2018), cached: pages build their releases on every rerun."""
    return float(_acc.gaussian_epsilon(delta, sigma=sigma, sensitivity=sensitivity))


@dataclass(frozen=True)
class ReleaseKind:
    """How one kind of release is validated and accounted for."""

    name: str
    scale: bool  # carries a noise scale (σ or b)
    epsilon_max: bool  # carries a top level ε_max (noise reduction)
    delta: str  # "zero", "positive" or "any"
    # each function takes a Release of this kind, whose optional fields the kind uses are set (typed Any for that)
    dp_epsilon: Callable[[Any], float]  # ε of one run at the release's δ
    zcdp: Callable[[Any], tuple[float, float, str]]  # (ρ of all T runs, δ_i of all runs, how)
    gaussian_mu2: Callable[[Any], float]  # μ² of its Gaussian part (composes exactly), else 0
    charge_text: Callable[[Any, str], str]  # what the filter's refusal message says it charged
    derived: tuple[Callable[[Any], float], float, str] | None = None  # ε implied by the other fields, rtol, how


def _up(t: int, num: float, den: float, half: int) -> float:
    """T·(num/den)²/half as the smallest float ≥ its exact value: a ρ or μ² that is never rounded down."""
    return frac_up(t * (Fraction(num) / Fraction(den)) ** 2 / half)


def _times(r: Release) -> str:
    return f"T = {r.compositions} × " if r.compositions > 1 else ""


RELEASE_KINDS: dict[str, ReleaseKind] = {
    "gaussian": ReleaseKind(
        "gaussian",
        scale=True,
        epsilon_max=False,
        delta="positive",
        dp_epsilon=lambda r: _gauss_eps(r.delta, r.scale, r.sensitivity),
        zcdp=lambda r: (_up(r.compositions, r.sensitivity, r.scale, 2), 0.0, "TΔ²/(2σ²)"),
        gaussian_mu2=lambda r: _up(r.compositions, r.sensitivity, r.scale, 1),
        charge_text=lambda r, how: (
            f"{how} with σ = {r.scale:.4g}, Δ = {r.sensitivity:.4g}"
            + (f", T = {r.compositions}" if r.compositions > 1 else "")
        ),
        derived=(lambda r: _gauss_eps(r.delta, r.scale, r.sensitivity), 1e-6, "σ, Δ and δ of the gaussian release"),
    ),
    "laplace": ReleaseKind(
        "laplace",
        scale=True,
        epsilon_max=False,
        delta="zero",
        dp_epsilon=lambda r: r.epsilon,
        zcdp=lambda r: (_up(r.compositions, r.sensitivity, r.scale, 2), 0.0, "T(Δ/b)²/2"),
        gaussian_mu2=lambda r: 0.0,
        charge_text=lambda r, how: f"{_times(r)}ε = {r.sensitivity / r.scale:.4g} as ε²/2",
        derived=(lambda r: r.sensitivity / r.scale, 1e-9, "Δ/b"),
    ),
    "pure": ReleaseKind(
        "pure",
        scale=False,
        epsilon_max=False,
        delta="zero",
        dp_epsilon=lambda r: r.epsilon,
        zcdp=lambda r: (_up(r.compositions, r.epsilon, 1.0, 2), 0.0, "Tε²/2"),
        gaussian_mu2=lambda r: 0.0,
        charge_text=lambda r, how: f"{_times(r)}ε = {r.epsilon:.4g} as ε²/2",
    ),
    "approx": ReleaseKind(
        "approx",
        scale=False,
        epsilon_max=False,
        delta="any",
        dp_epsilon=lambda r: r.epsilon,
        zcdp=lambda r: (
            _up(r.compositions, r.epsilon, 1.0, 2),
            frac_up(r.compositions * Fraction(r.delta)),
            "Tε²/2, δ-approximate",
        ),
        gaussian_mu2=lambda r: 0.0,
        charge_text=lambda r, how: f"{_times(r)}ε = {r.epsilon:.4g} as ε²/2",
    ),
    "noise_reduction": ReleaseKind(
        "noise_reduction",
        scale=False,
        epsilon_max=True,
        delta="positive",
        dp_epsilon=lambda r: _gauss_eps(r.delta, 1.0 / r.epsilon_max, 1.0),
        zcdp=lambda r: (_up(1, r.epsilon_max, 1.0, 2), 0.0, "ε_max²/2"),
        gaussian_mu2=lambda r: _up(1, r.epsilon_max, 1.0, 1),
        charge_text=lambda r, how: f"ε_max = {r.epsilon_max:.4g} as ε_max²/2",
    ),
}
KINDS = tuple(RELEASE_KINDS)


@dataclass(frozen=True)
class Release:
    """One DP release (possibly T-fold): what a page adds to the ledger.

    ``epsilon``/``delta`` are the guarantee of ONE run (T runs compose); for ``noise_reduction`` ``epsilon`` is the
    ex-post stopping level ε_T, ``epsilon_max`` the declared top level, and ``delta`` only the δ at which its ex-ante
    ε is quoted for basic/advanced composition. ``scale`` is σ (gaussian) or b (laplace), else None.
    """

    label: str
    source: str
    kind: str
    epsilon: float
    delta: float
    sensitivity: float
    scale: float | None
    compositions: int
    epsilon_max: float | None = None

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        set_("label", _text("label", self.label))
        set_("source", _source(self.source))
        rules = RELEASE_KINDS[_v.choice("kind", self.kind, KINDS)]
        kind = rules.name
        set_("epsilon", _v.real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON))
        set_("delta", delta_value("delta", self.delta, allow_zero=True))
        set_("sensitivity", _v.scale("sensitivity", self.sensitivity, low=1e-100, high=1e100))
        if (
            isinstance(self.compositions, int)
            and not isinstance(self.compositions, bool)
            and abs(self.compositions) >= 10**18
        ):
            raise ValueError(
                f"compositions must be an integer in [1, {MAX_COMPOSITIONS}], got {short(self.compositions)}"
            )
        set_("compositions", _v.integer("compositions", self.compositions, low=1, high=MAX_COMPOSITIONS))
        if rules.scale:
            if self.scale is None:
                raise ValueError(f"scale must be given for a {kind} release")
            set_("scale", _v.scale("scale", self.scale, low=1e-100, high=1e100))
            if self.sensitivity / self.scale > MAX_EPSILON:
                raise ValueError(
                    f"scale must be at least sensitivity/{MAX_EPSILON:g} (Δ/scale ≤ {MAX_EPSILON:g}), "
                    f"got {self.scale!r}"
                )
        elif self.scale is not None:
            raise ValueError(f"scale must be empty for a {kind} release, got {short(self.scale)}")
        if rules.epsilon_max:
            if self.epsilon_max is None:
                raise ValueError(f"epsilon_max must be given for a {kind} release")
            em = _v.real("epsilon_max", self.epsilon_max, low=0.0, high=MAX_EPSILON, low_open=True)
            set_("epsilon_max", em)
            if self.epsilon <= 0 or self.epsilon > em * (1 + 1e-12):
                raise ValueError(
                    f"epsilon (the stopping level) must be in (0, epsilon_max = {em:g}], got {self.epsilon:g}"
                )
            if self.compositions != 1:
                raise ValueError(f"compositions must be 1 for a {kind} release")
        elif self.epsilon_max is not None:
            raise ValueError(f"epsilon_max must be empty for a {kind} release, got {short(self.epsilon_max)}")
        if rules.delta == "positive" and self.delta <= 0:
            raise ValueError(f"delta must be in (0, 1) for a {kind} release (it has no pure ε)")
        if rules.delta == "zero" and self.delta != 0:
            raise ValueError(f"delta must be 0 for a {kind} release, got {self.delta:g}")
        if self.epsilon <= 0 and rules.derived is None:  # a derived ε (Gaussian at a large δ) may be 0
            raise ValueError(f"epsilon must be in (0, {MAX_EPSILON:g}] for a {kind} release")
        if rules.derived is not None:  # ε follows from the other fields: a file must agree (no tampering)
            fn, rtol, how = rules.derived
            want = fn(self)
            if not math.isclose(self.epsilon, want, rel_tol=rtol, abs_tol=1e-9):
                raise ValueError(f"epsilon = {self.epsilon:g} does not match {how} (exact ε = {want:.6g})")

    # ---- derived -------------------------------------------------------------------------------------------
    @property
    def rules(self) -> ReleaseKind:
        """How this kind of release is accounted for."""
        return RELEASE_KINDS[self.kind]

    @property
    def dp_epsilon(self) -> float:
        """ε of one run at ``delta`` (ex-ante; for noise reduction the Gaussian with μ = ε_max)."""
        return self.rules.dp_epsilon(self)

    @property
    def rho(self) -> float:
        """zCDP ρ of the whole (T-fold) release as a data-independent accountant sees it (see :func:`zcdp_cost`)."""
        return zcdp_cost(self)[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly dict of the fields."""
        return {f: getattr(self, f) for f in FIELDS}

    @classmethod
    def from_dict(cls, data: Any) -> Release:
        """Strictly validated inverse of :meth:`to_dict` (unknown or missing fields, wrong types → ValueError)."""
        if not isinstance(data, dict):
            raise ValueError(f"a release must be an object with fields {', '.join(FIELDS)}")
        extra = set(data) - set(FIELDS)
        if extra:
            raise ValueError(f"unknown release field(s): {', '.join(sorted(map(str, extra)))[:200]}")
        missing = [f for f in FIELDS if f not in data and f != "epsilon_max"]
        if missing:
            raise ValueError(f"missing release field(s): {', '.join(missing)}")
        vals = dict(data)
        for f in ("epsilon", "delta", "sensitivity", "scale", "epsilon_max"):
            x = vals.get(f)
            if x is not None and (isinstance(x, bool) or not isinstance(x, int | float)):
                raise ValueError(f"{f} must be a number, got {type(x).__name__}")
            if isinstance(x, int) and abs(x) >= 10**18:
                raise ValueError(f"{f} is out of range, got {short(x)}")
        c = vals["compositions"]
        if isinstance(c, bool) or not isinstance(c, int | float):
            raise ValueError(f"compositions must be an integer, got {type(c).__name__}")
        if not isinstance(vals["kind"], str):
            raise ValueError(f"kind must be one of {', '.join(KINDS)}")
        fields: dict[str, Any] = {f: vals.get(f) for f in FIELDS}
        return cls(**fields)


def gaussian_release(
    sigma: float, *, sensitivity: float = 1.0, delta: float, compositions: int = 1, label: str, source: str = ""
) -> Release:
    """A Gaussian N(0, σ²) release of a query with L2 sensitivity Δ, run T times; ε quoted per run at ``delta``."""
    s = _v.positive("sigma", sigma)
    d = _v.positive("sensitivity", sensitivity)
    dl = delta_value("delta", delta, allow_zero=False)
    return Release(label, source, "gaussian", _gauss_eps(dl, s, d), dl, d, s, compositions)


def laplace_release(
    scale: float, *, sensitivity: float = 1.0, compositions: int = 1, label: str, source: str = ""
) -> Release:
    """A Laplace Lap(b) release of a query with L1 sensitivity Δ, run T times: pure ε = Δ/b per run."""
    b = _v.positive("scale", scale)
    d = _v.positive("sensitivity", sensitivity)
    return Release(label, source, "laplace", d / b, 0.0, d, b, compositions)


def pure_release(epsilon: float, *, compositions: int = 1, label: str, source: str = "") -> Release:
    """An ε-DP release (any mechanism), run T times."""
    return Release(label, source, "pure", _v.positive("epsilon", epsilon), 0.0, 1.0, None, compositions)


def approx_release(epsilon: float, delta: float, *, compositions: int = 1, label: str, source: str = "") -> Release:
    """An (ε, δ)-DP release (any mechanism), run T times; δ = 0 gives a pure release."""
    e = _v.positive("epsilon", epsilon)
    dl = delta_value("delta", delta, allow_zero=True)
    kind = "approx" if dl > 0 else "pure"
    return Release(label, source, kind, e, dl, 1.0, None, compositions)


def noise_reduction_release(
    epsilon_stop: float, *, epsilon_max: float, delta: float = 1e-6, label: str, source: str = ""
) -> Release:
    """A Brownian noise reduction (Rogers et al. 2023) declared up to ε_max that stopped at ε_T = ``epsilon_stop``.

    ``delta`` is only the δ at which its ex-ante ε (Gaussian, μ = ε_max) is quoted for basic/advanced composition.
    """
    return Release(
        label,
        source,
        "noise_reduction",
        _v.positive("epsilon_stop", epsilon_stop),
        delta_value("delta", delta, allow_zero=False),
        1.0,
        None,
        1,
        _v.positive("epsilon_max", epsilon_max),
    )


def zcdp_cost(release: Release) -> tuple[float, float, str]:
    """(ρ, δ_i, how) of a release for a data-independent zCDP accountant (see the module docstring)."""
    return release.rules.zcdp(release)
