"""Hostile links: ≥ 1000 random and hostile query-parameter sets across every page.

Each page's URL keys are discovered by rendering it once at its defaults: every URL-bound control's key is its
query-parameter name (app/params.py), plus its lazy tabs (``?tab=`` / ``?part=``). A probe run with every key set
to nonsense learns the display name app/params.py uses for each key. Then, with a fixed seed, each test opens the
page with 1–4 keys (known, unknown or repeated) set to values drawn from a hostile pool and asserts:

* no exception and the page's title still shown;
* every key whose (last) value is invalid for its control gets an ``st.error`` naming the key and the parameter;
* a valid value gets no such error and the control shows it (snapped to the nearest grid value);
* no panel crashed (ui.show_error's generic message for a non-ValueError).

Pages stay at their default view/part/tab (switching to a heavy view is the page tests' job), so each run is cheap.
"""

from __future__ import annotations

import functools
import math
import random
import re
from dataclasses import dataclass

import pytest

from app import registry
from app.catalogue import CATALOGUE
from tests.app.conftest import open_page, read_number

PAGES = [p.script for p in registry.available_pages()]
TOTAL_SETS = 1000  # at least 1000 hostile query sets in all
SETS_PER_PAGE = max(100, math.ceil(TOTAL_SETS / len(PAGES)))
SEED = 20261121

#: Keys every page should judge when it has such a control (views, lazy parts and tabs).
VIEW_KEYS = ("view", "part", "tab")
UNKNOWN_KEYS = ("zzz", "eps2", "__proto__", "<b>x</b>", "😀", "q[]")

HOSTILE = (
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "-1",
    "0",
    "-0",
    "1e400",
    "1e-400",
    "1e308",
    "-1e308",
    "9" * 400,
    "abc",
    "",
    " ",
    "<script>alert(1)</script>",
    "{{7*7}}",
    "__import__('os')",
    "%00",
    "\x00",
    "😀",
    "x" * 10_000,
    "1" * 10_000,
    "true",
    "false",
    "None",
    "[1, 2]",
    "0x10",
    "1,5",
    "`rm -rf`",
    "../../etc/passwd",
)

_PROBLEM = re.compile(r"The link set `(?P<key>[^=`]*)=.*?`, but (?P<name>.+?) must be ", re.S)


@dataclass(frozen=True)
class Control:
    kind: str  # select_slider | radio | toggle | number_input | tabs
    options: tuple[str, ...]  # URL spellings of the values (empty for number inputs)
    default: str
    low: float = -math.inf
    high: float = math.inf

    @property
    def numeric(self) -> bool:
        return self.kind == "number_input" or (
            self.kind == "select_slider" and all(_number(o) is not None for o in self.options)
        )

    def parse(self, raw: str):
        """The value the control should show for ``raw``, or None when ``raw`` is invalid for it."""
        if self.kind == "toggle":
            return {"true": True, "false": False}.get(raw.lower())
        if self.kind in ("radio", "tabs") or not self.numeric:
            return raw if raw in self.options else None
        x = _number(raw)
        if self.kind == "number_input":
            return int(x) if x is not None and x.is_integer() and self.low <= x <= self.high else None
        grid = [float(o) for o in self.options]
        if x is None or not min(grid) <= x <= max(grid):
            return None
        if min(grid) > 0:
            return min(grid, key=lambda g: abs(math.log(g) - math.log(x)))
        return min(grid, key=lambda g: abs(g - x))

    def valid_values(self) -> list[str]:
        """URL values this control accepts (off-grid numbers included, to be snapped)."""
        if self.kind == "toggle":
            return ["true", "false", "True", "FALSE"]
        if self.kind == "number_input":
            return ["0", "1", "12345", "2147483647", "7.0", "1e3"]
        if self.numeric:
            grid = [float(o) for o in self.options]
            lo, hi = min(grid), max(grid)
            mid = math.sqrt(lo * hi) if lo > 0 else (lo + hi) / 2
            return [*self.options, f"{mid:.5g}", f"{lo:.6g}", repr(hi)]
        return list(self.options)


