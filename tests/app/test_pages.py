"""AppTest: every page renders without exception, every control changes what is shown, bad links are handled."""

from __future__ import annotations

import pytest

from app import params, registry
from app.notation import number
from tests.app.conftest import open_page, shown_numbers

PAGES = [p.script for p in registry.available_pages()]


@pytest.mark.parametrize("script", PAGES)
def test_every_page_renders_without_exception(script):
    at = open_page(script)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title, "each page has a title"


def _rows_of_numbers(node):
    """The rows of columns in ``node`` with a number card (``st.metric``) in two or more of them, with their cards."""
    kids = list(getattr(node, "children", {}).values())
    columns = [k for k in kids if getattr(k, "type", None) == "column"]
    cards = [[x for x in c.children.values() if getattr(x, "type", None) == "metric"] for c in columns]
    if sum(bool(c) for c in cards) >= 2:
        yield columns, [card for column in cards for card in column]
    for k in kids:
        yield from _rows_of_numbers(k)


@pytest.mark.parametrize("script", PAGES)
def test_a_row_of_numbers_keeps_its_numbers_on_one_line(script):
    """Cards side by side sit on their bottom edge, so a name that wraps onto a second line in a narrow column lifts
    its card instead of pushing its number below its neighbours' (a row where only some cards carry a small line
    under the number stays top-aligned: bottom-aligned, that line would lift those numbers instead)."""
    at = open_page(script)
    checked = 0
    for columns, cards in _rows_of_numbers(at.main):
        if len({bool(card.delta) for card in cards}) == 1:
            checked += 1
            assert all(c.proto.vertical_alignment == c.proto.VerticalAlignment.BOTTOM for c in columns), [
                card.label for card in cards
            ]
    if script in ("baselines.py", "svt.py", "ldp.py", "r2dp.py", "ledger.py", "audit.py"):
        assert checked, "these pages open on a row of numbers"


def test_home_links_only_to_existing_pages():
    at = open_page("home.py")
    md = " ".join(m.value for m in at.markdown)
    cards = (registry.BASELINES, *registry.TOPICS, *registry.TOOLS)
    for topic in registry.TOPICS:
        assert topic.title in md
    # one "Open …" link per existing page, none for a missing one
    opened = {link.proto.label for link in at.get("page_link")}
    assert {f"Open {p.title}" for p in cards if p.exists} <= opened
    assert not {f"Open {p.title}" for p in cards if not p.exists} & opened


def test_home_links_keep_presentation_mode():
    """A teacher in presentation mode who follows a home-page link stays in it (same tab, larger type)."""
    at = open_page("home.py", {"present": "true"})
    assert not at.exception
    links = [
        p.proto
        for p in at.get("page_link")
        if p.proto.label.startswith(("Open ",)) or "chapter=" in p.proto.query_string
    ]
    assert len(links) >= 6
    assert all("present=true" in link.query_string for link in links), [link.query_string for link in links]


def test_home_start_here_opens_the_first_course():
    """Start here lists the first course's chapters, each link opening its chapter."""
    from app import course

    at = open_page("home.py")
    steps = [
        link.proto
        for link in at.get("page_link")
        if link.proto.page == "course" and "chapter=" in link.proto.query_string
    ]
    assert [s.label for s in steps] == [f"{c.number}. {c.title}" for c in course.CHAPTERS]
    assert steps[2].query_string == "chapter=delta"


@pytest.mark.parametrize(
    "step,slug,next_slug", [(1, "promise", "noise"), (5, "choose", "redraw"), (10, "random_scale", None)]
)
def test_the_start_lesson_links_each_chapter_on_to_the_next(step, slug, next_slug):
    """A class playing the ready-made lesson "start" finds, on each chapter, where it is and the link to the next."""
    at = open_page("course.py", {"seq": "start", "step": str(step), "chapter": slug})
    assert not at.exception and not at.error
    md = " ".join(m.value for m in at.markdown)
    assert f"view {step} of 10" in md and "you have left" not in md
    if next_slug is None:
        assert "Last view of this lesson" in md
    else:
        nxt = [p.proto for p in at.get("page_link") if p.proto.label == "Next" and p.proto.page == "course"]
        assert nxt and all(
            f"step={step + 1}" in p.query_string
            and "seq=start" in p.query_string
            and f"chapter={next_slug}" in p.query_string
            for p in nxt
        )  # same tab, next step


def test_home_epsilon_moves_the_belief_table():
    at = open_page("home.py")
    before = shown_numbers(at)
    at.select_slider(key="eps").set_value(3.0).run()
    assert not at.exception
    assert shown_numbers(at) != before


def _other(options, current):
    return options[0] if current != options[0] else options[-1]


@pytest.mark.parametrize(
    "key,options",
    [
        ("eps", params.EPSILON_OPTIONS),
        ("delta", params.DELTA_OPTIONS),
        ("sens", params.SENSITIVITY_OPTIONS),
        ("theta", params.log_grid(0.1, 100.0)),
        ("T", params.COMPOSITION_OPTIONS),
    ],
)
def test_baselines_each_slider_changes_the_numbers(key, options):
    at = open_page("baselines.py")
    before = shown_numbers(at)
    slider = at.select_slider(key=key)
    slider.set_value(_other(options, slider.value)).run()
    assert not at.exception, at.exception
    assert shown_numbers(at) != before


def test_baselines_calibration_and_seed_change_the_numbers():
    at = open_page("baselines.py")
    before = shown_numbers(at)
    at.radio(key="calib").set_value("classic").run()
    after_calib = shown_numbers(at)
    assert after_calib != before
    at.number_input(key="seed").set_value(12345).run()
    assert not at.exception
    assert shown_numbers(at) != after_calib


def test_baselines_metrics_match_dpcore():
    import dpcore

    at = open_page("baselines.py", {"eps": "0.5", "delta": "1e-06", "sens": "2"})
    values = {m.label: m.value for m in at.metric}
    assert values["Gaussian noise scale σ"] == f"{dpcore.gaussian_sigma(0.5, 1e-6, sensitivity=2.0):.4g}"
    assert values["Laplace noise scale b"] == f"{dpcore.laplace_scale(0.5, sensitivity=2.0, delta=1e-6):.4g}"


def test_shared_url_restores_the_view():
    at = open_page("baselines.py", {"eps": "2", "delta": "1e-08", "T": "100", "seed": "7", "calib": "classic"})
    assert at.select_slider(key="eps").value == 2.0
    assert at.select_slider(key="delta").value == 1e-8
    assert at.select_slider(key="T").value == 100
    assert at.number_input(key="seed").value == 7
    assert at.radio(key="calib").value == "classic"
    assert not at.error


def test_off_grid_url_value_snaps_to_the_nearest_grid_point():
    at = open_page("baselines.py", {"eps": "1.45"})
    assert at.select_slider(key="eps").value == 1.5
    assert not at.error


BAD_LINKS = [
    {"eps": "-1"},
    {"eps": "nan"},
    {"eps": "abc"},
    {"eps": "inf"},
    {"T": "1000000000"},
    {"T": "0"},
    {"delta": "2"},
    {"delta": "0"},
    {"sens": "-3"},
    {"theta": "1e400"},
    {"seed": "-5"},
    {"seed": "1.5"},
    {"calib": "<script>alert(1)</script>"},
]


@pytest.mark.parametrize("script", PAGES)
@pytest.mark.parametrize("query", BAD_LINKS, ids=lambda q: "&".join(f"{k}={v}" for k, v in q.items()))
def test_bad_links_show_a_clear_message_and_the_page_keeps_working(script, query):
    at = open_page(script, query)
    assert not at.exception, at.exception
    key = next(iter(query))
    uses_key = key in {w.key for w in (*at.select_slider, *at.number_input, *at.radio)}
    if uses_key:
        assert any(f"{key}=" in e.value for e in at.error), [e.value for e in at.error]
    assert at.title  # the page rendered
    if script == "baselines.py":
        assert len(at.metric) == 6


def test_controls_do_not_leak_between_pages():
    """A page's controls start from its own defaults, not from another page's control of the same key.

    SVT's threshold τ and the baselines' number of releases T once shared the key ``T``; each page's controls must
    start from their own defaults after another page moved its own. Presentation mode, in contrast, stays on across
    pages.
    """
    at = open_page("svt.py")
    svt_t_default = at.select_slider(key="thr").value
    at.select_slider(key="thr").set_value(1000.0).run()
    at.select_slider(key="eps").set_value(10.0).run()
    at.toggle(key="present").set_value(True).run()
    at.switch_page("../pages/baselines.py")
    at.run()
    fresh = open_page("baselines.py")
    assert at.select_slider(key="T").value == fresh.select_slider(key="T").value
    assert at.select_slider(key="eps").value == fresh.select_slider(key="eps").value
    assert at.toggle(key="present").value is True
    at.switch_page("../pages/svt.py")
    at.run()
    assert at.select_slider(key="thr").value == svt_t_default


@pytest.mark.parametrize(("eps", "t"), [("0.5", "10"), ("15", "100"), ("20", "1000")])
def test_baselines_total_epsilon_shows_the_default_grid_pld(eps, t):
    """The Laplace total-ε metric (a coarser, still pessimistic PLD grid at ε₀ ≥ 5 for speed) shows the same four
    digits as dpcore's default-grid PLD (which is itself cross-validated against dp_accounting)."""
    import dpcore

    at = open_page("baselines.py", {"eps": eps, "T": t})
    shown = next(m.value for m in at.metric if m.label == f"Laplace: total ε after T = {t} releases")
    b = dpcore.laplace_scale(float(eps), delta=1e-5)
    assert shown == number(dpcore.laplace_epsilon(1e-5, scale=b, compositions=int(t)), 4)
