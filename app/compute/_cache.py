"""One cache decorator for every compute function, the same inside and outside a Streamlit server.

A decorated function keeps up to ``max_entries`` results in a process-wide least-recently-used cache
(``cachetools.LRUCache``), keyed by its arguments and their types. It is shared by every session of the app's
process, and also works in a marimo lesson, a worker process, a script or a test.

- When several sessions ask for the same new value at once (a class moving one slider together), the value is computed
  once. The others wait for it; other values proceed (the cache's ``condition``).
- :func:`cached` stores each value pickled and returns a fresh copy, so a caller can never change what the next caller
  sees. Pickled bytes also keep the cache out of the garbage collector's sight: the app collects after every rerun
  (see ``app.compute.settle_heap``).
- :func:`cached_resource` shares one object between callers: read-only values such as a built figure.

Why not ``st.cache_data``: it hashes every argument through its own type-dispatching hasher and reads the function's
signature on every call. A page calls a few dozen cached functions per rerun, so that was a visible part of every
slider move; a lookup here is a dictionary look-up plus the copy (bench/results-where-time-goes.md, "The compute
cache").

Arguments must be hashable scalars (ε, T, a seed, a short tuple): that is what makes a cached view shareable and keeps
the cache key cheap.
"""

from __future__ import annotations

import contextlib
import functools
import pickle
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import cachetools
import cachetools.keys
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

P = ParamSpec("P")
R = TypeVar("R")

MAX_ENTRIES = 256  # every cache is bounded, so many classroom sessions cannot grow memory without limit


def _spinner(text: str | None) -> contextlib.AbstractContextManager[Any]:
    """Streamlit's spinner with ``text`` while a value is computed for a page run; nothing anywhere else."""
    if text and get_script_run_ctx(suppress_warning=True) is not None:
        return st.spinner(text)
    return contextlib.nullcontext()


def _memo(func: Callable[..., Any], max_entries: int, spinner: str | None) -> Any:
    """``func`` memoised in a bounded LRU cache; one computation per key at a time."""

    def compute(*args: Any, **kwargs: Any) -> Any:
        with _spinner(spinner):
            return func(*args, **kwargs)

    return cachetools.cached(cachetools.LRUCache(maxsize=max_entries), key=cachetools.keys.typedkey,
                             condition=threading.Condition())(compute)


def cached(
    fn: Callable[P, R] | None = None, *, max_entries: int = MAX_ENTRIES, show_spinner: bool | str = False
) -> Any:
    """Cache ``fn`` by its (scalar) arguments; each call returns its own copy of the value.

    Use as ``@cached`` or ``@cached(show_spinner="Composing …")``: the text is shown on the page while a new value is
    computed. The undecorated function stays available as ``fn.__wrapped__`` (the background workers call it
    directly), and ``fn.clear()`` empties the cache.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        text = show_spinner if isinstance(show_spinner, str) else ("Computing …" if show_spinner else None)
        memo = _memo(lambda *a, **k: pickle.dumps(func(*a, **k), protocol=pickle.HIGHEST_PROTOCOL), max_entries, text)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return pickle.loads(memo(*args, **kwargs))

        wrapper.clear = memo.cache_clear  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate


def cached_resource(fn: Callable[P, R] | None = None, *, max_entries: int = MAX_ENTRIES) -> Any:
    """Like :func:`cached` for values that are shared, not copied: read-only objects such as a built figure or table
    that would be costly to copy. Callers must not change them."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        memo = _memo(func, max_entries, None)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return memo(*args, **kwargs)

        wrapper.clear = memo.cache_clear  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate
