"""The app's one cache: two decorators over one bounded least-recently-used store, :class:`Memory`.

- :func:`cached`: each caller gets its own copy of the value (compute results: frames, dataclasses). Values are kept
  pickled, so a caller can never change what the next caller sees; pickled bytes also keep the cache out of the
  garbage collector's sight (the app collects after every rerun, see ``app.compute.settle_heap``).
- :func:`cached_resource`: one object shared by every caller, read-only (a built figure, a table shown as it is, a
  typeset text); nobody may change it.

A decorated function keeps up to ``max_entries`` results in a process-wide :class:`Memory`, keyed by its arguments
and their types. It is shared by every session of the app's process, and also works in a marimo lesson, a worker
process, a script or a test. When several sessions ask for the same new value at once (a class moving one slider
together), the value is computed once; the others wait for it while other values proceed (``cachetools.cached`` with
a ``condition``).

Stores that are not a function's memo keep their values in a :class:`Memory` too, under their own lock: a lesson's
values computed ahead (``app.lessons.remember``), the background jobs (``app.scheduler``, whose unfinished jobs are
never dropped) and the in-figure sliders' decks (``app.slides``).

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
from collections import OrderedDict
from collections.abc import Callable, Hashable, ItemsView, Iterator, KeysView, MutableMapping, ValuesView
from typing import Any, Generic, ParamSpec, TypeVar

import cachetools
import cachetools.keys
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_ENTRIES = 256  # every cache is bounded, so many classroom sessions cannot grow memory without limit


class Memory(MutableMapping[K, V], Generic[K, V]):
    """A bounded store that drops the least recently used entry first: reading or writing an entry uses it.

    ``kept(value)``, when given, names values that are never dropped to make room (the background jobs still
    running): the store then holds ``max_entries`` entries besides those. Not thread-safe: its owner holds a lock.
    ``in``, ``keys()``, ``values()`` and ``items()`` look without using (oldest first).
    """

    def __init__(self, max_entries: int = MAX_ENTRIES, *, kept: Callable[[V], bool] | None = None):
        self.max_entries = max_entries
        self._kept = kept
        self._data: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        excess = len(self._data) - self.max_entries
        if excess > 0:
            kept = self._kept
            old = [k for k, v in self._data.items() if kept is None or not kept(v)][:excess]
            for k in old:
                del self._data[k]

    def __delitem__(self, key: K) -> None:
        del self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> KeysView[K]:
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        return self._data.values()

    def items(self) -> ItemsView[K, V]:
        return self._data.items()

    def clear(self) -> None:
        self._data.clear()


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

    return cachetools.cached(Memory(max_entries), key=cachetools.keys.typedkey, condition=threading.Condition())(
        compute
    )


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
    that would be costly to copy, or a typeset text. Callers must not change them."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        memo = _memo(func, max_entries, None)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return memo(*args, **kwargs)

        wrapper.clear = memo.cache_clear  # type: ignore[attr-defined]
        return wrapper

    return decorate(fn) if fn is not None else decorate
