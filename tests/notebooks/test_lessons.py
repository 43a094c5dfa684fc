"""Every marimo lesson runs headless at its defaults and at two other parameter sets, with its own checks holding;
``marimo check`` finds nothing; every exercise's checker accepts the right answer and refuses a wrong one."""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import marimo as mo
import plotly.graph_objects as go
import pytest

from app import catalogue, decks, lessons, slides
from app.course import chapter
from tests.notebooks.lesson_params import OTHER_SETS, computed_by, picture_by

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p for p in (ROOT / "notebooks").glob("*.py") if not p.name.startswith("_"))
NAMES = [p.stem for p in LESSONS]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"lesson_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app


@pytest.fixture(scope="module", params=LESSONS, ids=NAMES)
def default_run(request):
    app = _load(request.param)
    outputs, defs = app.run()  # a failing check raises here
    return request.param, app, outputs, defs


def test_every_lesson_has_other_parameter_sets():
    assert "baselines" in NAMES
    assert set(NAMES) <= set(OTHER_SETS), f"add two parameter sets for {sorted(set(NAMES) - set(OTHER_SETS))}"


@pytest.mark.slow
def test_lesson_runs_at_defaults(default_run):
    _, _, outputs, defs = default_run
    assert isinstance(defs["p"], lessons.Values)
    assert any(o is not None for o in outputs)


#: What a reader sees as text: everything outside typeset maths (KaTeX), code, the charts' data and the tags.
_NOT_TEXT = re.compile(r"<marimo-tex\b.*?</marimo-tex>|<code\b.*?</code>|<pre\b.*?</pre>|<[^>]+>", re.S)


def test_every_formula_of_a_lesson_is_typeset(default_run):
    """No dollar sign and no TeX command (``\\varepsilon``, ``\\frac``) left in the text a reader sees: a formula
    that runs over a line break, or one that ends in a space (``$r = $``), would otherwise show as raw LaTeX."""
    path, _, outputs, _ = default_run
    found = []
    for out in outputs:
        text = getattr(out, "text", None)
        if not isinstance(text, str):
            continue
        shown = html.unescape(_NOT_TEXT.sub(" ", text))
        found += [shown[max(0, m.start() - 40) : m.end() + 20] for m in re.finditer(r"\$|\\[A-Za-z]{2,}", shown)]
    assert not found, f"{path.stem}: raw LaTeX on the page: {found[:5]}"


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1])
def test_lesson_runs_at_other_parameter_sets(default_run, which):
    path, app, _, defs = default_run
    changes = OTHER_SETS[path.stem][which]
    p = defs["p"].replace(**changes)
    _, new = app.run(defs={"p": p})
    assert new["p"] == p


#: The in-figure sliders of each paper's lesson: the parameter of each slide figure its page draws (app/views/).
#: Every chapter of the first course has one over its control.
SLIDERS: dict[str, tuple[str, ...]] = {
    "baselines": ("eps", "eps", "eps"),  # what ε promises, the noise densities, accuracy against ε
    "brdp": ("theta",),  # the output density
    "svt": ("neg",),  # the comparison and its correction
    "noise_reduction": ("eta",),  # one noise path, stopped when accurate
    "ldp": ("nq",),  # the posterior after k answers
    "r2dp": ("eps",),  # usefulness against ε
    "negotiate": (),
    "audit": (),
}


def test_a_lesson_shows_a_picture_of_its_idea_before_it_asks_anything(default_run):
    """Idea, picture, then numbers: the first chart comes before the first exercise (the local-DP lesson used to
    open on a definition and an exercise, its first picture a screen and a half down)."""
    path, _, outputs, _ = default_run
    shown = [html.unescape(mo.as_html(o).text) if o is not None else "" for o in outputs]
    pictures = [i for i, o in enumerate(outputs) if o is not None and _plotly_figures(o)]
    asks = [i for i, text in enumerate(shown) if "data-placeholder='\"your answer\"'" in text]
    assert pictures, f"{path.stem} draws no picture"
    assert not asks or pictures[0] < asks[0], f"{path.stem}: an exercise (cell {asks[0]}) before the first picture"


