"""The projector's view of a class poll (``/poll?poll=<id>``, the teacher's private link).

While the poll is open, one fragment redraws itself every two seconds without the teacher touching anything: the QR
code and join link, the number of answers, the raw share of Yes reports and the estimate of the true share with its
95 % interval, and the picture of the coin's line with the poll's numbers on it. Once the poll is closed (Stop, or its
time limit) the fragment stops and the replays at another ε appear.
"""

from __future__ import annotations

import base64
import html
import io
import math
from datetime import datetime, timedelta

import pandas as pd
import segno
import streamlit as st

from app import classroom, params, ui
from app import ledger_store as ls
from app import poll_store as ps
from app.compute import poll as C
from app.compute._cache import cached_resource
from app.figures import poll as F
from app.notation import number
from app.views.poll._common import (
    POLL_PAGE,
    find,
    join_url,
    minutes_and_seconds,
    only_here,
    opens_at_top,
    pct,
    points,
    short_join,
    unavailable,
)
from dpcore.ldp import rr_survey as rr

REFRESH = timedelta(seconds=2)  # how often the open poll's numbers are read again
#: The projector's sizes: a QR code a phone reads from the back of a room, the code large enough to type from there.
STYLE = """
<style>
.dpx-poll-qr { width: 210px; height: 210px; image-rendering: pixelated; display: block; }
.dpx-poll-code { font-size: 2.2rem; font-weight: 700; letter-spacing: 0.12em; line-height: 1.2; }
</style>
"""


