"""The class poll: randomized response with the class's own phones (the classic demonstration of local DP, live).

The page has three views, chosen by its address:

* ``/poll`` — the teacher writes a yes/no question (or picks a ready one), chooses ε and a time limit and presses
  **Start a poll** (:mod:`.setup`);
* ``/poll?poll=<id>`` — the projector: the QR code and join link, the number of answers and the estimate of the true
  share of Yes as they arrive, what one answer reveals, **Stop**, and afterwards replays at another ε (:mod:`.live`).
  The id is the teacher's capability (app/poll_store.py);
* ``/poll?join=<code>`` — a phone: the question, one line on the coin, **Yes** and **No** (:mod:`.phone`).

The coin is flipped on the server before anything is stored: the store receives only the report after the coin.
Numbers come from :mod:`app.compute.poll`, charts from :mod:`app.figures.poll`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app.views.poll import live, phone, setup
from app.views.poll._common import JOIN_KEY, POLL_KEY

TITLE = setup.TITLE
IDEA = setup.IDEA

__all__ = ["IDEA", "TITLE", "Settings", "render", "sidebar"]


@dataclass(frozen=True)
class Settings:
    """Which view the address asks for: a phone's join code, the teacher's poll id, or neither (start a poll)."""

    join: str | None
    poll: str | None


def sidebar() -> Settings:
    """The poll's settings are drawn on the page itself (the teacher's form, the replay's controls): the address
    only says which view to show."""
    join, poll = st.query_params.get(JOIN_KEY), st.query_params.get(POLL_KEY)
    return Settings(join if join else None, poll if poll else None)


def render(s: Settings) -> None:
    if s.join is not None:
        phone.render(s.join)
    elif s.poll is not None:
        live.render(s.poll)
    else:
        setup.render()
