"""The first course: ten chapters, each one idea on a short screen with at most one new symbol; every chapter opens
at its defaults and at its check's setting; each check's answer is what the chapter itself shows there (answerable
from the chapter alone) and agrees with an independent computation; the answer box teaches; the course is the
home page's start path and the ready-made lesson "start"."""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qsl

import pytest
from scipy import optimize, stats

from app import catalogue, classroom, course, registry, sequences
from app.course import chapters, pictures
from app.exercises.check import HINT, SOLVED, STRONGER
from app.notation import tex
from app.views import course as course_view
from tests.app.conftest import open_page
from tests.app.test_classroom import _brdp_sound, analytic_sigma, gauss_eps_for_delta

CHAPTERS = course.CHAPTERS
IDS = [c.slug for c in CHAPTERS]
#: The setting each check asks the reader to choose (the chapter's control), where it names one.
CHECK_SETTING = {
    "promise": 0.5,
    "noise": 0.5,
    "delta": 1e-3,
    "budget": 100,
    "choose": 2.0,
    "redraw": 1.0,
    "sparse": 1.0,
    "stop": 0.2,
    "revealed": 1.0,
    "random_scale": 5.0,
}


def _odds_to_belief(prior: float, eps: float) -> float:
    odds = prior / (1 - prior) * math.exp(eps)
    return odds / (1 + odds)


#: Each numeric check's answer, computed independently of dpcore (closed forms, root finding, quadrature).
INDEPENDENT = {
    "promise": lambda: 100 * _odds_to_belief(0.5, 0.5),
    "noise": lambda: 100 * (1 - math.exp(-0.5)),  # Laplace(b = 1/ε) within ±1
    "delta": lambda: 100 * (2 * stats.norm.cdf(1 / analytic_sigma(1.0, 1e-3)) - 1),
    # 100 Gaussian releases with noise σ are one release with σ/√100
    "budget": lambda: gauss_eps_for_delta(1e-5, analytic_sigma(1.0, 1e-5) / 10),
    # 1 − e^(−θ/b) = 0.95 at θ = 2, b = 1/ε
    "choose": lambda: optimize.brentq(lambda e: 1 - math.exp(-2 * e) - 0.95, 1e-3, 50, xtol=1e-12),
    "redraw": lambda: 100 * _brdp_sound()[1],
    "random_scale": lambda: 100 * (1 - math.exp(-0.1 * 5)),
}


def test_ten_chapters_in_the_order_of_the_catalogue():
    assert len(CHAPTERS) == 10 and course.SLUGS == catalogue.get("chapter").grid
    assert [c.number for c in CHAPTERS] == list(range(1, 11))
    assert [c.lesson for c in CHAPTERS][:2] == ["course_01_promise", "course_02_noise"]


def _screen_words(ch: course.Chapter) -> int:
    """Words a reader meets on the chapter's first screen: the idea, the sentence under the picture (at the
    chapter's default), what to notice, and the check's question."""
    reading = pictures.picture(ch.slug, catalogue.get(ch.control).default).reading
    text = " ".join([ch.text, reading, ch.notice, ch.question])
    return len(re.findall(r"[\w’'−-]+", text.replace("**", "")))


@pytest.mark.parametrize("ch", CHAPTERS, ids=IDS)
def test_a_chapter_is_short_and_introduces_at_most_one_symbol_in_words(ch):
    assert _screen_words(ch) <= 150, (ch.slug, _screen_words(ch))
    if ch.symbol:
        # defined where it first appears: in bold, with words around it
        assert f"**{ch.symbol}**" in ch.text, ch.slug
        assert ch.text.index(f"**{ch.symbol}**") == _symbol(ch.symbol).search(ch.text).start() - 2, ch.slug
    earlier = {c.symbol for c in CHAPTERS[: ch.number - 1] if c.symbol}
    later = {c.symbol for c in CHAPTERS[ch.number :] if c.symbol} - earlier - {ch.symbol}
    for symbol in later:  # no symbol before the chapter that introduces it
        assert not _symbol(symbol).search(ch.text + ch.question + ch.notice), (ch.slug, symbol)


def _symbol(symbol: str) -> re.Pattern[str]:
    """A symbol standing alone (T, not the T of "The")."""
    return re.compile(rf"(?<![\w]){re.escape(symbol)}(?![\w])")