def _sliders_expected(name: str) -> tuple[str, ...]:
    if name.startswith("course_"):
        return (chapter(name.split("_", 2)[2]).control,)
    return SLIDERS[name]


def _plotly_figures(output: object) -> list[dict]:
    """The Plotly figures an output shows, each as its layout and frames, read from what marimo renders (a figure
    in a ``mo.vstack`` is HTML by then: plotly's ``Plotly.newPlot(id, data, layout, …)`` and ``addFrames``)."""
    if isinstance(output, go.Figure):
        return [{"layout": output.layout.to_plotly_json(), "frames": list(output.frames)}]
    text = html.unescape(mo.as_html(output).text)
    decode = json.JSONDecoder().raw_decode
    out = []
    for m in re.finditer(r'Plotly\.newPlot\(\s*"([^"]+)",\s*', text):
        _, end = decode(text, m.end())
        layout, _ = decode(text, re.compile(r",\s*").match(text, end).end())
        frames = re.search(rf"addFrames\('{re.escape(m.group(1))}',\s*", text)
        out.append({"layout": layout, "frames": decode(text, frames.end())[0] if frames else []})
    return out


@pytest.mark.slow
def test_lesson_pictures_carry_the_pages_in_figure_slider(default_run):
    """The pictures a page draws with an in-figure slider are drawn in its lesson the same way: every stop as a
    frame, a slider over the same parameter, opened at the lesson's control value; the sentence under the picture
    says that its slider moves it at once and that the lesson's controls set the rest."""
    path, _, outputs, defs = default_run
    figures = [f for o in outputs if o is not None for f in _plotly_figures(o)]
    slid = [f for f in figures if f["layout"].get("sliders")]
    assert sorted(f["layout"]["sliders"][0]["name"] for f in slid) == sorted(_sliders_expected(path.stem))
    for f in slid:
        slider = f["layout"]["sliders"][0]
        key = slider["name"]
        steps = [step["value"] for step in slider["steps"]]
        assert len(f["frames"]) == len(steps) >= 5 and [fr["name"] for fr in f["frames"]] == steps
        assert steps[slider["active"]] == catalogue.get(key).fmt(getattr(defs["p"], key))
    if path.stem in SLIDERS and slid:
        said = " ".join(html.unescape(mo.as_html(o).text) for o in outputs if o is not None)
        assert "The slider under" in said and "your controls above set everything else" in said


@pytest.mark.slow
def test_exercise_checkers_accept_right_and_refuse_wrong(default_run):
    """Every exercise of every lesson: the answer as the lesson shows it is right; a wrong one gets the first hint,
    then the stronger one, then the solution, and neither hint names the answer."""
    _, _, _, defs = default_run
    exercises = [v for v in defs.values() if isinstance(v, lessons.Exercise)]
    assert exercises, "a lesson has 'Try this' exercises"
    for ex in exercises:
        assert ex.check(ex.answer)[0] is True, ex.question
        if ex.options:
            wrong = next(o for o in ex.options if o != ex.answer)
        else:
            value = ex.checker.value
            wrong = f"{value * 1.5 + 1:g}" + (" %" if ex.checker.percent else "")
        replies = [ex.reply(wrong, n) for n in range(3)]
        assert [r.right for r in replies] == [False] * 3 and [r.state for r in replies] == [
            "hint",
            "stronger",
            "solution",
        ], ex.question
        shown = str(ex.answer).removesuffix("%").strip()
        for hint in ex.hints:
            assert hint in " ".join(r.text for r in replies[:2])
            assert not re.search(rf"(?<![\w.]){re.escape(shown)}(?![\w]|\.\d)", hint), (ex.question, hint)
        assert ex.check("")[0] is None


