"""The compute layer's cache: computed once, copied out, bounded, one computation per value under concurrency."""

from __future__ import annotations

import logging
import threading
import time
import warnings

import pandas as pd
import pytest

from app.compute._cache import Memory, cached, cached_resource


def _counting(fn):
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return fn(*args, **kwargs)

    counted.__name__ = fn.__name__
    return counted, calls


def test_a_value_is_computed_once_and_each_caller_gets_its_own_copy():
    f, calls = _counting(lambda x: pd.DataFrame({"x": [x, 2 * x]}))
    g = cached(f)
    a = g(3.0)
    a.loc[0, "x"] = -1.0  # a caller that changes its copy
    b = g(3.0)
    assert len(calls) == 1
    assert b["x"].tolist() == [3.0, 6.0]
    assert b is not a


def test_types_are_part_of_the_key():
    """1 and 1.0 are equal in Python but may make different frames (an int column, a float column)."""
    f, calls = _counting(lambda x: pd.Series([x]).dtype.kind)
    g = cached(f)
    assert (g(1), g(1.0)) == ("i", "f")
    assert len(calls) == 2


def test_the_cache_is_bounded_least_recently_used_first():
    f, calls = _counting(lambda x: x * x)
    g = cached(max_entries=2)(f)
    g(1), g(2), g(1), g(3)  # 2 is the least recently used when 3 arrives
    g(1)
    assert len(calls) == 3
    g(2)
    assert len(calls) == 4


def test_clear_empties_the_cache():
    f, calls = _counting(lambda x: x + 1)
    g = cached(f)
    g(1)
    g.clear()
    g(1)
    assert len(calls) == 2


def test_a_failure_is_not_remembered():
    state = {"fail": True}

    def f(x):
        if state["fail"]:
            raise ValueError("x: must be positive")
        return x

    g = cached(f)
    with pytest.raises(ValueError, match="x: must be positive"):
        g(1)
    state["fail"] = False
    assert g(1) == 1


@pytest.mark.parametrize("decorate", [cached, cached_resource])
def test_a_class_asking_for_one_new_value_at_once_computes_it_once(decorate):
    """Thirty sessions move the same slider to the same new value: one computation, the others wait for it, and
    another value is not held up meanwhile."""
    started = []

    def slow(x):
        started.append(x)
        time.sleep(0.3)
        return [x]

    g = decorate(slow)
    results, done_other = [], []
    threads = [threading.Thread(target=lambda: results.append(g(7))) for _ in range(30)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    other = threading.Thread(target=lambda: done_other.append((g(8), time.perf_counter() - t0)))
    other.start()
    for t in (*threads, other):
        t.join()
    assert started.count(7) == 1
    assert results == [[7]] * 30
    assert done_other[0][0] == [8] and done_other[0][1] < 0.55  # computed alongside, not after the 7


def test_a_shared_resource_is_one_object():
    g = cached_resource(lambda x: {"x": x})
    assert g(1) is g(1)


def test_works_outside_streamlit_without_warnings(caplog):
    """A lesson or a script imports the compute layer plainly: no Streamlit runtime, nothing logged or warned."""
    g = cached(lambda x: x * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.DEBUG, logger="streamlit"):
            assert g(2) == 4 and g(2) == 4
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_the_store_drops_the_least_recently_used_entry_first():
    m = Memory(2)
    m["a"], m["b"] = 1, 2
    assert m["a"] == 1  # reading uses "a": "b" is now the oldest
    m["c"] = 3
    assert list(m) == ["a", "c"]
    assert m.get("b") is None and len(m) == 2


def test_looking_at_the_store_uses_nothing():
    m = Memory(2)
    m["a"], m["b"] = 1, 2
    assert "a" in m and list(m.values()) == [1, 2] and list(m.items())[0] == ("a", 1)
    m["c"] = 3  # "a" was only looked at, so it is still the oldest
    assert list(m) == ["b", "c"]


def test_kept_values_are_never_dropped_to_make_room():
    """The background jobs' store: unfinished jobs stay whatever their age; the oldest finished ones make room."""
    m = Memory(2, kept=lambda v: v == "running")
    m["a"], m["b"], m["c"] = "running", "done", "running"
    assert list(m) == ["a", "c"]  # over the bound by one: the finished "b" went, though "a" is older
    m["d"] = "running"
    assert list(m) == ["a", "c", "d"]  # nothing finished left to drop: the store holds more than its bound
    m["e"] = "done"  # the newest, but the only one that may go
    assert list(m) == ["a", "c", "d"]
    m["a"] = "done"
    assert list(m) == ["c", "d"]
