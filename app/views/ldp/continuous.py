"""Local DP page, part "Continuous": regressions on a box, searched by branch-and-bound (Pan 2023, Sec. 5)."""

from __future__ import annotations

import streamlit as st

from app import background, ui
from app.compute import ldp as C
from app.figures import ldp as F
from app.notation import number
from app.views._metrics import metric_row
from app.views.ldp._settings import Settings

KIND_WORDS = {
    "logistic": "logistic regressions σ(θ·x̃) released through the two-point mechanism on [0, 1] (Sec. 5.3 (c))",
    "truncated": "truncated linear regressions clip(θ·x̃, −½, ½) released through the two-point mechanism "
    "(Sec. 5.3 (b), Eq. 20): flat wherever the line is clipped",
}


def render(s: Settings) -> None:
    """The part's panels: the landscape over the box, then the search that certifies its extremes."""
    b = background.result(
        C.bnb,
        s.regkind,
        s.eps,
        s.nq,
        s.x,
        s.dsize,
        s.seed,
        slot="bnb",
        label="Branch-and-bound over the box",
        wait=C.BNB_WAIT,
    )
    if b is None:
        return
    landscape(s, b)
    search(s, b)


def landscape(s: Settings, b: C.BranchAndBound) -> None:
    """1 · ln Λ over [−1, 1]² with the certified extremes."""
    with ui.panel(
        "The likelihood landscape on a continuous domain",
        "when the secret is a point of a box, ln Λ is a surface; its extremes sit on the edge or inside, far from "
        "x*. The realized loss is again max − min, and must be found by search. Truncated answers are flat wherever "
        "the line is clipped, so each reaches its full ε only if both clipping levels are reachable.",
    ):
        st.caption(
            f"{b.k} {KIND_WORDS[b.kind]}, θ ~ U[−1, 1]³, answered at x* = ({b.x_star[0]:.2f}, {b.x_star[1]:.2f})."
        )
        metric_row(
            (
                "Realized loss of the answers",
                f"{b.certified:.4f}",
                "Certified: ln max Λ − ln min Λ over the whole box, to within the search tolerance.",
            ),
            (
                "Sum of the single-answer losses",
                f"{b.single_sum:.4f}",
                "What grouping each answer alone would charge (App. C with groups of one): between the "
                "realized loss and the LDP bound.",
            ),
            ("LDP bound Σε", f"{b.basic:.4f}", "The worst case, charged whatever the answers."),
        )
        ui.chart(
            F.landscape_2d(b.grid, b),
            b.grid,
            name="likelihood landscape on the box",
            alt="Heatmap of the log-likelihood of regression answers over a square, extremes marked.",
        )


def search(s: Settings, b: C.BranchAndBound) -> None:
    """2 · Branch-and-bound: certified bounds from both sides (Algorithm 6, Eq. 17)."""
    with ui.panel(
        "Branch-and-bound on a continuous domain",
        "each piece of the box gets a lower bound by replacing the subtracted convex part V by its secant, so the "
        "bound is certified; the upper bound is a real point. Stopping early leaves a gap on the safe side — the "
        "likely reason the paper's App. E values are 0.10–0.15 too high.",
    ):
        metric_row(
            (
                "Certified loss U − Lo",
                f"{b.certified:.5f}",
                "Eq. 17: never below the true realized loss, so a filter may use it.",
            ),
            (
                "Attained loss (two real points)",
                f"{b.attained:.5f}",
                "The gap between two actual points of the box: never above the true realized loss.",
            ),
            (
                "31 × 31 grid search",
                f"{b.grid_loss:.5f}",
                "A plain grid gives a value below the truth: it can miss the extremes.",
            ),
            (
                "Pieces of the box explored",
                b.nodes,
                f"Both searches, to a tolerance of {number(C.BNB_TOL)}"
                + ("." if b.converged else "; the node limit stopped them first."),
            ),
        )
        loose = (
            f"a gap of {number(C.LOOSE_GAP)} is reached after {b.loose_nodes_min} (min) and "
            f"{b.loose_nodes_max} (max) pieces"
            if b.loose_nodes_min is not None and b.loose_nodes_max is not None
            else ""
        )
        if loose:
            st.caption(loose[:1].upper() + loose[1:] + ".")
        ui.chart(
            F.bnb_trace(b.trace, loose_gap=C.LOOSE_GAP),
            b.trace,
            name="branch and bound trace",
            alt="Lower and upper bounds of the minimum and maximum log-likelihood against the pieces explored.",
        )
        if len(b.secant):
            ui.chart(
                F.secant(b.secant, z_range=b.z_range, kind=b.kind),
                b.secant,
                name="secant relaxation",
                alt="One regression term's log-probability, its subtracted convex part and the secant over-estimator.",
            )
