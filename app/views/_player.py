"""A step player over a recorded run (BR-DP's recycler, SVT's comparisons): Reset, Step, +10, Play / Pause and any
extra buttons in one row, the step kept in session state.

Session state under a page's ``prefix``: ``<prefix>_step`` (how much of the run is shown, 0…n), ``<prefix>_play``
and ``<prefix>_sig`` (the settings the run belongs to); widget keys ``<prefix>_reset``, ``_one``, ``_ten``,
``_next``, ``_playbtn`` and ``_end``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st


def start(prefix: str, signature: Hashable, n: int) -> None:
    """New settings (another ``signature``) show the whole new run, paused."""
    ss = st.session_state
    if ss.get(f"{prefix}_sig") != signature:
        ss[f"{prefix}_sig"], ss[f"{prefix}_step"], ss[f"{prefix}_play"] = signature, n, False


def tick(prefix: str, seconds: float) -> float | None:
    """The fragment's ``run_every`` while playing, ``None`` when paused."""
    return seconds if st.session_state.get(f"{prefix}_play") else None


def controls(
    prefix: str,
    n: int,
    *,
    per_tick: int,
    width: str = "content",
    jump: tuple[str, Callable[[int], int]] | None = None,
    end: bool = False,
) -> int:
    """Draw the buttons and, while playing, advance ``per_tick`` steps; return the step to show.

    ``jump`` adds a button (its label, and the step it moves to from the current one) after +10; ``end`` adds a
    button that shows the whole run.
    """
    ss = st.session_state
    step, play = f"{prefix}_step", f"{prefix}_play"
    cols = iter(st.columns(4 + (jump is not None) + end))
    if next(cols).button("Reset", key=f"{prefix}_reset", icon=":material/first_page:", width=width):
        ss[step], ss[play] = 0, False
    if next(cols).button("Step", key=f"{prefix}_one", icon=":material/skip_next:", width=width):
        ss[step] = min(ss[step] + 1, n)
    if next(cols).button("+10", key=f"{prefix}_ten", width=width):
        ss[step] = min(ss[step] + 10, n)
    if jump is not None and next(cols).button(jump[0], key=f"{prefix}_next", width=width):
        ss[step] = jump[1](ss[step])
    playing = ss.get(play, False)
    if next(cols).button(
        "Pause" if playing else "Play",
        key=f"{prefix}_playbtn",
        width=width,
        icon=":material/pause:" if playing else ":material/play_arrow:",
    ):
        ss[play] = not playing
        if not playing and ss[step] >= n:
            ss[step] = 0
        st.rerun()
    if end and next(cols).button("End", key=f"{prefix}_end", icon=":material/last_page:", width=width):
        ss[step], ss[play] = n, False
    if playing:
        ss[step] = min(ss[step] + per_tick, n)
        if ss[step] >= n:
            ss[play] = False
            st.rerun()
    return int(min(ss[step], n))
