"""Home: what differential privacy promises, in one picture, a "start here" path, and a card per page."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import compute, course, decks, instant, links, params, registry, ui
from app.notation import number, percent

IDEA = (
    "Differential privacy adds carefully calibrated noise to every answer, so that whether or not **your** record is "
    "in the data, every possible answer is almost equally likely — and the budget **ε** says how close “almost” is."
)


@dataclass(frozen=True)
class Settings:
    eps: float


def sidebar() -> Settings:
    """The home page's one control, ε, sits next to its picture (see :func:`render`); nothing in the sidebar."""
    return Settings(eps=float("nan"))


def render(_: Settings) -> None:
    ui.header("DP Explorer", IDEA)
    st.markdown(
        "An interactive companion to five recent papers on differential privacy (DP), for students, teachers in "
        "front of a class, and anyone deciding *how much privacy to give up for how much accuracy*."
    )
    picture()
    start_here()
    cards()


def picture() -> None:
    """The picture of what ε means: how far one answer can move an observer's belief."""
    with ui.panel("What ε promises, in one picture", key="epsilon-promise"):
        _promise()


def _promise() -> None:
    left, right = st.columns([3, 2], gap="large")
    with right, st.container(border=True):
        st.markdown("**Move ε and watch the band.**")
        eps = float(params.control("eps", container=st.container()))
        try:
            table, factor = compute.belief_table(eps)
            st.metric(
                "largest factor on anyone's odds, e^ε",
                f"{number(factor, 3)}×",
                help="Whatever the observer believed before, one answer can multiply her odds by at most this.",
            )
            shown = pd.DataFrame(
                {
                    "belief before": [percent(p, 0) for p in table["prior"]],
                    f"at most, after one answer at ε = {number(eps)}": [percent(q) for q in table["largest_posterior"]],
                }
            )
            st.dataframe(shown, hide_index=True, width="stretch")
        except ValueError as exc:
            ui.show_error(exc)
            return
    with left:
        df = compute.belief_curve(eps)
        ui.chart(
            instant.figure(decks.belief, "eps", eps, slot="epsilon-promise", play=True),
            df,
            name="what epsilon promises",
            alt="For every belief an observer holds before seeing an answer, the lowest and highest belief she "
            "can hold after one answer at this epsilon: a band around the diagonal that widens as epsilon "
            "grows.",
        )
        half = table.loc[table["prior"] == 0.5, "largest_posterior"].item()
        ui.notice(
            f"a sceptic who gave 50 % to “Alice is in the data” can be pushed to at most {100 * half:.1f} % by any "
            f"single answer at ε = {number(eps)}. Small ε keeps the band thin; at ε = 5 one answer can almost "
            "reveal membership."
        )
    st.markdown(
        "* **ε (epsilon)** bounds how much any single record can change the chance of any answer: by a factor of at "
        "most **e^ε**. Smaller ε means more noise and stronger privacy.\n"
        "* **δ (delta)** is a small probability with which that promise may fail; keep it far below one over the "
        "number of people in the data."
    )


def start_here() -> None:
    """The newcomer's path: the first course, chapter by chapter (the ready-made lesson "start" plays the same
    chapters for a class)."""
    st.header("Start here: a first course")
    st.markdown(
        "Never heard of differential privacy? Ten short chapters, each one idea with one picture and a check, "
        "lead from what ε promises to the idea of each paper."
    )
    if not registry.COURSE.exists:
        return
    keep = links.in_app_query() or {}
    cols = st.columns(2, gap="medium")
    half = (len(course.CHAPTERS) + 1) // 2
    for i, ch in enumerate(course.CHAPTERS):
        with cols[i // half]:
            st.page_link(
                str(registry.COURSE.path),
                label=f"{ch.number}. {ch.title}",
                icon=":material/school:",
                query_params={"chapter": ch.slug} | keep,
            )


def _cards(pages: list[registry.PageInfo]) -> None:
    cols = st.columns(3, gap="medium")
    for i, page in enumerate(pages):
        with cols[i % 3].container(border=True, height="stretch"):
            st.markdown(f"### {page.title}")
            if page.paper:
                st.caption(page.paper)
            st.markdown(page.blurb)
            if page.exists:
                st.page_link(
                    str(page.path),
                    label=f"Open {page.title}",
                    icon=":material/arrow_forward:",
                    query_params=links.in_app_query(),
                )


def cards() -> None:
    st.header("Explore")
    _cards([registry.BASELINES, *registry.TOPICS])
    tools = [p for p in registry.TOOLS if p.exists]
    if tools:
        st.header("Decide")
        st.markdown("Agree on a budget, keep track of what has been spent, and check the claims.")
        _cards(tools)
