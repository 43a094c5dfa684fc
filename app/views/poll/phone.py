"""A phone answering a class poll (``/poll?join=<code>``): the question, one line on the coin, Yes and No.

The coin is flipped here, on the server, the moment a button is pressed: the store receives only the report after
the coin (:func:`_answer`). The true answer lives in one local variable of that script run; it is not kept in the
session, written to a log or sent back (the page that follows is the same for Yes and No).
"""

from __future__ import annotations

import html

import streamlit as st

from app import ledger_store as ls
from app import poll_store as ps
from app import poll_voter
from app.views.poll._common import coin, find, join_form, opens_at_top, pct, unavailable
from dpcore.ldp import rr_survey as rr

_THANKED = "_dpx_poll_thanked"  # session state: the codes this session's answer was just counted for (not the answer)
#: Two large buttons of the same look (neither answer is the suggested one), easy to hit on a phone.
STYLE = """
<style>
/* the question starts just under the top bar, on a phone's first screen with its buttons */
[data-testid="stMainBlockContainer"] { padding-top: 4rem; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(
  > [data-testid="stHtml"] > :is(script, .dpx-phone-only):only-child
) { display: none; }
[data-testid="stMain"] h1 { font-size: 2rem; line-height: 1.25; }
[data-testid="stMain"] .dpx-phone-only { display: none !important; }
.st-key-_dpx_poll_yes button, .st-key-_dpx_poll_no button { min-height: 4.2rem; }
.st-key-_dpx_poll_yes button p, .st-key-_dpx_poll_no button p { font-size: 1.6rem; font-weight: 600; }
</style>
"""


def render(raw_code: str) -> None:
    st.html(STYLE)  # no "Open the settings" pointer: a phone answering a poll has no settings
    opens_at_top(f"join {ps.normal_code(raw_code)}")
    code = ps.normal_code(raw_code)
    found = find(lambda polls: polls.by_code(code))
    if found is None:
        return
    polls, poll = found
    if poll is None:
        shown = html.escape(raw_code.strip()[:12]) or "(none)"
        st.title("Class poll", anchor=False)
        st.error(
            f"There is no poll with the code **{shown}**. Check the code on the projector and type it again, or ask "
            "your teacher for its link.",
            icon=":material/search_off:",
        )
        join_form()
        return
    st.caption("Class poll")
    st.title(poll.question, anchor=False)
    if not poll.is_open(polls.clock()):
        _closed(poll)
        return
    token = poll_voter.token()
    try:
        answered = polls.has_answered(poll, token)
    except ls.StoreUnavailable as exc:
        unavailable(exc)
        return
    if answered:
        _thanks(poll)
        return
    st.markdown(
        f"Your answer goes through a coin first: it counts as you give it with probability "
        f"{pct(rr.truth_probability(poll.epsilon))}, as the opposite otherwise, so no one can know what you chose."
    )
    yes_col, no_col = st.columns(2)
    yes = yes_col.button("Yes", key="_dpx_poll_yes", width="stretch")
    no = no_col.button("No", key="_dpx_poll_no", width="stretch")
    if yes or no:
        _answer(polls, poll, token, yes)


def _answer(polls: ps.PollStore, poll: ps.Poll, token: str, truth: bool) -> None:
    """Flip this answer's coin and count the report; then the page shows the same thanks for Yes and for No."""
    reported = rr.randomize(truth, poll.epsilon, coin())
    try:
        polls.answer(poll.code, token, reported)
    except ps.AlreadyAnswered:
        pass  # the thanks say it: each phone answers once
    except ps.PollClosed as exc:
        _closed(exc.poll)
        return
    except ps.PollNotFound:
        st.error("This poll no longer exists.", icon=":material/search_off:")
        return
    except ls.StoreUnavailable as exc:
        unavailable(exc)
        return
    else:
        st.session_state[_THANKED] = {*st.session_state.get(_THANKED, ()), poll.code}
    st.rerun()


def _thanks(poll: ps.Poll) -> None:
    just_now = poll.code in st.session_state.get(_THANKED, ())
    if just_now:
        st.success("Thank you: your answer is in, after its coin flip. Watch the projector.", icon=":material/check:")
    else:
        st.info(
            "You have answered this poll already: each phone answers once. Watch the projector for the result.",
            icon=":material/how_to_vote:",
        )


def _closed(poll: ps.Poll) -> None:
    st.info(
        f"This poll has closed ({poll.answers} answer{'s' if poll.answers != 1 else ''}). Thank you! Ask your "
        "teacher for the new code if there is another question.",
        icon=":material/lock_clock:",
    )