def _url_spelling(label: str) -> str:
    """How a link spells a slider stop shown as a number (``10⁻⁵`` → ``1e-05``); any other label as it is."""
    try:
        return f"{read_number(label):g}"
    except ValueError:
        return label


def _number(raw: str) -> float | None:
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class PageSpec:
    title: str
    controls: dict[str, Control]
    names: dict[str, str]  # key -> display name in app/params.py's messages


def _control_of(at, key: str) -> Control | None:
    """The control bound to URL key ``key`` on the page just run, or None."""
    for kind in ("select_slider", "radio", "toggle", "number_input"):
        try:
            el = getattr(at, kind)(key=key)
        except (KeyError, IndexError):
            continue
        if kind == "select_slider":  # its stops read as people write numbers (10⁻⁵); a link spells them 1e-05
            value = el.value
            options = tuple(_url_spelling(o) for o in el.options)
            default = next(o for o in options if _number(o) == value) if isinstance(value, int | float) else value
            return Control(kind, options, str(default))
        if kind == "radio":  # a catalogue choice shows words on screen; its URL values are the option ids
            options = tuple(str(o) for o in CATALOGUE[key].grid) if key in CATALOGUE else tuple(el.options)
            return Control(kind, options, str(el.value))
        if kind == "toggle":
            return Control(kind, ("true", "false"), str(el.value).lower())
        lo = el.min if el.min is not None else -math.inf
        hi = el.max if el.max is not None else math.inf
        return Control(kind, (), str(el.value), float(lo), float(hi))
    return None


def _widget_keys(at) -> list[str]:
    keys = []
    for kind in ("select_slider", "radio", "toggle", "number_input"):
        # "_…": the classroom's own widgets (an exercise's answer box), never bound to the address
        keys += [el.key for el in at.get(kind) if el.key and not el.key.startswith(("$$", "_"))]
    return keys


@functools.cache
def page_spec(script: str) -> PageSpec:
    """Render ``script`` at its defaults, collect its URL-bound controls, and learn their display names."""
    at = open_page(script)
    assert not at.exception, at.exception
    controls = {k: c for k in _widget_keys(at) if (c := _control_of(at, k)) is not None}
    tab_labels = tuple(t.label for t in at.tabs)
    for key in VIEW_KEYS:  # lazy tabs: stateful, so their key holds the open tab's label
        if key not in controls and tab_labels and key in at.session_state and at.session_state[key] in tab_labels:
            controls[key] = Control("tabs", tab_labels, at.session_state[key])
    probe = open_page(script, {k: "\u2603bogus" for k in controls})
    names = {}
    for e in probe.error:
        if m := _PROBLEM.search(e.value):
            names[m["key"]] = m["name"]
    return PageSpec(at.title[0].value, controls, names)


def hostile_query(script: str, index: int, page: PageSpec) -> dict[str, str | list[str]]:
    """Query set number ``index`` for ``script`` (deterministic: seeded by page and index)."""
    rnd = random.Random(f"{SEED}-{script}-{index}")
    keys = sorted(page.controls)
    pool_keys = keys + list(VIEW_KEYS) + list(UNKNOWN_KEYS)
    n = rnd.randint(1, 4)
    chosen = rnd.sample(keys, min(len(keys), n - 1)) + [rnd.choice(pool_keys)]
    other_values = [v for c in page.controls.values() for v in c.valid_values()]
    query: dict[str, str | list[str]] = {}
    for key in dict.fromkeys(chosen):
        control = page.controls.get(key)
        if control is not None and key in VIEW_KEYS:
            valid = [control.default]  # stay on the default (cheap) view, part or tab
        else:
            valid = control.valid_values() if control else ["1"]
        kind = rnd.random()
        if kind < 0.45:
            value = rnd.choice(HOSTILE)
        elif kind < 0.6:
            value = rnd.choice(other_values)
        else:
            value = rnd.choice(valid)
        if rnd.random() < 0.1:  # a repeated key: ?k=a&k=b (the last one counts)
            query[key] = [rnd.choice(HOSTILE + tuple(valid)), value]
        else:
            query[key] = value
    return query