@pytest.mark.parametrize("ch", CHAPTERS, ids=IDS)
def test_each_chapter_opens_with_its_picture_control_check_and_links(ch):
    at = open_page("course.py", {"chapter": ch.slug})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.title[0].value == course_view.TITLE  # the course heads the page, the chapter its panel (a step's view)
    assert at.header[0].value == tex(f"{ch.number}. {ch.title}")
    assert len(at.get("plotly_chart")) == 1
    assert dict(at.query_params)["chapter"] == ch.slug and ch.control in dict(at.query_params)
    md = " ".join(m.value for m in at.markdown)
    assert tex(ch.question) in md
    links = {p.proto.label: p.proto for p in at.get("page_link")}
    deeper = links[f"Open {ch.deeper.title} with this setting"]
    assert deeper.page == ch.deeper.page
    assert ch.control in dict(parse_qsl(deeper.query_string))
    if ch.number > 1:
        assert f"Previous: {ch.number - 1}. {CHAPTERS[ch.number - 2].title}" in links
    if ch.number < len(CHAPTERS):
        nxt = links[f"Next: {ch.number + 1}. {CHAPTERS[ch.number].title}"]
        assert dict(parse_qsl(nxt.query_string))["chapter"] == CHAPTERS[ch.number].slug


@pytest.mark.parametrize("ch", CHAPTERS, ids=IDS)
def test_each_check_is_answerable_from_its_chapter(ch):
    """Opened at the setting its question names, the chapter shows the check's answer as the check states it (for
    a numeric check), and that number agrees with an independent computation to the precision shown."""
    value = CHECK_SETTING[ch.slug]
    setting = catalogue.get(ch.control).fmt(value)
    at = open_page("course.py", {"chapter": ch.slug, ch.control: setting})
    assert not at.exception and not at.error
    reading = pictures.picture(ch.slug, value).reading
    assert tex(reading) in [m.value for m in at.markdown]
    if ch.check.options:
        return
    assert f"**{ch.check.shown}**" in reading, (ch.slug, reading)
    exact = INDEPENDENT[ch.slug]()
    assert abs(exact - ch.check.value) <= ch.check.half_unit * (1 + 1e-9), (ch.slug, exact, ch.check.shown)


def test_the_choice_checks_hold_at_their_settings():
    """Stop: a larger η stops at a noisier (smaller) level. Revealed: ℓ never exceeds the sum of the ε's. Sparse:
    one run's ε is the budget whatever the queue's length (the two parts of the split add up to ε)."""
    from app.compute import ldp as cldp
    from app.compute import noise_reduction as cnr
    from app.compute import svt as csvt

    stops = [
        cnr.paths(*pictures.NR_GRID, pictures.NR_COUNT, eta, "brownian", 0).stops.iloc[0]["epsilon_stop"]
        for eta in (0.05, 0.1, 0.2, 0.5)
    ]
    assert stops == sorted(stops, reverse=True) and stops[0] > stops[-1]
    for eps in (0.2, 1.0, 5.0):
        family, dsize, nq, x, seed = pictures.LDP
        b = cldp.beliefs(family, eps, dsize, nq, x, seed, "uniform")
        assert b.loss <= nq * eps * (1 + 1e-12)
        acct = csvt.accountant(eps, catalogue.get("c").default, "exponential", False)
        assert math.isclose(acct.epsilon1 + acct.epsilon2, eps) and math.isclose(acct.off, eps)
    assert course.chapter("stop").check.shown.startswith("earlier")
    assert course.chapter("revealed").check.shown == "the sum of the ε's"
    assert course.chapter("sparse").check.shown == "nothing more"


def test_the_answer_box_teaches():
    """Typed into the app: a wrong answer gets the first hint, a second the stronger one, a third the worked
    solution; the right answer at the precision shown (39.6 for 39.6 %, also 0.396) is accepted."""
    ch = course.chapter("redraw")
    key = f"_dpx_course_{ch.slug}"
    at = open_page("course.py", {"chapter": ch.slug})
    assert not at.warning and not at.success
    assert not any("Worked solution" in m.value for m in at.markdown)
    for typed, state in (("50", HINT), ("10", STRONGER), ("25", SOLVED)):
        at.text_input(key=key).input(typed).run()
        shown = " ".join(w.value for w in at.warning)
        assert ch.check.reply(typed, {HINT: 0, STRONGER: 1, SOLVED: 2}[state]).text in shown, (typed, shown)
        assert ch.check.shown.removesuffix(" %") not in shown
    assert any("Worked solution" in m.value for m in at.markdown)
    for typed in ("39.6", "0.396", "39.6%"):
        at = open_page("course.py", {"chapter": ch.slug})
        at.text_input(key=key).input(typed).run()
        assert at.success and at.success[0].value.startswith("Right"), typed


def test_a_solution_is_there_on_request():
    ch = course.chapter("noise")
    at = open_page("course.py", {"chapter": ch.slug})
    at.button(key=f"_dpx_course_{ch.slug}_ask").click().run()
    assert any(m.value.startswith("**Worked solution.**") for m in at.markdown)


def test_a_bad_chapter_in_the_link_is_reported_and_the_first_opens():
    at = open_page("course.py", {"chapter": "nonsense"})
    assert not at.exception
    assert any("chapter=nonsense" in e.value for e in at.error)
    assert at.header[0].value == tex(f"1. {CHAPTERS[0].title}")


def test_the_home_page_starts_the_course():
    at = open_page("home.py")
    links = [p.proto for p in at.get("page_link") if p.proto.page == "course" and "chapter=" in p.proto.query_string]
    assert [dict(parse_qsl(link.query_string))["chapter"] for link in links] == list(course.SLUGS)
    assert any(h.value.startswith("Start here") for h in at.header)


def test_the_ready_made_lesson_start_plays_the_course():
    start = sequences.LESSONS["start"]
    assert [(s.page, dict(s.query)) for s in start.steps] == [("course", {"chapter": c.slug}) for c in CHAPTERS]
    at = open_page("course.py", sequences.view_query(start, 2))
    where = " ".join(h.proto.body for h in at.get("html"))
    assert "view 3 of 10" in where
    nxt = [p.proto for p in at.get("page_link") if p.proto.label == "Next"]
    assert nxt and all(p.page == "course" and "chapter=budget" in p.query_string for p in nxt)
    assert not [p for p in at.get("page_link") if p.proto.label.startswith(("Next:", "Previous:"))]  # one way on


def test_the_chapter_lesson_links_carry_the_setting(monkeypatch):
    from app import ui

    monkeypatch.setenv(ui.LESSONS_URL_ENV, "http://lessons.example:2718")
    at = open_page("course.py", {"chapter": "noise", "eps": "0.5"})
    md = " ".join(m.value for m in at.markdown)
    assert "http://lessons.example:2718/?file=course_02_noise.py&eps=0.5" in md
    assert "http://lessons.example:2718/?file=baselines.py&eps=0.5" in md
    assert classroom.answer_key(1) not in at.session_state  # the page's own Try this is not drawn on the course


def test_a_phone_gets_no_pointer_to_settings_the_course_keeps_beside_its_picture():
    def pointers(at) -> int:
        return sum('class="dpx-open-settings"' in b.proto.body for b in at.get("html"))

    assert pointers(open_page("course.py", {"chapter": "noise"})) == 0
    assert pointers(open_page("baselines.py")) == 1  # a page whose controls are in the sidebar keeps it


def test_go_deeper_names_the_paper_only_where_the_page_is_a_papers():
    assert chapters.PAPER_PAGES == {p.url_path for p in registry.TOPICS}
    for ch in (CHAPTERS[1], CHAPTERS[5]):
        at = open_page("course.py", {"chapter": ch.slug})
        headers = [h.value for h in at.header]
        expected = "Go deeper: the paper" if ch.deeper.page in chapters.PAPER_PAGES else "Go deeper"
        assert expected in headers and (expected == "Go deeper: the paper") == (ch.deeper.page == "brdp"), headers


