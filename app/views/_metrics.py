"""A row of numbers, the pages' most repeated block: one ``st.metric`` card per column."""

from __future__ import annotations

from typing import Any

import streamlit as st

#: One card: (label, value) or (label, value, help), as ``st.metric`` takes them.
Card = tuple[str, Any] | tuple[str, Any, str | None]


def metric_row(*cards: Card) -> None:
    """The cards side by side, one column each, in order, their numbers on one line: a name that wraps onto a second
    line in a narrow column pushes its card's top up, not its number down."""
    columns = st.columns(len(cards), vertical_alignment="bottom")
    for column, (label, value, *help_) in zip(columns, cards, strict=True):
        column.metric(label, value, help=help_[0] if help_ else None)
