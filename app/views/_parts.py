"""Two layouts the pages repeat: a view's parts as URL-bound tabs of which only the open one is drawn, and charts side
by side in one row of columns."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import params, ui


def open_part(parts: Mapping[str, Callable[..., None]], *args: Any, aliases: Mapping[str, str] | None = None) -> None:
    """The parts as tabs bound to the address (``?part=<label>``); only the open one is drawn, ``draw(*args)``.

    ``aliases`` maps the names a part had in older links to its label today (:func:`app.params.parts`).
    """
    tabs = params.parts(list(parts), aliases=aliases)
    for tab, draw in zip(tabs, parts.values(), strict=True):
        if tab.open:
            with tab:
                draw(*args)


class Chart(NamedTuple):
    """One chart of a row: what :func:`app.ui.chart` draws."""

    fig: go.Figure
    data: pd.DataFrame | Callable[[], pd.DataFrame]
    name: str
    alt: str


def side_by_side(*charts: Chart, widths: Sequence[float] | None = None) -> None:
    """The charts in one row, left to right, each in its own column (``widths`` relative, equal by default)."""
    for column, chart in zip(st.columns(list(widths) if widths else len(charts)), charts, strict=True):
        with column:
            ui.chart(chart.fig, chart.data, name=chart.name, alt=chart.alt)
