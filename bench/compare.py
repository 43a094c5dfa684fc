"""Compare page tables of ``bench/run.py`` measured at two commits, several runs each: row by row, the median over the
runs of each side's p50 and p95, and their ratio.

One run's p95 of 21 reruns is its second-slowest rerun, so one busy moment of the machine moves it by a third; two runs
of the same commit differ that much on a fifth of the rows. Run each side several times, interleaved (A, B, A, B, …),
and compare the medians:

    python bench/run.py --only pages --out /tmp/a1.md     # at commit A (a clean checkout of it)
    python bench/run.py --only pages --out /tmp/b1.md     # at commit B
    ...
    python bench/compare.py "/tmp/a*.md" "/tmp/b*.md" [--over 1.10]

Prints a Markdown table: one row per page view and measurement found in every run of both sides, the runs' p95s in
brackets, and the rows whose median p95 is more than ``--over`` times A's flagged.
"""

from __future__ import annotations

import argparse
import glob
import re
import statistics
import sys
from pathlib import Path

_UNITS = {"µs": 1e-3, "ms": 1.0, "s": 1e3}


def _ms(cell: str) -> float | None:
    m = re.match(r"\**([\d.]+)\s*(µs|ms|s)\b", cell.strip())
    return float(m.group(1)) * _UNITS[m.group(2)] if m else None


def rows(path: str) -> dict[str, tuple[float, float]]:
    """The page rows of one table: name (the slider's key and the run count left out) → (p50, p95) in ms."""
    out: dict[str, tuple[float, float]] = {}
    for line in Path(path).read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 6 or not cells[1].startswith("page "):
            continue
        p50, p95 = _ms(cells[2]), _ms(cells[3])
        if p50 is None or p95 is None:
            continue
        name = re.sub(r"\((\w+): ", "(", cells[1])
        out[re.sub(r",? n = \d+", "", name)] = (p50, p95)
    return out


def compare(a_paths: list[str], b_paths: list[str], over: float = 1.10) -> str:
    """The Markdown table comparing the runs of side A (``a_paths``) with those of side B."""
    a_runs, b_runs = [rows(p) for p in a_paths], [rows(p) for p in b_paths]
    names = [n for n in a_runs[0] if all(n in r for r in a_runs + b_runs)]
    lines = [
        "| page view and measurement | A p50 | B p50 | A p95 | B p95 | B / A (p95) | p95 of each run, A; B |",
        "|---|---|---|---|---|---|---|",
    ]
    flagged, ratios = 0, []
    for n in names:
        a50, b50 = (statistics.median(r[n][0] for r in runs) for runs in (a_runs, b_runs))
        a95, b95 = (statistics.median(r[n][1] for r in runs) for runs in (a_runs, b_runs))
        ratio = b95 / a95
        ratios.append(ratio)
        flag = ratio > over
        flagged += flag
        each = "; ".join(", ".join(f"{r[n][1]:.0f}" for r in runs) for runs in (a_runs, b_runs))
        mark = "**" if flag else ""
        lines.append(
            f"| {n} | {a50:.1f} ms | {b50:.1f} ms | {a95:.1f} ms | {b95:.1f} ms | {mark}{ratio:.2f}{mark} | {each} |"
        )
    lines.append("")
    lines.append(
        f"{flagged} of {len(names)} rows: B's median p95 more than {over:.2f} times A's "
        f"({len(a_runs)} runs of A, {len(b_runs)} of B); median ratio over the rows "
        f"{statistics.median(ratios) if ratios else float('nan'):.2f}."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="glob of side A's tables (quoted)")
    ap.add_argument("b", help="glob of side B's tables (quoted)")
    ap.add_argument("--over", type=float, default=1.10, help="flag rows whose p95 ratio exceeds this (default 1.10)")
    args = ap.parse_args(argv)
    a_paths, b_paths = sorted(glob.glob(args.a)), sorted(glob.glob(args.b))
    if not a_paths or not b_paths:
        print("no table matches one of the globs", file=sys.stderr)
        return 2
    print(compare(a_paths, b_paths, args.over))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
