"""Shared, URL-bound widgets: every control writes its value to the page URL, so every view is shareable.

Streamlit's ``bind="query-params"`` silently drops URL values that are not valid for a widget. Before creating a
widget we therefore read the raw URL value ourselves: an invalid one (``?eps=-1``, ``?eps=nan``, ``?eps=abc``,
``?T=1000000000``) is recorded as a problem that :func:`app.ui.show_url_problems` shows with ``st.error`` (the
widget then starts at its default); a valid number between two grid points snaps to the nearest one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

_PROBLEMS = "_url_problems"
_CHECKED = "_url_checked"  # keys whose URL value was already validated during this visit of the page (see app/main.py)
_E_SERIES = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def log_grid(low: float, high: float, mantissas: Sequence[float] = _E_SERIES) -> tuple[float, ...]:
    """Human-friendly log-spaced values m·10^k (m from an E-series) in [low, high]."""
    out = []
    for k in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for m in mantissas:
            v = float(f"{m * 10.0**k:.6g}")
            if low * (1 - 1e-12) <= v <= high * (1 + 1e-12):
                out.append(v)
    return tuple(sorted(set(out)))


EPSILON_OPTIONS = log_grid(0.01, 20.0)
DELTA_OPTIONS = log_grid(1e-12, 0.1, (1.0, 2.0, 5.0))
SENSITIVITY_OPTIONS = log_grid(0.1, 10.0)
COMPOSITION_OPTIONS = tuple(int(v) for v in log_grid(1, 1000))
SEED_MAX = 2**31 - 1


def fmt_number(v: float) -> str:
    """Compact label (also the URL value) of a grid value: 0.01, 1.5, 20, 1e-05."""
    return f"{v:g}"


def _record(message: str) -> None:
    st.session_state.setdefault(_PROBLEMS, []).append(message)


def _shown(raw: str, limit: int = 40) -> str:
    """A URL value as quoted in an error message: printable, no backticks (they would end the code span), short."""
    text = "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in raw)
    return text if len(text) <= limit else text[:limit] + "…"


def _repeated(key: str) -> bool:
    """True when the link sets ``key`` more than once (the last value counts, as for Streamlit's own widgets)."""
    return len(st.query_params.get_all(key)) > 1


def take_url_problems() -> list[str]:
    """Problems found in this run's URL (each shown once), emptied on read."""
    return st.session_state.pop(_PROBLEMS, [])


def _parse_number(raw: str) -> float | None:
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _first_look(key: str) -> str | None:
    """The raw URL value of ``key`` the first time a page visit asks for it, else None.

    The backend's copy of the URL is not refreshed on same-page reruns, so a value is judged only once per visit.
    """
    checked = st.session_state.setdefault(_CHECKED, set())
    if key in checked:
        return None
    checked.add(key)
    return st.query_params.get(key)


def _forget_url_value(key: str) -> None:
    """Drop ``?key=…`` before its widget reads it.

    Streamlit 1.67's integer number input crashes on ``?seed=inf`` / ``1e400`` (``int(inf)`` raises OverflowError,
    which its URL seeding does not catch), so an invalid seed is removed from the URL, including the snapshot the
    widget is seeded from (a private attribute: if it moves, tests/app/test_fuzz_links.py fails).
    """
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        getattr(qp, "_initial_query_params", {}).pop(key, None)
        qp.remove_param(key)


def _widget_default(snapped: bool, **default: Any) -> dict[str, Any]:
    """The default to pass to a widget: none when this run put a snapped URL value into session state."""
    return {} if snapped else default


def _prefill(key: str, name: str, options: Sequence[Any], fmt: Callable[[Any], str], default: Any) -> bool:
    """Validate the raw URL value of ``key`` before its widget exists; True when it was snapped onto the grid."""
    raw = _first_look(key)
    if raw is None:
        return False
    numeric = all(isinstance(o, int | float) for o in options)
    if not numeric:
        if raw not in [fmt(o) for o in options]:
            allowed = ", ".join(fmt(o) for o in options)
            _record(f"The link set `{key}={_shown(raw)}`, but {name} must be one of {allowed}. Showing {fmt(default)}.")
        return False
    x = _parse_number(raw)
    lo, hi = min(options), max(options)
    if x is None or not lo <= x <= hi:
        _record(
            f"The link set `{key}={_shown(raw)}`, but {name} must be a number from {fmt(lo)} to {fmt(hi)}. "
            f"Showing the default {fmt(default)} instead."
        )
        return False
    if lo > 0:
        nearest = min(options, key=lambda o: abs(math.log(o) - math.log(x)))
    else:
        nearest = min(options, key=lambda o: abs(o - x))
    # a slider takes a repeated key (?eps=1&eps=2) for a range and drops it: hand it the last value like other widgets
    if fmt(nearest) != raw or _repeated(key):
        st.session_state[key] = nearest
        return True
    return False


def select_number(
    key: str,
    label: str,
    options: Sequence[float],
    default: float,
    *,
    name: str,
    help: str | None = None,
    fmt: Callable[[Any], str] = fmt_number,
    container: Any = None,
) -> float:
    """A URL-bound slider over a fixed grid of numbers (log-spaced grids make a log-scale slider)."""
    c = container or st.sidebar
    snapped = _prefill(key, name, options, fmt, default)
    kwargs = _widget_default(snapped, value=default)
    return c.select_slider(
        label, options=list(options), format_func=fmt, key=key, bind="query-params", help=help, **kwargs
    )


def choice(
    key: str,
    label: str,
    options: Sequence[str],
    default: str,
    *,
    name: str,
    help: str | None = None,
    container: Any = None,
) -> str:
    """A URL-bound radio choice among short strings; the option string itself is the URL value, so no relabelling."""
    c = container or st.sidebar
    _prefill(key, name, options, str, default)
    kwargs = {"index": list(options).index(default)}
    return c.radio(label, list(options), key=key, bind="query-params", help=help, horizontal=True, **kwargs)


def epsilon(key: str = "eps", default: float = 1.0, *, label: str = "ε — privacy-loss budget", container: Any = None) -> float:
    """Log-scale ε slider from 0.01 to 20 whose ends read "more private" and "more accurate"."""
    c = container or st.sidebar
    value = select_number(
        key,
        label,
        EPSILON_OPTIONS,
        default,
        name="ε",
        help="Smaller ε: the output barely depends on any one person (more private) but needs more noise. "
        "The scale is logarithmic.",
        container=c,
    )
    c.markdown(
        "<div style='display:flex;justify-content:space-between;font-size:0.8em;margin-top:-0.8em'>"
        "<span>← more private</span><span>more accurate →</span></div>",
        unsafe_allow_html=True,
    )
    return float(value)


def delta(key: str = "delta", default: float = 1e-5, *, container: Any = None) -> float:
    """δ slider over 1e-12 … 0.1 (1-2-5 steps)."""
    return float(
        select_number(
            key,
            "δ — failure probability",
            DELTA_OPTIONS,
            default,
            name="δ",
            help="The small probability with which the ε promise may fail. Keep it well below 1/(number of people).",
            container=container,
        )
    )


def sensitivity(key: str = "sens", default: float = 1.0, *, container: Any = None) -> float:
    """Sensitivity Δ slider over 0.1 … 10 (log scale)."""
    return float(
        select_number(
            key,
            "Δ — sensitivity",
            SENSITIVITY_OPTIONS,
            default,
            name="the sensitivity Δ",
            help="The most one person can change the true answer (1 for a count).",
            container=container,
        )
    )


def compositions(key: str = "T", default: int = 10, *, container: Any = None) -> int:
    """Number of releases T, 1 … 1000 (log scale)."""
    return int(
        select_number(
            key,
            "T — number of releases",
            COMPOSITION_OPTIONS,
            default,
            name="the number of releases T",
            help="How many times the mechanism is run on the same data; privacy losses add up.",
            container=container,
        )
    )


def seed(key: str = "seed", default: int = 0, *, container: Any = None) -> int:
    """Random seed (0 … 2³¹−1) so every sampled picture can be reproduced and shared."""
    c = container or st.sidebar
    if (raw := _first_look(key)) is not None:
        x = _parse_number(raw)
        if x is None or not x.is_integer() or not 0 <= x <= SEED_MAX:
            _record(f"The link set `{key}={_shown(raw)}`, but the seed must be a whole number from 0 to {SEED_MAX}. "
                    f"Showing seed {default}.")
            _forget_url_value(key)
    kwargs = {"value": default}
    return int(
        c.number_input(
            "Random seed", min_value=0, max_value=SEED_MAX, step=1, key=key, bind="query-params",
            help="Same seed, same random draws: share the link and others see exactly your samples.", **kwargs
        )
    )


def toggle(key: str, label: str, default: bool = False, *, help: str | None = None, container: Any = None) -> bool:
    """A URL-bound on/off switch (``?key=true`` / ``?key=false``)."""
    c = container or st.sidebar
    raw = _first_look(key)
    if raw is not None and raw.lower() not in ("true", "false"):
        _record(f"The link set `{key}={_shown(raw)}`, but {label!r} must be true or false. Showing {str(default).lower()}.")
    return bool(c.toggle(label, value=default, key=key, bind="query-params", help=help))


def tabs(key: str, labels: Sequence[str], *, name: str, on_change: str = "ignore", container: Any = None) -> Any:
    """URL-bound tabs (``?key=<label>``, lazy: render only ``tab.open`` ones); an unknown label is reported, not dropped.

    Streamlit silently drops a ``?key=`` value that names no tab, so the raw value is judged here first.
    """
    c = container or st
    labels = list(labels)
    _prefill(key, name, labels, str, labels[0])
    return c.tabs(labels, key=key, on_change=on_change, bind="query-params")