def _short(query: dict) -> str:
    def s(v):
        return v if len(v) <= 30 else f"{v[:10]}…({len(v)} chars)"

    return "&".join(f"{k}={s(x)}" for k, v in query.items() for x in (v if isinstance(v, list) else [v]))


def _titles(script: str, page: PageSpec) -> set[str]:
    """The title the page shows (the course page's is the course's; its chapter heads the chapter's panel)."""
    return {page.title}


def check_query(script: str, query: dict[str, str | list[str]]) -> None:
    page = page_spec(script)
    at = open_page(script, query)
    where = f"{script}?{_short(query)}"
    assert not at.exception, f"{where}: {at.exception}"
    assert at.title and at.title[0].value in _titles(script, page), f"{where}: title missing"
    errors = [e.value for e in at.error]
    present = set(_widget_keys(at)) | ({k for k, c in page.controls.items() if c.kind == "tabs"})
    reported = {m["key"]: (m["name"], e) for e in errors if (m := _PROBLEM.search(e))}
    # a panel may explain why valid settings cannot be computed (a ValueError, shown verbatim); a crash inside a
    # panel (ui.show_error's generic message) is a bug
    crashed = [e for e in errors if "could not be computed" in e]
    assert not crashed, f"{where}: a panel crashed: {crashed}"
    for key, value in query.items():
        control = page.controls.get(key)
        if control is None or key not in present:
            continue  # not a control of this page (in this state): ignored
        raw = value[-1] if isinstance(value, list) else value
        expected = control.parse(raw)
        if expected is None:
            assert key in reported, f"{where}: invalid ?{key}={raw[:30]!r} silently dropped (errors: {errors})"
            name, _ = reported[key]
            assert name == page.names.get(key), f"{where}: message names {name!r}, not {page.names.get(key)!r}"
        else:
            assert key not in reported, f"{where}: valid ?{key}={raw[:30]!r} reported: {reported[key][1]}"
            if control.kind != "tabs":
                shown = getattr(at, control.kind)(key=key).value
                assert shown == expected, f"{where}: ?{key}={raw[:30]!r} shows {shown!r}, expected {expected!r}"
    unexpected = set(reported) - set(query)
    assert not unexpected, f"{where}: errors for keys not in the link: {unexpected}"


@pytest.mark.parametrize("script", PAGES)
def test_every_url_key_reports_nonsense(script):
    """Every URL-bound control of the page (lazy tabs included) reports nonsense in its key, naming the parameter."""
    page = page_spec(script)
    assert page.title
    if script != "home.py":
        assert len(page.controls) >= 3, page.controls
    missing = sorted(set(page.controls) - set(page.names))
    assert not missing, f"nonsense in ?{missing[0]}= is dropped silently (not created through app/params.py)"


def test_svt_tabs_are_discovered():
    assert page_spec("svt.py").controls["part"].kind == "tabs"


def _tabs_app():
    import streamlit as st

    from app import params, ui

    tabs = params.tabs("tab", ["One", "Two words", "Three & four"], name="the open tab")
    for tab, label in zip(tabs, ["One", "Two words", "Three & four"], strict=True):
        if tab.open:
            with tab:
                st.write(f"open: {label}")
    ui.show_url_problems()