def test_marimo_check_is_clean():
    run = subprocess.run(
        [sys.executable, "-m", "marimo", "check", *map(str, LESSONS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr


def test_exercise_checker_messages():
    ex = lessons.Exercise("q", "3.731", "because", "solution", ("look at the chart", "read the second line"))
    assert ex.check("3.731") == (True, "Right. because")
    assert ex.check("3,7312")[0] is True  # a decimal comma is read too
    ok, message = ex.check("5")
    assert ok is False and "too high" in message and "look at the chart" in message
    assert "read the second line" in ex.check("5", wrong_before=1)[1]
    assert ex.reply("5", wrong_before=2).solution
    assert ex.check("3.7") == (None, ex.reply("3.7").text) and "three decimals" in ex.reply("3.7").text  # close
    assert ex.check("abc")[0] is None  # unreadable: not judged, not counted
    share = lessons.Exercise("q", "0.9", "why", "sol", ("h1", "h2"), share=True)
    assert all(share.check(v)[0] for v in ("0.9", "0.905", "90%", "90 %"))  # the chart's 0.9 for 0.905
    percent = lessons.Exercise("q", "52 %", "why", "sol", ("h1", "h2"))
    assert all(percent.check(v)[0] for v in ("52", "52.5", "52 %", "0.52"))
    choice = lessons.Exercise("q", "Gaussian", "why", "sol", ("h1", "h2"), options=("Gaussian", "Laplace"))
    assert choice.check("Gaussian")[0] is True and choice.check("Laplace")[0] is False


def test_an_input_counts_its_own_tries():
    ex = lessons.Exercise("q", "0.9", "why", "the worked solution", ("first hint", "second hint"))
    box = ex.input
    for typed, hint in (("2", "first hint"), ("2", "first hint"), ("3", "second hint")):
        box._value = typed  # what marimo sets when the reader presses Enter
        assert hint in str(ex.feedback(box).text)
    box._value = "4"
    assert "the worked solution" in str(ex.feedback(box).text)


def test_the_sentence_under_a_slid_picture():
    """What the picture's own slider moves, what the controls set, and what stays at the slider's value."""
    said = html.unescape(lessons.slider_note("θ", "ε = 1, the kernel").text)
    assert (
        "The slider under the picture moves θ and redraws it at once, with no waiting; your controls above set "
        "everything else (ε = 1, the kernel), and the rest of the lesson stays at the θ set there." in said
    )
    said = html.unescape(lessons.slider_note("η", "y = 100", play=True, stays="the numbers below stay").text)
    assert "The slider under the picture (and Play) moves η and" in said
    assert "and the numbers below stay at the η set there." in said


def test_a_lesson_starts_at_the_settings_in_its_address(monkeypatch):
    """An app page's "Open the lesson" link carries its settings: the lesson's controls start there (snapped to the
    nearest stop); what cannot be read is ignored."""
    monkeypatch.setattr(lessons.mo, "query_params", lambda: {"eps": "2", "delta": "1e-06", "T": "97", "calib": "x"})
    assert lessons.from_address("eps") == 2.0 and lessons.from_address("delta") == 1e-6
    assert lessons.from_address("T") == 100 and lessons.from_address("calib") is None
    group = lessons.controls("eps", "delta", "calib")
    assert lessons.values(group) == lessons.Values(eps=2.0, delta=1e-6, calib="analytic")


def test_delta_reads_as_people_write_it():
    """marimo's slider cannot format its value (it showed 1.0e-5 over two lines): δ is a list of its stops in words."""
    box = lessons.control("delta")
    assert "10⁻⁵" in box.options and box.value == 1e-5 and "1.0e-5" not in str(box.text)


def test_check_raises_on_a_failed_reproduction():
    with pytest.raises(lessons.LessonCheckFailed):
        lessons.check(False, "a number that does not match")


def test_values_refuse_unknown_parameters():
    with pytest.raises(KeyError):
        lessons.Values(not_a_parameter=1)


def test_app_link_carries_the_settings(monkeypatch):
    monkeypatch.setenv(lessons.APP_URL_ENV, "https://dp.example.org/")
    url = lessons.app_url("brdp", lessons.Values(eps=0.5, delta=1e-6))
    assert url == "https://dp.example.org/brdp?eps=0.5&delta=1e-06"


def test_remember_computes_once_and_hands_out_copies():
    calls = []

    def job(a, b):
        calls.append((a, b))
        return {"sum": [a + b]}

    first = lessons.remember(job, 1, 2)
    first["sum"].append("changed by a cell")
    assert lessons.remember(job, 1, 2) == {"sum": [3]}  # the remembered value is untouched
    assert calls == [(1, 2)]
    assert lessons.remember(job, 2, 2) == {"sum": [4]} and calls == [(1, 2), (2, 2)]


def test_neighbours_are_the_adjacent_slider_stops():
    p = lessons.Values(theta=1.0, conf=0.95)
    assert [q.theta for q in lessons.neighbours(p, "theta")] == [1.2, 0.8]
    assert [q.conf for q in lessons.neighbours(p, "theta")] == [0.95, 0.95]
    top = catalogue.get("theta").grid[-1]
    assert [q.theta for q in lessons.neighbours(p.replace(theta=top), "theta")] == [catalogue.get("theta").grid[-2]]
    assert lessons.neighbours(p.replace(theta=1.1), "theta") == []  # between stops (a test's own value): none


def test_ahead_computes_in_a_worker_what_remember_then_hands_out(monkeypatch):
    """In a served lesson, :func:`lessons.ahead` starts the next settings in a worker process and :func:`remember`
    hands out the worker's result instead of computing it again; a pid tells who computed it."""
    monkeypatch.setattr(lessons.mo, "app_meta", lambda: types.SimpleNamespace(mode="run", request=object()))
    monkeypatch.delenv(lessons.AHEAD_ENV, raising=False)
    lessons.ahead(computed_by, ("next stop",), ("the stop below",))
    jobs = [lessons._ahead[(computed_by, (a,))] for a in ("next stop", "the stop below")]
    worker = jobs[0].result(timeout=120)[0]
    assert worker != os.getpid()
    assert lessons.remember(computed_by, "next stop") == (worker, "next stop")
    jobs[1].result(timeout=120)
    assert lessons.remember(computed_by, "the stop below") == (worker, "the stop below")
    assert lessons.remember(computed_by, "never planned") == (os.getpid(), "never planned")
    assert not any(k[0] is computed_by for k in lessons._ahead)


def test_ahead_drops_plans_no_worker_has_started(monkeypatch):
    monkeypatch.setattr(lessons.mo, "app_meta", lambda: types.SimpleNamespace(mode="run", request=object()))
    monkeypatch.delenv(lessons.AHEAD_ENV, raising=False)
    lessons.ahead(computed_by, *[(f"stop {i}",) for i in range(40)])
    lessons.ahead(computed_by, ("where the reader went",))
    planned = [k[1][0] for k in lessons._ahead if k[0] is computed_by]
    assert "where the reader went" in planned and len(planned) < 40
    assert lessons.remember(computed_by, "where the reader went")[1] == "where the reader went"


def test_ahead_does_nothing_in_a_headless_run_or_an_export(monkeypatch):
    monkeypatch.delenv(lessons.AHEAD_ENV, raising=False)
    lessons.ahead(max, (1, 2))
    assert (max, (1, 2)) not in lessons._ahead
    # an export to .ipynb runs the lesson in "edit" mode, but with no reader's request behind it
    monkeypatch.setattr(lessons.mo, "app_meta", lambda: types.SimpleNamespace(mode="edit", request=None))
    lessons.ahead(max, (1, 2))
    assert (max, (1, 2)) not in lessons._ahead


def _dot_at(eps: float, height: int) -> go.Figure:
    return go.Figure(go.Scatter(x=[eps], y=[1.0]), layout={"height": height})


def test_a_served_lesson_writes_a_shared_picture_out_once(monkeypatch):
    """:func:`lessons.slide` is the app's picture with its in-figure slider: a headless run gets the figure itself;
    a served lesson gets what marimo draws of it, written out once per figure, so a control moved back to a value
    seen before does not write the whole deck again."""
    shared = lessons.slide(_dot_at, "eps", 1.0, 300)
    assert isinstance(shared, go.Figure) and len(shared.frames) == len(catalogue.get("eps").grid)
    monkeypatch.setattr(lessons.mo, "app_meta", lambda: types.SimpleNamespace(mode="run", request=object()))
    written, as_html = [], mo.as_html
    monkeypatch.setattr(lessons.mo, "as_html", lambda fig: written.append(fig) or as_html(fig))
    first = lessons.slide(_dot_at, "eps", 1.0, 300)
    assert len(written) == 1 and written[0] is shared and "Plotly" in first.text  # the same figure, drawn
    assert lessons.slide(_dot_at, "eps", 1.0, 300) is first and len(written) == 1  # moved back: not written again
    other = lessons.slide(_dot_at, "eps", 2.0, 300)
    assert len(written) == 2 and written[1] is not shared and other is not first


def test_a_served_lesson_takes_the_slider_its_worker_built_ahead(monkeypatch):
    """:func:`lessons.slides_ahead` builds a picture's in-figure slider at the next settings in the worker, and
    :func:`lessons.slide` opens the worker's deck there instead of building it again; plans for one picture leave
    another picture's plans alone. Each stop's title names the process that drew it."""
    monkeypatch.setattr(lessons.mo, "app_meta", lambda: types.SimpleNamespace(mode="run", request=object()))
    monkeypatch.delenv(lessons.AHEAD_ENV, raising=False)
    lessons.slides_ahead(picture_by, "eps", (301,), (302,))
    lessons.slides_ahead(decks.belief, "eps", ())  # another picture's plan
    planned = [slides.job_of(picture_by, "eps", (h,)) for h in (301, 302)]
    assert all((slides.deck, job) in lessons._ahead for job in planned), "the first picture's plans are kept"
    for job in planned:
        lessons._ahead[(slides.deck, job)].result(timeout=120)
    lessons.remember(computed_by, "another cell")  # which gathers the finished plans in

    def drawn_by(height: int) -> str:
        lessons.slide(picture_by, "eps", 1.0, height)
        return slides.known(*slides.job_of(picture_by, "eps", (height,))).stops[0]["layout"]["title"]["text"]

    worker = drawn_by(301)
    assert worker != f"pid {os.getpid()}" and drawn_by(302) == worker, "opened from the worker's decks"
    assert drawn_by(304) == f"pid {os.getpid()}", "a setting never planned is drawn here"
    lessons.slides_ahead(picture_by, "eps", (301,), (304,), (305,))
    again = {job[2][0] for fn, job in lessons._ahead if fn is slides.deck and job[0] is picture_by}
    assert again == {305}, "a slider already built is not planned again"


def test_a_lesson_exports_to_jupyter_with_its_outputs(tmp_path):
    """``make export``'s Jupyter half: the lesson as an .ipynb holding the outputs at its defaults (needs nbformat,
    which the notebooks extra installs)."""
    import nbformat

    out = tmp_path / "audit.ipynb"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "marimo",
            "export",
            "ipynb",
            str(ROOT / "notebooks" / "audit.py"),
            "-o",
            str(out),
            "--include-outputs",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    nb = nbformat.read(out, as_version=4)
    with_output = [c for c in nb.cells if c.get("outputs")]
    assert len(with_output) >= 5 and any("Laplace" in str(c["outputs"]) for c in with_output)


def test_every_lesson_is_a_page_s_or_a_chapter_s_and_every_page_s_lesson_exists():
    """The page records (app.registry) name the pages' lessons; the course's chapters name theirs."""
    from app import registry
    from app.course.chapters import CHAPTERS

    pages = {p.lesson for p in registry.PAGES if p.lesson}
    chapters = {ch.lesson for ch in CHAPTERS}
    assert pages | chapters == set(NAMES)
    assert {ch.deeper.lesson for ch in CHAPTERS} <= pages