@cached_resource(max_entries=64)
def qr_png(url: str) -> bytes:
    """The QR code of ``url`` as a PNG (segno; error correction M, a quiet zone of two modules, black on white)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=10, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


def render(poll_id: str) -> None:
    found = find(lambda polls: polls.by_id(poll_id))
    if found is None:
        return
    polls, poll = found
    if poll is None:
        st.title("Class poll")
        st.error(
            "This address names no poll on this server (the link may be mistyped, or from another server).",
            icon=":material/link_off:",
        )
        _new_poll_link()
        return
    st.html(STYLE)
    opens_at_top(f"poll {poll.code}")
    st.title(poll.question, anchor=False)
    is_open = poll.is_open(polls.clock())
    st.fragment(run_every=REFRESH if is_open else None)(_live)(poll_id, is_open)
    if not is_open:
        _new_poll_link()
        _replays(poll)
    with st.expander("This page's address is your private link", icon=":material/key:"):
        st.markdown(
            "Whoever has the address of this page sees the results and can stop the poll: bookmark it to "
            "come back, and keep it off the projector (in full screen, F11, the address bar is hidden). The "
            "class only needs the join link."
        )


def _live(poll_id: str, was_open: bool) -> None:
    """The numbers that change while phones answer (a fragment: rerun every two seconds while the poll is open)."""
    found = find(lambda polls: polls.by_id(poll_id))
    if found is None:
        return
    polls, poll = found
    if poll is None:
        return
    now = polls.clock()
    is_open = poll.is_open(now)
    if was_open and not is_open:  # closed meanwhile (its time limit, or Stop in another tab): draw the results
        st.rerun(scope="app")
    join, numbers = st.columns([3, 7], gap="large")
    with join:
        _join(poll, is_open)
    with numbers:
        _status(polls, poll, is_open, now)
        e = _numbers(poll)
        _reveals(poll.epsilon)
    if e is not None:
        _picture(e)


def _join(poll: ps.Poll, is_open: bool) -> None:
    url = join_url(poll.code)
    if not is_open:
        st.markdown(f"**Closed.** The join code {poll.code} no longer takes answers.")
        return
    png = base64.b64encode(qr_png(url)).decode()
    st.markdown(
        f'<img class="dpx-poll-qr" src="data:image/png;base64,{png}" '
        f'alt="QR code that opens the join link {html.escape(short_join(url))}">',
        unsafe_allow_html=True,
    )
    st.markdown(f'<div class="dpx-poll-code">{html.escape(poll.code)}</div>', unsafe_allow_html=True)
    st.markdown(f"Scan, or open **{short_join(url)}**")
    if only_here(url) and not ui.presenting():  # the teacher's set-up note, not the class's
        st.caption(
            ":material/warning: Phones cannot open this address: it is this computer's own. Whoever runs the app "
            "can give it one the class can reach (`DPX_PUBLIC_URL`, see the README)."
        )


def _status(polls: ps.PollStore, poll: ps.Poll, is_open: bool, now: datetime) -> None:
    """Open or closed, the time left and ε; the Stop button."""
    row = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    if not is_open:
        row.markdown(f":material/stop_circle: **Closed** · ε = {number(poll.epsilon, 3)}")
        return
    row.markdown(
        f":material/radio_button_checked: **Open** · closes in {minutes_and_seconds(poll.closes_at - now)} · "
        f"ε = {number(poll.epsilon, 3)}"
    )
    if row.button("Stop the poll", icon=":material/stop:", key="_dpx_poll_stop", type="primary"):
        try:
            polls.stop(poll.id)
        except ls.StoreUnavailable as exc:
            unavailable(exc)
            return
        st.rerun(scope="app")  # the whole page: the results and the replays


def _numbers(poll: ps.Poll) -> rr.ShareEstimate | None:
    """The count, the raw share of Yes reports and the estimate of the true share with its interval, in one row."""
    n = poll.answers
    answered, raw, estimated = st.columns([5, 4, 5])
    answered.metric("So far", f"{n} answer{'s' if n != 1 else ''}")
    if not n:
        raw.metric("Yes reports", "–", help="The share of Yes among the answers, after the coin.")
        estimated.metric(
            "Estimated true share of Yes", "–", "appears with the first answers", delta_color="off", delta_arrow="off"
        )
        return None
    e = C.estimate(poll.yes, n, poll.epsilon)
    raw.metric(
        "Yes reports",
        pct(e.observed),
        help="The share of Yes among the answers as counted, after the coin: "
        "not the class's true share, which the estimate recovers.",
    )
    estimated.metric(
        "Estimated true share of Yes",
        pct(e.share),
        f"95 % interval: {pct(e.low)} to {pct(e.high)}",
        delta_color="off",
        delta_arrow="off",
        help="The share of Yes reports read back through the coin: (Yes reports − (1 − p))/(2p − 1), "
        "with p = e^ε/(1 + e^ε). It is right on average; the interval holds the true share in 95 % "
        "of polls.",
    )
    return e


def _picture(e: rr.ShareEstimate) -> None:
    """The coin's line with this poll's numbers on it: the Yes reports read back to the estimate."""
    fig = ui.memo_figure(
        F.coin_line,
        e.epsilon,
        e.truth_probability,
        observed=e.observed,
        band=rr.wilson_interval(e.yes, e.answers),
        estimate=e.share,
        interval=(e.low, e.high),
    )
    frame = pd.DataFrame(
        {
            "answers": [e.answers],
            "Yes reports": [e.yes],
            "ε": [e.epsilon],
            "share of Yes reports": [e.observed],
            "unbiased estimate": [e.unbiased],
            "estimate (within 0 to 1)": [e.share],
            "95 % interval, low": [e.low],
            "95 % interval, high": [e.high],
        }
    )
    ui.chart(
        fig,
        frame,
        name="poll estimate",
        alt=f"{pct(e.observed)} Yes reports read back along the coin's line to an estimate of {pct(e.share)} "
        f"truly Yes, between {pct(e.low)} and {pct(e.high)}.",
    )
    note = "the Yes reports sit on the blue line; reading them back down to the class's share stretches their chance "
    note += "variation by 1/(2p − 1), which is why the interval is wider than the raw share's."
    if e.unbiased != e.share:
        note += (
            f" The unbiased estimate is {pct(e.unbiased)}: chance pushed it past the possible range, so "
            f"{pct(e.share)} is quoted."
        )
    ui.notice(note)


def _new_poll_link() -> None:
    st.page_link(
        str(POLL_PAGE.path),
        label="Start a new poll",
        icon=":material/add_circle:",
        query_params=classroom.in_app_query(),
    )


def _reveals(epsilon: float) -> None:
    """What one answer reveals, in the local-DP paper's terms: each report's realized privacy loss."""
    yes, no = rr.answer_losses(epsilon)
    st.markdown(
        f"**What one answer reveals:** its realized privacy loss (Pan 2023) is ℓ(Yes) = {number(yes, 3)} for a Yes "
        f"and ℓ(No) = {number(no, 3)} for a No, exactly ε. A Yes makes *truly Yes* at most e^ε = "
        f"{number(math.exp(yes), 3)} times as likely, against *No*, as before; a No the other way."
    )


#: A 95 % interval this wide (as a share) covers every possible share: the class is too small to tell at this ε.
WHOLE_RANGE = 0.995


def _replays(poll: ps.Poll) -> None:
    """After the poll: the same class answering again through a coin of another ε (seeded simulation)."""
    with ui.panel(
        "What if ε had been different?",
        "a smaller ε makes a fairer coin: each answer reveals less, and the same class's estimate "
        "scatters more widely from one replay to the next.",
    ):
        if not poll.answers:
            st.info("No answers were counted, so there is nothing to replay.", icon=":material/info:")
            return
        e = C.estimate(poll.yes, poll.answers, poll.epsilon)
        st.markdown(
            f"The replays keep this class: {poll.answers} {'student' if poll.answers == 1 else 'students'}, "
            f"{pct(e.share)} of them truly Yes (the poll's estimate). Each replay draws every coin afresh."
        )
        left, right = st.columns(2)
        other = float(params.control("reps", container=left))
        seed = int(params.control("seed", container=right))
        r = C.replays(poll.answers, e.share, poll.epsilon, other, seed)
        cols = st.columns(len(r.runs))
        for col, run in zip(cols, r.runs, strict=True):
            which = "this poll's ε" if run.epsilon == poll.epsilon else "the replay's ε"
            col.metric(
                f"Spread of the estimate at ε = {number(run.epsilon, 3)} ({which})",
                f"± {points(run.std_error)}",
                f"typical 95 % interval: {points(run.typical_width)} wide"
                if run.typical_width < WHOLE_RANGE
                else "typical 95 % interval: all of 0–100 %",
                delta_color="off",
                delta_arrow="off",
                help="One standard deviation of the estimate over replays of the same class (exact), and "
                "the median width of the interval the projector would have shown, in percentage points.",
            )
        ex = r.runs[-1].example
        st.markdown(
            f"One replay at ε = {number(ex.epsilon, 3)} (seed {seed}): {ex.yes} of {ex.answers} Yes reports, "
            f"an estimate of {pct(ex.share)} (95 % interval {pct(ex.low)} to {pct(ex.high)})."
        )
        if ((r.frame["estimate"] < 0) | (r.frame["estimate"] > 1)).any():
            st.caption(
                "Some replays estimate less than 0 % or more than 100 % Yes: the estimate undoes the coin's "
                "flips on average, and with few answers that stretches it past the possible shares (the "
                "projector shows such an estimate as 0 % or 100 %). The more answers, the closer they stay."
            )
        ui.chart(
            F.replays(r.frame, share=r.true_yes / r.answers),
            r.frame,
            name="poll replays",
            alt=f"Histograms of {C.RUNS} replayed estimates at epsilon {number(poll.epsilon, 3)} and "
            f"{number(other, 3)}: the smaller epsilon spreads them wider around {pct(e.share)}.",
        )
