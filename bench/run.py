"""Benchmarks for DP Explorer: prints a Markdown table of timings against the ARCHITECTURE §5 budgets.

Run with ``make bench``. Not part of the pass/fail suite: timings depend on the machine's load.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dpcore  # noqa: E402
from dpcore import baseline  # noqa: E402

ROWS: list[tuple[str, str, str, str]] = []


def timeit(fn: Callable[[], object], *, repeat: int = 20, number: int = 1) -> tuple[float, float]:
    """p50 and p95 of ``repeat`` timings (seconds per call)."""
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t) / number)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def row(name: str, fn: Callable[[], object], budget: str, **kw) -> None:
    p50, p95 = timeit(fn, **kw)
    ROWS.append((name, fmt(p50), fmt(p95), budget))


def bench_accounting() -> None:
    eps_grid = np.linspace(-2, 10, 400)
    row("gaussian_sigma (analytic, 1 call)", lambda: dpcore.gaussian_sigma(1.0, 1e-5), "—", number=20)
    row("gaussian_delta (400 ε)", lambda: dpcore.gaussian_delta(eps_grid, sigma=3.0), "—", number=20)
    row("laplace_delta (400 ε, T = 1)", lambda: dpcore.laplace_delta(eps_grid, scale=1.0), "—", number=20)
    row("laplace_delta (400 ε, T = 100, PLD, cached PLD)", lambda: dpcore.laplace_delta(eps_grid, scale=1.0, compositions=100), "—")
    def uncached_laplace_epsilon() -> float:
        dpcore.accounting._laplace_pld.cache_clear()
        dpcore.accounting._laplace_profile.cache_clear()
        return dpcore.laplace_epsilon(1e-5, scale=10.0, compositions=1000)

    row("laplace_epsilon (T = 1000, PLD, uncached)", uncached_laplace_epsilon, "—", repeat=5)
    row("10⁶ Gaussian samples", lambda: baseline.sample_noise(10**6, mechanism="gaussian", scale=1.0, rng=0), "≤ 100 ms")
    row("10⁶ Laplace samples", lambda: baseline.sample_noise(10**6, mechanism="laplace", scale=1.0, rng=0), "≤ 100 ms")

    # composition curve T = 1..1000 (Gaussian): closed form vs dp_accounting PLD
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma = dpcore.gaussian_sigma(1.0, 1e-5)
    t_all = np.arange(1, 1001)
    ours_p50, _ = timeit(lambda: dpcore.gaussian_epsilon(1e-5, sigma=sigma, compositions=t_all), repeat=10)
    sample_t = [1, 10, 100, 300, 1000]
    start = time.perf_counter()
    base = pld.from_gaussian_mechanism(sigma, value_discretization_interval=1e-4)
    ref = {t: base.self_compose(t).get_epsilon_for_delta(1e-5) for t in sample_t}
    per_t = (time.perf_counter() - start) / len(sample_t)
    ours = dpcore.gaussian_epsilon(1e-5, sigma=sigma, compositions=np.array(sample_t))
    err = max(abs(ref[t] - e) for t, e in zip(sample_t, ours))
    ROWS.append((
        "composition curve T = 1..1000, Gaussian: closed form",
        fmt(ours_p50), "—",
        f"≥ 100× faster than dp_accounting: dp_accounting ≈ {fmt(per_t * 1000)} for the curve "
        f"(≈ {per_t * 1000 / ours_p50:,.0f}×); max |Δε| = {err:.1e} at T ∈ {sample_t}",
    ))


def bench_pages() -> None:
    from streamlit.testing.v1 import AppTest

    from app import params, registry

    main = str(ROOT / "app" / "main.py")
    for page in registry.available_pages():
        at = AppTest.from_file(main, default_timeout=300)
        if page is not registry.HOME:
            at.switch_page(f"../pages/{page.script}")
        at.run()
        slider = at.select_slider(key="eps")
        warm, cold = [], []
        values = list(params.EPSILON_OPTIONS)
        # cold: every run moves ε to a value not seen before (cache miss); warm: back and forth between two values
        for v in values[-22:][::-1][:21]:
            t = time.perf_counter()
            slider.set_value(v).run()
            cold.append(time.perf_counter() - t)
        for i in range(21):
            t = time.perf_counter()
            slider.set_value(values[-1] if i % 2 else values[-2]).run()
            warm.append(time.perf_counter() - t)
        for name, s in (("new ε, cold cache", cold), ("revisited ε, warm cache", warm)):
            s = sorted(s[1:])
            ROWS.append((f"page rerun: {page.title} ({name}, AppTest, n = {len(s)})", fmt(statistics.median(s)),
                         fmt(s[int(round(0.95 * (len(s) - 1)))]), "p95 ≤ 100 ms"))


def main() -> None:
    bench_accounting()
    bench_pages()
    print("| what | p50 | p95 | budget |\n|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
