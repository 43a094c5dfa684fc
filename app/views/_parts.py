"""A view's parts as URL-bound tabs, of which only the open one is drawn: the layout of every page's explore and
reproduce views."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app import params


def open_part(parts: Mapping[str, Callable[..., None]], *args: Any, aliases: Mapping[str, str] | None = None) -> None:
    """The parts as tabs bound to the address (``?part=<label>``); only the open one is drawn, ``draw(*args)``.

    ``aliases`` maps the names a part had in older links to its label today (:func:`app.params.parts`).
    """
    tabs = params.parts(list(parts), aliases=aliases)
    for tab, draw in zip(tabs, parts.values(), strict=True):
        if tab.open:
            with tab:
                draw(*args)
