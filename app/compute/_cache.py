"""One cache decorator for every compute function, inside and outside a Streamlit server.

Inside a running app (``streamlit run`` or AppTest) a decorated function is cached by ``st.cache_data``: results are
shared by every session of the process, copied on return, and bounded by ``max_entries``. Anywhere else (a marimo
lesson, a worker process, a script, a test) there is no Streamlit runtime; ``st.cache_data`` would then log a
"No runtime found" warning per function, so the call goes to a plain ``functools.lru_cache`` of the same size instead,
and a copy of the cached value is returned so a caller can never change what the next caller sees.

Arguments must be hashable scalars (ε, T, a seed, a short tuple): that is what makes a cached view shareable and keeps
the cache key cheap.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import streamlit as st
from streamlit import runtime

P = ParamSpec("P")
R = TypeVar("R")

MAX_ENTRIES = 256  # every cache is bounded, so many classroom sessions cannot grow memory without limit


def in_streamlit() -> bool:
    """True inside a Streamlit server or an AppTest run (a runtime exists)."""
    return runtime.exists()


def _lazy(make: Callable[[], Any]) -> Callable[[], Any]:
    """``make()`` once, on first use: Streamlit's cache decorators warn when applied with no runtime, so the
    Streamlit-cached function is built only inside the app (two racing builds share one cache: Streamlit keys it by
    the function's module, name and source)."""
    box: list[Any] = []

    def get() -> Any:
        if not box:
            box.append(make())
        return box[0]

    return get


def cached(
    fn: Callable[P, R] | None = None, *, max_entries: int = MAX_ENTRIES, show_spinner: bool | str = False
) -> Any:
    """Cache ``fn`` by its (scalar) arguments: ``st.cache_data`` in the app, ``functools.lru_cache`` elsewhere.

    Use as ``@cached`` or ``@cached(show_spinner="Composing …")``. The undecorated function stays available as
    ``fn.__wrapped__`` (the background workers call it directly).
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        plain = functools.lru_cache(maxsize=max_entries)(func)
        in_app = _lazy(lambda: st.cache_data(max_entries=max_entries, show_spinner=show_spinner)(func))

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if in_streamlit():
                return in_app()(*args, **kwargs)
            return copy.deepcopy(plain(*args, **kwargs))

        def clear() -> None:
            """Empty both caches."""
            if in_streamlit():
                in_app().clear()
            plain.cache_clear()

        wrapper.clear = clear  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate


def cached_resource(
    fn: Callable[P, R] | None = None, *, max_entries: int = MAX_ENTRIES
) -> Any:
    """Like :func:`cached` for values that are shared, not copied (``st.cache_resource`` in the app): read-only
    objects such as a built table or a fitted model that would be costly to copy."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        plain = functools.lru_cache(maxsize=max_entries)(func)
        in_app = _lazy(lambda: st.cache_resource(max_entries=max_entries, show_spinner=False)(func))

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return in_app()(*args, **kwargs) if in_streamlit() else plain(*args, **kwargs)

        def clear() -> None:
            if in_streamlit():
                in_app().clear()
            plain.cache_clear()

        wrapper.clear = clear  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate
