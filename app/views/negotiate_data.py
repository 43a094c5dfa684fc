"""The negotiate page's "your own data" panel: a visitor's CSV (at most 1 MB), its true table beside noisy releases
at the recommended ε by the leading mechanisms, with error bars. A bad file gets one clear message and nothing else
happens; the file stays in the visitor's session only (see :mod:`app.compute.negotiate_data`).
"""

from __future__ import annotations

import math

import streamlit as st

from app import ui
from app.compute import negotiate as compute
from app.compute import negotiate_data as data
from app.figures import negotiate as figs
from app.notation import number
from dpcore import release as _release

UPLOAD_KEY = "own-data"
#: How many mechanisms are drawn beside the truth: the answer and the next best ones a script can run.
LEADING = 3


def leading(neg: compute.Negotiation, sens: float, delta: float, req: compute.Requirement) -> list[str]:
    """The answer's mechanism and the next cheapest ones that meet the requirement and can be sampled."""
    df = neg.table
    ok = df[df["applicable"] & df["meets"] & df["sound"] & df["mechanism"].isin(_release.NOISES)]
    ok = ok[ok["epsilon"].astype(float).map(math.isfinite)].sort_values("epsilon", kind="stable")
    order = [neg.answer.mechanism] + [m for m in ok["mechanism"] if m != neg.answer.mechanism]
    return [m for m in order if m in _release.NOISES][:LEADING]


def _plans(
    frame,
    column: str,
    kind: str,
    bounds: tuple[float, float],
    mechs: list[str],
    neg: compute.Negotiation,
    req: compute.Requirement,
) -> list[_release.Plan]:
    eps = neg.answer.epsilon
    plans = []
    for m in mechs:
        delta = req.delta if m in ("gaussian", "brdp") else 0.0
        if kind == "counts":
            plans.append(
                _release.plan(
                    "counts",
                    column,
                    m,
                    eps,
                    delta=delta,
                    bound=req.bound,
                    confidence=req.confidence,
                    sensitivity=req.sensitivity,
                    kernel=req.kernel,
                )
            )
        else:  # the answer's noise for Δ, scaled to the bounds' Δ: same ε, same probability, bound scaled alike
            base = _release.plan(
                "sum",
                column,
                m,
                eps,
                delta=delta,
                bound=req.bound,
                confidence=req.confidence,
                lower=-req.sensitivity,
                upper=req.sensitivity,
                kernel=req.kernel,
            )
            plans.append(base.with_bounds(*bounds))
    return plans


def own_data(req: compute.Requirement, neg: compute.Negotiation, sens: float) -> None:
    """5 · Try it on your own data."""
    with ui.panel(
        "5 · Try it on your own data",
        "upload a CSV and see what the published table would look like: the true values beside noisy releases at "
        "the recommended ε, each with its error bar ±θ. The file stays in your session: nothing is stored.",
    ):
        if not neg.answer.mechanism or req.kind == "topc" or neg.answer.epsilon <= 0:
            st.caption("This works for counts and sums: choose an error requirement that has an answer.")
            return
        up = st.file_uploader(
            "Your table (CSV with a header row, UTF-8, at most 1 MB)", type=["csv"], key=UPLOAD_KEY, max_upload_size=1
        )
        if up is None:
            st.caption(
                "No file yet. Any CSV works: one row per person, a column of categories (counted) or of "
                "numbers (summed)."
            )
            return
        try:
            frame = data.read_table(up.getvalue())
        except data.BadFile as exc:
            st.error(str(exc), icon=":material/error:")
            return
        column = st.selectbox("Column to release", list(frame.columns), key="own-column")
        numeric = data.is_numeric(frame, column)
        kind = st.radio(
            "Release",
            ["counts per category", "a bounded sum"],
            index=1 if numeric else 0,
            key="own-kind",
            horizontal=True,
        )
        bounds = (0.0, 1.0)
        try:
            if kind == "a bounded sum":
                data.check_numbers(frame, column)
                c = st.columns(2)
                lo = c[0].number_input("Lowest value counted", value=0.0, key="own-lower")
                hi = c[1].number_input("Highest value counted", value=1000.0, key="own-upper")
                if not lo < hi:
                    st.error("The lowest value must be below the highest.")
                    return
                bounds = (float(lo), float(hi))
            else:
                data.check_categories(frame, column)
        except data.BadFile as exc:
            st.error(str(exc), icon=":material/error:")
            return
        mechs = leading(neg, sens, req.delta, req)
        plans = _plans(frame, column, "counts" if kind == "counts per category" else "sum", bounds, mechs, neg, req)
        try:
            rel = data.releases(frame, plans, seed=0)
        except ValueError as exc:
            st.error(f"This file cannot be released as chosen: {exc}")
            return
        fig = figs.released_table(
            rel,
            labels=compute.LABELS,
            title=f"Your table and its releases at ε = {compute.fmt_epsilon(neg.answer.epsilon)}",
        )
        ui.chart(
            fig,
            rel,
            name="your data released",
            alt="The true value of each category beside noisy releases by the leading mechanisms, with error bars.",
        )
        shown = rel.pivot_table(index="name", columns="mechanism", values="noisy", sort=False)
        shown.columns = [compute.LABELS[m] for m in shown.columns]
        shown.insert(0, "true value", rel[rel["mechanism"] == mechs[0]].set_index("name")["true"])
        st.dataframe(shown.map(lambda v: number(v, 6)), key="own-table")
        st.caption(
            f"{len(frame):,} rows read. The draws are seeded so the picture stays put while you look: an "
            "illustration, not a release. The script below makes a real one with fresh secret randomness. "
            "Every true value here is exact and private: never publish this column."
        )
