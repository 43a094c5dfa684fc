"""The "Run it" script: a short Python program that performs the recommended release with ``dpcore`` on the user's
CSV (a path and a column) and prints the noisy results with their accuracy guarantee.

The script is text built from :class:`dpcore.release.Plan` values; run as is, without arguments, it uses the
example table shipped inside dpcore (:func:`dpcore.release.example_csv`).
"""

from __future__ import annotations

from collections.abc import Sequence

from dpcore import release as _release

#: The script's file name, as the page offers it for download.
FILE_NAME = "privacy-release.py"
#: The requirement kinds a script can serve: a number released with additive noise (not SVT's top-c selection).
SCRIPTED = ("error", "relative")

_STAT_WORDS = {"counts": "counts per category", "sum": "a bounded sum", "mean": "a bounded mean"}


def _plan_code(p: _release.Plan) -> str:
    args = [
        repr(p.statistic),
        repr(p.column),
        repr(p.mechanism),
        repr(p.epsilon),
        f"delta={p.delta!r}",
        f"bound={p.bound!r}",
        f"confidence={p.confidence!r}",
    ]
    if p.statistic == "counts":
        args.append(f"sensitivity={p.sensitivity!r}")
    else:
        args += [f"lower={p.lower!r}", f"upper={p.upper!r}"]
        if p.statistic == "mean":
            args.append(f"rows={p.rows!r}")
    if p.mechanism == "brdp":
        args.append(f"kernel={p.kernel!r}")
    if p.scale is not None:
        args.append(f"scale={p.scale!r}")
    if p.categories is not None:
        args.append(f"categories={list(p.categories)!r}")
    return f"    release.plan({', '.join(args)}),"


_BODY = """

def main(argv: list[str] | None = None) -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("csv", nargs="?", help="your table (CSV with a header row); default: dpcore's example")
    args.add_argument("columns", nargs="*", help="the column of each statistic, in order (default: as planned)")
    args.add_argument("--categories", help="counts: the categories to publish, comma-separated (a public list)")
    args.add_argument("--bounds", nargs=2, type=float, metavar=("LOW", "HIGH"),
                      help="a sum or a mean: clip every value to [LOW, HIGH] (the noise follows)")
    args.add_argument("--seed", type=int, help="for testing only: a fixed seed makes the noise predictable")
    a = args.parse_args(argv)
    table = pd.read_csv(a.csv or release.example_csv())
    rng = release.secure_rng() if a.seed is None else np.random.default_rng(a.seed)
    for i, plan in enumerate(PLANS):
        column = a.columns[i] if i < len(a.columns) else plan.column
        if plan.statistic == "counts":
            names = a.categories.split(",") if a.categories else None
            if names is None and a.csv is not None:
                print("Note: the categories were read from the data. Publish them only if that list is public "
                      "(e.g. every county), else give it with --categories.", file=sys.stderr)
            plan = replace(plan, column=column, categories=tuple(names) if names else None)
        else:
            plan = replace(plan, column=column)
            if a.bounds:
                plan = plan.with_bounds(*a.bounds)
        out = release.perform(plan, table, rng)
        print(f"\\n{plan.statistic} of {column!r}: {NOISE_NAMES[plan.mechanism]}, epsilon = {plan.epsilon:.4g}, "
              f"delta = {plan.delta:.3g}")
        width = max(len(n) for n in out["name"])
        for name, value in zip(out["name"], out["noisy"]):
            print(f"  {name:<{width}}  {value:,.{0 if plan.statistic == 'counts' else 2}f}")
        print(f"  Each number is within +/-{plan.bound:,.4g} of the true one with probability "
              f"{100 * out['probability'].iloc[0]:.2f} % (required: {100 * plan.confidence:.4g} %).")


if __name__ == "__main__":
    main()
"""


def script(plans: Sequence[_release.Plan], *, title: str, made: str, total: str = "") -> str:
    """The script's text: a docstring (what it releases, how to run it, the randomness and its limits), the plans
    as ``dpcore.release.plan`` calls, and a small command line."""
    stats = ", ".join(_STAT_WORDS[p.statistic] for p in plans)
    lines = [
        f'"""{title}',
        "",
        f"Made by {made}. It releases {stats} with dpcore, the maths package of DP Explorer.",
        "",
        "Run:   python privacy-release.py [your.csv] [column ...] [--categories a,b,c] [--bounds LOW HIGH]",
        "Without arguments it runs on a small example table shipped with dpcore (600 made-up households).",
        "Needs: pip install dp-explorer   (or, in a copy of the project: pip install .)",
        "",
        "Every run is a new release and spends the budget again: run it once per publication and never publish",
        "the true values. Counts assume that one person changes one count by at most the stated sensitivity (one",
        "row per person when it is 1); the list of categories must itself be public (pass it with --categories).",
        "",
        "Randomness: the noise comes from numpy's PCG64DXSM generator seeded with 256 fresh bits from the",
        "operating system's cryptographic source (Python's secrets) on every run. PCG64DXSM is not a",
        "cryptographic generator: with a fresh secret seed and only noisy aggregates published no practical",
        "attack on it is known, but none is ruled out either. The samplers use floating-point arithmetic, whose",
        "rounding can leak what the mathematics hides (Mironov 2012); counts are rounded to whole numbers, which",
        "removes the low bits that attack reads, but the (epsilon, delta) guarantee is proven for the exact",
        "distributions only. For a release whose guarantee must hold for the code itself, use exact discrete",
        "samplers (e.g. OpenDP's discrete Laplace and Gaussian) with the same epsilon and delta.",
    ]
    if total:
        lines += ["", total]
    lines += [
        '"""',
        "",
        "import argparse",
        "import sys",
        "from dataclasses import replace",
        "",
        "import numpy as np",
        "import pandas as pd",
        "",
        "from dpcore import release",
        "",
        "NOISE_NAMES = " + repr({m: _NOISE_NAMES[m] for m in sorted({p.mechanism for p in plans})}),
        "PLANS = [",
    ]
    lines += [_plan_code(p) for p in plans]
    lines.append("]")
    return "\n".join(lines) + _BODY


_NOISE_NAMES = {
    "laplace": "Laplace noise",
    "gaussian": "Gaussian noise",
    "staircase": "staircase noise",
    "r2dp": "R2DP noise (Laplace noise with a random scale)",
    "r2dp_two_point": "R2DP noise (two-point random scale)",
    "brdp": "budget recycling (BR-DP)",
}
