"""The "Negotiate a budget" page: state how accurate an answer must be, get one recommended (ε, δ) first, then
the alternatives with their reasons, the cost of several releases, and what the budget means.

Page shape: :class:`Settings` holds the sidebar's values, :func:`sidebar` draws the controls from the parameter
catalogue, :func:`render` draws the page, one function per panel. Numbers come from :mod:`app.compute.negotiate`,
charts from :mod:`app.figures.negotiate`; the report is built by :mod:`app.views.negotiate_report`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import pandas as pd
import streamlit as st

from app import background, classroom, ledger, params, ui
from app.compute import negotiate as compute
from app.compute import negotiate_script as scripts
from app.compute import negotiate_words as words
from app.figures import negotiate as figs
from app.notation import delta as delta_text
from app.notation import number
from app.views import negotiate_report as reports
from app.views._metrics import metric_row
from app.views.negotiate_data import own_data
from app.views.negotiate_split import edited, several
from dpcore import mechanisms

TITLE = "Negotiate a budget"
IDEA = (
    "Start from the accuracy you need, not from ε: the app finds the smallest privacy budget each mechanism needs "
    "to deliver it, and recommends one."
)
#: The layout keeps long sentences wrapping on a phone (390 px wide) instead of scrolling sideways.
WRAP_CSS = """
<style>
.dpx-answer { font-size: 1.25rem; font-weight: 600; line-height: 1.4; overflow-wrap: anywhere; word-break: normal;
              border-left: 0.35rem solid #0072B2; padding: 0.4rem 0.8rem; margin: 0.2rem 0 0.8rem; }
</style>
"""


@dataclass(frozen=True)
class Settings:
    """The sidebar's values."""

    kind: str
    theta: float
    conf: float
    sens: float
    delta: float
    eta: float
    size: float
    cut: int
    below: int
    kernel: str
    T: int
    seed: int

    @property
    def requirement(self) -> compute.Requirement:
        return compute.Requirement(
            self.kind,
            self.theta,
            self.conf,
            self.sens,
            self.delta,
            self.eta,
            self.size,
            self.cut,
            self.below,
            self.kernel,
        )


def sidebar() -> Settings:
    """Draw the controls (catalogue entries, bound to the page address) and return their values."""
    with st.sidebar:
        st.header("Requirement")
        kind = str(params.control("req"))
        theta, eta, size, cut, below = 1.0, 0.1, 100.0, 1, 50
        if kind == "relative":
            eta = float(params.control("eta"))
            size = float(params.control("size"))
        else:
            theta = float(
                params.control(
                    "theta",
                    help="For top-c selection: queries within ±θ of the threshold may go either way."
                    if kind == "topc"
                    else None,
                )
            )
        if kind == "topc":
            cut = int(
                params.control(
                    "c",
                    default=1,
                    help="SVT halts after c answers above the threshold, and its noise grows with c. This page starts "
                    "at c = 1, the simplest top-c request (one query to select); the SVT page starts at 50.",
                )
            )
            below = int(params.control("below"))
        conf = float(params.control("conf"))
        sens = float(params.control("sens"))
        delta, kernel, seed = 1e-5, "gaussian", 0
        if kind != "topc":
            delta = float(params.control("delta"))
            kernel = str(params.control("kernel"))
        T = int(
            params.control("T", help="The answer's budget is spent once per release; the page adds them up exactly.")
        )
        if kind == "relative":
            seed = int(params.control("seed"))
        ui.share_hint()
    return Settings(kind, theta, conf, sens, delta, eta, size, cut, below, kernel, T, seed)


def render(s: Settings) -> None:
    """The answer first (on a phone before the settings button and the classroom strip too); then why, BR-DP's two
    accountants, accuracy at the answer's ε, and what ε means."""
    req = s.requirement
    with ui.lead():
        ui.header(TITLE, IDEA)
        st.html(WRAP_CSS)
        # a new requirement costs ~20 BR-DP plan optimisations: a background job, so the sliders stay live meanwhile
        neg = background.result(
            compute.negotiation, req, s.seed, slot="answer", label="Finding the smallest ε every mechanism needs"
        )
        comp = the_answer(s, req, neg.answer) if neg is not None else None
    if neg is None:
        return
    alternatives(s, neg)
    brdp_story(s, req, neg)
    at_the_answer(s, req, neg)
    what_it_means(s, neg.answer)
    own_data(req, neg, s.sens)
    rows, split = several(s.sens, s.delta)
    take_away(s, req, neg, comp, rows, split)


#: The long text columns of the negotiation tables get the room to be read (a hover shows any cell in full).
_READABLE = {
    "mechanism": st.column_config.TextColumn(width="medium", pinned=True),
    "why": st.column_config.TextColumn(width="large"),
    "note": st.column_config.TextColumn(width="large"),
}


def _table(frame: pd.DataFrame, direction: str, *, key: str) -> None:
    """Every mechanism's row of the negotiation (ε for the accuracy, or accuracy for the ε), readable."""
    shown = compute.table_view(frame, direction=direction)
    st.dataframe(shown, hide_index=True, width="stretch", key=key, column_config=_READABLE)


def _link() -> str:
    return classroom.share_url(getattr(st.context, "url", None), "negotiate", classroom.shareable_query("negotiate"))


def the_answer(s: Settings, req: compute.Requirement, answer: compute.Answer) -> compute.Composition | None:
    """The recommendation as one sentence, its cost over T releases, and the ledger button."""
    st.html(f'<p class="dpx-answer" data-testid="dpx-answer">{_escape(answer.sentence)}</p>')
    if not answer.mechanism:
        return None
    if answer.epsilon <= 0:
        st.warning(
            f"δ = {number(s.delta)} is so large that ε → 0 already meets the requirement: the "
            "protection then rests entirely on δ, the probability that anything may be revealed. "
            "Choose δ far below 1 / (number of people) and the answer changes.",
            icon=":material/warning:",
        )
        return None
    comp = compute.composition(answer.mechanism, answer.epsilon, answer.delta, s.sens, s.T, s.delta)
    metric_row(
        (
            "ε per release",
            compute.fmt_epsilon(answer.epsilon),
            "The budget one release spends: the smallest ε that meets the requirement, rounded up.",
        ),
        (
            "δ per release",
            delta_text(answer.delta),
            "The small probability with which the ε promise may fail (0: never; negligible: below 10⁻¹⁵).",
        ),
        (
            f"total ε over T = {s.T}, at δ = {delta_text(comp.total_delta)}",
            number(comp.total_epsilon, 3),
            f"What {s.T} releases spend together, counted exactly (privacy-loss distributions), with the "
            "small probability δ that this total fails; adding the releases up says "
            f"{number(comp.basic_epsilon, 3)} with δ = {delta_text(comp.releases * comp.delta)}.",
        ),
    )
    st.markdown(f"**Over {s.T} release{'s' if s.T != 1 else ''}: {words.total_words(comp)}.**")
    ledger.offer(
        mechanisms.release(
            answer.mechanism,
            answer.epsilon,
            delta=answer.delta,
            sensitivity=s.sens,
            compositions=s.T,
            cap=compute.CAP,
            label=f"{answer.name} for {req.words()}"[:80],
            source="negotiate",
        )
    )
    return comp


def alternatives(s: Settings, neg: compute.Negotiation) -> None:
    """1 · Every mechanism's smallest ε on one axis, and each alternative's reason in full."""
    with ui.panel(
        "1 · Why this answer: every mechanism's smallest ε",
        "left is more private. An open dot meets the requirement only part of the time; a red ring marks a number "
        "the paper's accountant certifies but whose exact δ is larger than stated.",
        key="negotiate-smallest-epsilon",
    ):
        df = neg.table
        dots = figs.epsilon_dots(df, title="Smallest ε that meets the requirement", stated=compute.fmt_epsilon)
        ui.chart(
            dots,
            df,
            name="smallest epsilon",
            alt="Dot chart of the smallest epsilon each mechanism needs, on a log axis.",
        )
        st.markdown("**The alternatives**")
        st.markdown(
            "\n".join(f"- **{_md(name)}**: ε = {_md(eps)}. {_md(why)}" for name, eps, why in neg.answer.reasons)
        )
        with st.expander("All numbers as a table"):
            _table(df, "forward", key="eps-table")


def brdp_story(s: Settings, req: compute.Requirement, neg: compute.Negotiation) -> None:
    """2 · BR-DP: the paper's accountant against the exact one."""
    if req.kind == "topc":
        return
    with ui.panel(
        "2 · Budget recycling: the paper's number and the exact one",
        "BR-DP redraws answers that land too far from the truth, which makes a tight error bound cheaper. The paper "
        "prices the redraws with its own accountant; for some settings that accountant under-reports δ. The app "
        "always recommends the exact one.",
    ):
        rows = neg.table.set_index("mechanism")
        paper, exact = float(rows.loc["brdp_paper", "epsilon"]), float(rows.loc["brdp", "epsilon"])
        if not (math.isfinite(paper) and math.isfinite(exact)):
            st.caption("BR-DP cannot reach this requirement at any ε ≤ 50 under one of the two accountants.")
            return
        ui.paper_vs_exact(
            "BR-DP smallest ε",
            paper,
            exact,
            digits=4,
            paper_underreports=bool(paper < exact * (1 - 1e-4)),
            help="The same search with the paper's accountant (Jiang et al. 2024, Alg. 1–2, Prop. 2).",
        )
        if not rows.loc["brdp_paper", "sound"]:
            ex = float(rows.loc["brdp_paper", "exact_delta"])
            st.warning(
                f"The paper's accountant under-reports the privacy loss here: at its ε its plan has exact "
                f"δ = {number(ex, 3)}, not {number(s.delta)} ({number(ex / s.delta, 3)}×). Use the "
                "exact number.",
                icon=":material/warning:",
            )
        else:
            st.caption(
                "Here the paper's plan keeps its stated δ (checked with the exact accountant); the two "
                "searches differ only in how they split the budget between the first draw and the redraws."
            )


def at_the_answer(s: Settings, req: compute.Requirement, neg: compute.Negotiation) -> None:
    """3 · What every mechanism delivers at the recommended ε."""
    eps = neg.epsilon
    with ui.panel(
        f"3 · At ε = {compute.fmt_epsilon(eps)}: what every mechanism delivers",
        "every curve rises with ε; where a curve crosses the dotted confidence line is that mechanism's smallest ε. "
        "The vertical line is the recommended budget.",
    ):
        rev = neg.at_answer
        # every mechanism at 16 budgets (32 BR-DP plan optimisations on a new requirement): a background job, so
        # the answer above is drawn at once
        cur = background.result(
            compute.curves, req, slot="accuracy-curves", label="Accuracy against ε for every mechanism"
        )
        y_title = "success probability" if req.kind == "topc" else "P(answer within the bound)"
        if cur is not None:
            ui.chart(
                figs.accuracy_curves(cur, epsilon=eps, confidence=s.conf, y_title=y_title),
                cur,
                name="accuracy vs epsilon",
                alt="Accuracy of every mechanism against epsilon on a log axis, with the recommended epsilon marked.",
            )
        _table(rev, "reverse", key="acc-table")


def what_it_means(s: Settings, answer: compute.Answer) -> None:
    """4 · What the recommended ε means, and the budgets of real deployments with their sources."""
    eps = answer.epsilon if answer.mechanism and math.isfinite(answer.epsilon) else 1.0
    with ui.panel(
        f"4 · What does ε = {compute.fmt_epsilon(eps)} mean?",
        "ε bounds how far one output can move anyone's beliefs about you: the odds change by at most a factor e^ε, "
        "whatever they knew before.",
    ):
        m = compute.meaning(eps)
        metric_row(
            (
                "Largest factor on an observer's odds, e^ε",
                number(m["odds"], 4),
                "However sure an observer was before, one output multiplies their odds by at most this.",
            ),
            (
                f"Largest posterior from a {number(100 * m['prior'])} % prior",
                f"{number(100 * m['posterior'], 3)} %",
                "An observer who thought there was a 1 % chance you are in the data can, after one output, "
                "believe it with at most this probability.",
            ),
        )
        st.markdown(
            "**Budgets of real deployments**, each with its unit of privacy and its source. A budget per "
            "device per day is spent again every day; a census budget covers the whole release."
        )
        st.dataframe(
            compute.deployments_meaning(),
            hide_index=True,
            width="stretch",
            key="deploy-table",
            column_config={"source": st.column_config.LinkColumn("source", display_text="open")},
        )
        st.caption(
            "ε from ρ: published as a zCDP ρ and converted at δ = 10⁻¹⁰. Local and central budgets are not "
            "directly comparable; they give a sense of scale. A row's note says where its figure or unit is "
            "disputed."
        )


def take_away(
    s: Settings,
    req: compute.Requirement,
    neg: compute.Negotiation,
    comp: compute.Composition | None,
    rows: tuple[words.StatRow, ...],
    split,
) -> None:
    """7 · Run it, and a report to forward: the script that performs the release, and the printable summary."""
    answer = neg.answer
    with ui.panel(
        "7 · Run it, and a report to forward",
        "the script performs the recommended release on your CSV; the report says what was asked, what is "
        "recommended and why, on one printed page with an appendix.",
    ):
        several_now = split is not None and len(rows) >= 2 and edited()
        plan = words.recommended_plan(req, answer)
        script = ""
        made = f"DP Explorer {words.app_version()} on {reports.dt.date.today().isoformat()}"
        if several_now:
            script = scripts.script(
                words.split_plans(rows, split),
                title="Release several statistics with differential privacy, as split by DP Explorer.",
                made=made,
                total=f"Together: epsilon = {split.best.epsilon:.4g} with delta = "
                f"{split.best.delta:.3g} (composed exactly).",
            )
        elif plan is not None:
            script = scripts.script(
                [plan],
                title=f"Release counts per category with differential privacy: "
                f"{answer.name} noise, epsilon = {plan.epsilon:.4g} per release.",
                made=made,
            )
        if script:
            st.markdown(
                "**Run it.** Save the script and run `python privacy-release.py your.csv your_column`; "
                "without arguments it runs on an example table that comes with dpcore. "
                + (
                    "It performs the split of section 6."
                    if several_now
                    else "It performs the recommended release once: run it once per release."
                )
            )
            st.download_button(
                "Download the script",
                script.encode("utf-8"),
                file_name=scripts.FILE_NAME,
                mime="text/x-python",
                key="script",
                on_click="ignore",
                icon=":material/code:",
            )
            shown = st.expander("Show the script", key="script-open", on_change="rerun")
            if shown.open:  # drawn when opened: a slider move does not resend the script
                shown.code(script, language="python")
        else:
            st.caption(
                "A script is made for counts and sums with an answer; top-c selection runs with `dpcore.svt.run_svt`."
            )
        covered, not_covered = words.assumptions(req, answer, comp, s.delta if req.kind != "topc" else 0.0)
        report = reports.Report(
            req,
            answer,
            comp,
            words.alternatives(neg),
            covered,
            not_covered,
            link=_link(),
            script=script,
            split_rows=rows if several_now else (),
            split=split if several_now else None,
            appendix=answer.reasons,
        )
        st.download_button(
            "Download the report (HTML: prints on one page and an appendix)",
            reports.report_html(report).encode("utf-8"),
            file_name="privacy-budget-report.html",
            mime="text/html",
            key="report",
            on_click="ignore",
            icon=":material/description:",
        )
        st.caption(
            "Open it and print it, or save it as PDF from the print dialog. "
            + (
                "Its link opens this view."
                if reports.public_link(_link())
                else "It carries no link back to this view: this copy of the app has no address outside this computer."
            )
        )


def _escape(text: str) -> str:
    return escape(text)


def _md(text: str) -> str:
    return ledger.escape(text)