@pytest.mark.parametrize(
    "raw,error", [("Two words", False), ("Three & four", False), ("two words", True), ("bogus", True), ("", True)]
)
def test_params_tabs_reports_unknown_tab(raw, error):
    """params.tabs: a ?tab= naming no tab is reported with the parameter's name; a real label opens that tab."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_tabs_app, default_timeout=30)
    at.query_params["tab"] = raw
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    if error:
        assert len(errors) == 1 and "`tab=" in errors[0] and "the open tab" in errors[0], errors
        assert "open: One" in [m.value for m in at.markdown]
    else:
        assert not errors
        assert f"open: {raw}" in [m.value for m in at.markdown]


@pytest.mark.slow
@pytest.mark.parametrize("script", PAGES)
def test_known_hostile_values_are_reported(script):
    """A hand-picked hostile value in every control of the page at once: one clear message per key."""
    page = page_spec(script)
    for value in ("nan", "-inf", "9" * 400, "<script>alert(1)</script>", "x" * 10_000):
        check_query(script, {k: value for k in page.controls if page.controls[k].parse(value) is None})


@pytest.mark.parametrize(
    "script,raw", [("svt.py", "bogus"), ("svt.py", "noise!"), ("brdp.py", "Privacy!"), ("svt.py", "Live run ")]
)
def test_unknown_tab_is_reported(script, raw):
    """A lazy tab that names no tab is reported (Streamlit alone would drop it silently)."""
    key = next(k for k, c in page_spec(script).controls.items() if c.kind == "tabs")
    at = open_page(script, {key: raw})
    assert any(f"`{key}=" in e.value for e in at.error), [e.value for e in at.error]


@pytest.mark.parametrize("raw,label", [("costs", "Costs"), ("COSTS", "Costs"), ("figure 3", "Figure 3")])
def test_a_part_named_in_other_case_opens_that_part(raw, label):
    """Links from before the parts were capitalised (?part=costs) still open them, without a complaint."""
    query = {"part": raw} if label != "Figure 3" else {"view": "reproduce", "part": raw}
    at = open_page("noise_reduction.py", query)
    assert not at.error, [e.value for e in at.error]
    first = label == "Figure 3"  # the reproduce view's first part: the address may then leave it out
    assert at.query_params.get("part") in ([label], label, *([None] if first else []))


def test_repeated_slider_key_takes_the_last_value():
    """?eps=0.5&eps=2: a select slider would drop the pair silently; the last value counts, as for other widgets."""
    at = open_page("baselines.py", {"eps": ["0.5", "2"]})
    assert not at.error
    assert at.select_slider(key="eps").value == 2.0


def test_messages_quote_long_values_briefly():
    """A 10 000-character value is quoted in at most a few dozen characters, without control characters."""
    at = open_page("baselines.py", {"eps": "y" * 10_000, "delta": "\x00`x`"})
    texts = [e.value for e in at.error]
    assert len(texts) == 2 and all(len(t) < 300 for t in texts), texts
    assert all("\x00" not in t and "`x`" not in t for t in texts), texts


@pytest.mark.slow
@pytest.mark.parametrize("index", range(SETS_PER_PAGE))
@pytest.mark.parametrize("script", PAGES)
def test_hostile_links(script, index):
    check_query(script, hostile_query(script, index, page_spec(script)))


def test_query_generation_is_hostile_and_broad():
    """The generator covers every control, unknown keys, repeated keys, and invalid and valid values."""
    page = page_spec("svt.py")
    queries = [hostile_query("svt.py", i, page) for i in range(SETS_PER_PAGE)]
    keys = {k for q in queries for k in q}
    assert set(page.controls) <= keys
    assert keys & set(UNKNOWN_KEYS)
    assert any(isinstance(v, list) for q in queries for v in q.values())
    raws = [(k, v[-1] if isinstance(v, list) else v) for q in queries for k, v in q.items() if k in page.controls]
    invalid = sum(page.controls[k].parse(r) is None for k, r in raws)
    assert 0.3 < invalid / len(raws) < 0.8
    assert hostile_query("svt.py", 3, page) == hostile_query("svt.py", 3, page)  # reproducible
    assert SETS_PER_PAGE * len(PAGES) >= TOTAL_SETS