def test_the_noise_and_delta_pictures_keep_their_axis_so_the_spread_shows():
    """Every value of the chapter's control is drawn over the same noise axis; at ε/2 the Laplace density falls to
    half its peak at twice the distance (b·ln 2 with b = Δ/ε, by hand), and at a larger δ the Gaussian is narrower."""

    one, half = pictures.picture("noise", 1.0), pictures.picture("noise", 0.5)
    for pic in (one, half):
        assert (pic.data["x"].min(), pic.data["x"].max()) == (one.data["x"].min(), one.data["x"].max())

    def half_max(df):
        top = df["density"].max()
        return float(df.loc[df["density"] >= top / 2, "x"].max())

    assert half_max(one.data) == pytest.approx(math.log(2), abs=0.02)
    assert half_max(half.data) == pytest.approx(2 * math.log(2), abs=0.02)
    tight, loose = pictures.picture("delta", 1e-12).data, pictures.picture("delta", 0.1).data
    assert (tight["x"].min(), tight["x"].max()) == (loose["x"].min(), loose["x"].max())
    assert loose["gaussian"].max() > tight["gaussian"].max()  # a larger δ: a narrower, taller Gaussian


def test_an_epsilon_left_of_the_random_scale_curves_is_said_not_marked():
    """The random-scale chapter's curves start at ε = 0.1; its control goes lower. A mark at ε = 0.01 stretched the
    log axis and left the left third of the picture empty: now nothing is drawn left of the curves, and a note says
    where ε is."""
    fig = pictures.picture("random_scale", 0.01).figure
    xs = [float(x) for t in fig.data if t.x is not None for x in t.x if x is not None]
    assert min(xs) >= 0.1 * (1 - 1e-9)
    assert fig.layout.xaxis.range is None or 10 ** fig.layout.xaxis.range[0] >= 0.09
    assert any("ε = 0.01 is left of the picture" in (a.text or "") for a in fig.layout.annotations)
    marked = pictures.picture("random_scale", 1.0).figure
    assert any(abs(float(x) - 1.0) < 1e-12 for t in marked.data if t.x is not None for x in t.x if x is not None)


def test_the_budget_picture_names_its_lines_where_they_end():
    """At a projector's 1280×720 the legend sits below the picture's slider, out of sight: each line is also named at
    its right end, inside the axis's range (Plotly hides an annotation even a rounding error outside it)."""
    fig = pictures.picture("budget", 10).figure
    ends = {a.text: a for a in fig.layout.annotations if a.xref == "x domain"}
    assert set(ends) == {"simple sum", "Laplace, exactly", "Gaussian, exactly"}
    top = max(float(y) for t in fig.data for y in t.y)
    for name, note in ends.items():
        assert note.x == 1.0 and note.y <= math.log10(top), name


def _notes(fig) -> dict[str, object]:
    return {a.text.strip(): a for a in fig.layout.annotations if a.text and a.text.strip()}


def test_the_pictures_with_two_lines_name_them_on_the_lines():
    """At 1280×720 a chart's legend sits under the chapter's control, out of sight: the noise, accuracy, random-scale
    and screening pictures name their lines on the picture, each name at a point on its own line (checked against the
    closed forms: Laplace's density e^(−|x|ε/Δ)·ε/(2Δ); Laplace within ±θ in a share 1 − e^(−εθ/Δ), one half at
    ε = ln 2·Δ/θ; a Gaussian at half its height at σ·√(2 ln 2) from its centre)."""
    noises = pictures.picture("delta", 1e-5).figure
    notes = _notes(noises)
    assert {"Gaussian", "Laplace"} <= set(notes)
    lap = notes["Laplace"]
    assert lap.y == pytest.approx(0.5 * math.exp(-abs(lap.x)), rel=0.01)  # ε = 1, Δ = 1
    gauss_peak = float(pictures.picture("delta", 1e-5).data["gaussian"].max())
    sigma = 1 / (gauss_peak * math.sqrt(2 * math.pi))
    g = notes["Gaussian"]
    assert g.x == pytest.approx(-sigma * math.sqrt(2 * math.log(2)), rel=0.02) and g.y == pytest.approx(gauss_peak / 2)

    accuracy = _notes(pictures.picture("choose", 1.0).figure)
    assert {"Gaussian", "Laplace"} <= set(accuracy)
    assert 10 ** accuracy["Laplace"].x == pytest.approx(math.log(2), rel=0.02)
    assert accuracy["Laplace"].xanchor == "right" and accuracy["Gaussian"].xanchor == "left"  # each outside the pair

    assert {"Laplace", "best random scale"} <= set(_notes(pictures.picture("random_scale", 1.0).figure))
    screening = _notes(pictures.picture("sparse", 1.0).figure)
    assert {"noisy threshold", "“above”"} <= set(screening)
