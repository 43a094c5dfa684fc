"""Starting a class poll (``/poll``): the idea and its picture, the teacher's form, and a box for a student who came
here without the join link."""

from __future__ import annotations

import streamlit as st

from app import classroom, params, ui
from app import ledger_store as ls
from app import poll_store as ps
from app.catalogue.poll import OWN, QUESTIONS
from app.figures import poll as F
from app.notation import number
from app.views.poll._common import POLL_KEY, POLL_PAGE, join_form, pct, store, unavailable
from dpcore.ldp import rr_survey as rr

TITLE = "Class poll: randomized response, live"
IDEA = (
    "Every phone's answer goes through a weighted coin before it is counted, so no single answer can be trusted — "
    "yet the share of Yes in the whole class can still be estimated, and the projector shows it as the answers "
    "arrive."
)
_OWN_TEXT = "_dpx_poll_own"  # session state: the teacher's own question as typed


def render() -> None:
    ui.header(TITLE, IDEA)
    form, picture = st.columns([5, 6], gap="large")
    with form:
        question, eps, minutes = _form()
    with picture:
        _picture(eps)
    _join_box()


def _form() -> tuple[str, float, int]:
    """The question, ε and the time limit, and the **Start a poll** button."""
    st.header("Start a poll", anchor=False)
    choice = params.control("pq", container=st.container())
    if choice == OWN:
        question = st.text_input(
            "Your yes/no question", key=_OWN_TEXT, max_chars=ps.MAX_QUESTION, placeholder="Have you ever …?"
        )
    else:
        question = QUESTIONS[choice]
    eps = float(
        params.control(
            "eps",
            container=st.container(),
            help=(
                "How much one phone's answer may reveal: it is the truth with probability e^ε/(1 + e^ε). Smaller ε, a "
                "fairer coin: more private answers, a wider interval around the estimate."
            ),
        )
    )
    minutes = int(params.control("pmins", container=st.container()))
    p = rr.truth_probability(eps)
    st.caption(
        f"At ε = {number(eps, 3)} a phone's answer is counted as given with probability {pct(p)}, and "
        f"turned into the opposite one otherwise. The poll closes on **Stop** or after {minutes} "
        f"minute{'s' if minutes != 1 else ''}."
    )
    if st.button("Start a poll", type="primary", icon=":material/play_arrow:", key="_dpx_poll_start"):
        _start(question, eps, minutes)
    return question, eps, minutes


def _start(question: str, eps: float, minutes: int) -> None:
    if not question.strip():
        st.error("Write your question first (or pick a ready one).", icon=":material/edit:")
        return
    polls = store()
    if polls is None:
        return
    try:
        poll = polls.create(question, eps, minutes)
    except ValueError as exc:
        ui.show_error(exc)
        return
    except ls.StoreUnavailable as exc:
        unavailable(exc)
        return
    # a page switch, not a rerun: the projector's view opens at its top, and its address names the poll only
    st.switch_page(str(POLL_PAGE.path), query_params={POLL_KEY: poll.id} | (classroom.in_app_query() or {}))


def _picture(eps: float) -> None:
    """The idea's picture: how the coin flattens the share of Yes, at the chosen ε."""
    p = rr.truth_probability(eps)
    fig = ui.memo_figure(F.coin_line, float(eps), p)
    st.plotly_chart(
        fig,
        key="chart-poll-coin",
        config={"displaylogo": False},
        alt=f"The share of Yes reports against the true share of Yes: a line from {pct(1 - p)} to "
        f"{pct(p)} at epsilon {number(eps, 3)}, flatter than the diagonal of truthful answers.",
    )
    ui.notice(
        f"even a class where nobody truly says Yes gives about {pct(1 - p)} Yes reports, and one where "
        f"everybody does about {pct(p)}. The estimate reads the reports back along the blue line; the "
        "flatter the line (the smaller ε), the more the chance in the reports is magnified."
    )


def _join_box() -> None:
    """For a student who came to /poll itself: type the code from the projector."""
    with st.expander("Answering a poll? Type its code", icon=":material/smartphone:"):
        join_form()


__all__ = ["IDEA", "TITLE", "render"]
