"""What each handout holds, gathered from where the app and the lessons keep it (nothing is written twice):

* **the first course** — every chapter's words, picture (with its in-figure slider and play button), the sentence
  that says what the picture's numbers mean, what to notice, and its check with the hints and the worked solution
  (:mod:`app.course`);
* **a paper** — the app page at its defaults as a newcomer meets it (title, idea, picture, the numbers in
  sentences, down to "The paper in depth") and every panel of the page with an in-figure slider, read from a run
  of the page itself; then the paper's lesson (``notebooks/<topic>.py``) as it first opens, run headless at its
  default settings (:mod:`app.handouts.lesson`): its words with the numbers it computes, its equations, pictures,
  exercises and reproduced results, its controls replaced by a sentence of the values used.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from app import catalogue, course, instant, slides
from app.course import pictures
from app.handouts import lesson
from app.handouts.document import Handout

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"


@dataclass(frozen=True)
class Paper:
    """A paper's handout: its page (script and address values for the part with the in-figure slider) and its
    lesson."""

    topic: str
    script: str
    query: tuple[tuple[str, str], ...] = ()


PAPERS: tuple[Paper, ...] = (
    Paper("baselines", "baselines.py"),
    Paper("brdp", "brdp.py"),
    Paper("noise_reduction", "noise_reduction.py"),
    Paper("svt", "svt.py", (("part", "Correction"),)),
    Paper("ldp", "ldp.py"),
    Paper("r2dp", "r2dp.py", (("part", "Families"),)),
)
COURSE = "course"
#: Every handout: the first course in one file, then one per paper page.
TOPICS: tuple[str, ...] = (COURSE, *(p.topic for p in PAPERS))

APP_NOTE = (
    "A handout from DP Explorer: it works offline, in any browser, with no server. Drag the slider under a "
    "picture (or focus it and use the arrow keys) to see it at another setting. The app and its lessons "
    "have every control."
)


def course_handout() -> Handout:
    """The first course in one file: plotly.js is inlined once for ten pictures, a class reads the chapters in
    order, and in print each chapter starts on a new page."""
    h = Handout(
        "A first course in differential privacy",
        f"Ten short chapters, one idea, one picture and one check each. {APP_NOTE}",
    )
    h.heading("Contents")
    h.text("\n".join(f"{ch.number}. {ch.title}" for ch in course.CHAPTERS))
    for ch in course.CHAPTERS:
        p = catalogue.get(ch.control)
        value = p.default
        stops = pictures.STOPS.get(ch.slug)
        if stops is not None and value not in stops:
            value = stops[0]
        pic = pictures.picture(ch.slug, value)
        h.heading(f"{ch.number}. {ch.title}", new_page=True)
        h.text(ch.text)
        h.figure(
            pictures.slide(ch.slug, value),
            alt=pic.alt,
            caption=f"{pic.reading} (Numbers at the chapter's default setting, {lesson.setting(ch.control, value)}.) "
            f"Drag the slider under the picture to see other values of {p.symbol or p.name}.",
        )
        h.text(f"**What to notice:** {ch.notice}", cls="notice")
        h.heading("Check what you saw", level=3)
        h.exercise(ch.question, ch.check.hints, ch.solution, heading="Question")
        h.text(f"Going deeper: {ch.deeper.title} in the app, and its lesson.", cls="source")
    return h


def paper_handout(paper: Paper) -> Handout:
    """A paper's handout: its page's newcomer layer and in-figure-slider panels at the defaults, then its lesson."""
    elements = list(_page(paper))
    title = next((v for kind, v in elements if kind == "title"), paper.topic)
    h = Handout(str(title), APP_NOTE)
    for kind, value in elements:
        if kind == "title":
            continue
        if kind == "header":
            h.heading(value)
        elif kind == "figure":
            h.figure(value)
        elif kind == "caption":
            h.text(value, cls="source")
        elif kind in ("warning", "error"):
            h.text(value, cls="warning")
        elif kind in ("info", "success"):
            h.text(value, cls="notice")
        else:
            h.text(value)
    path = ROOT / "notebooks" / f"{paper.topic}.py"
    if path.exists():
        h.heading("The lesson", new_page=True)
        h.text(
            f"The lesson on this paper as it first opens, its numbers computed at its default settings. Its controls "
            f"and answer boxes are in the lesson itself (`make lesson NAME={paper.topic}`) and on the app's page.",
            cls="source",
        )
        lesson_into(h, lesson.run(path))
    return h


def lesson_into(h: Handout, outputs: Any) -> None:
    """A lesson's outputs (:func:`app.handouts.lesson.run`) written into the handout in order, its sections one level
    under "The lesson"."""
    for item in lesson.shown(outputs):
        if isinstance(item, lesson.Words):
            text = _under_the_lesson(_dedent(item.text))
            if text:
                h.text(text)
        elif isinstance(item, lesson.Settings) and item.values is not None:
            h.text(lesson.settings_sentence(item.values), cls="notice")
        elif isinstance(item, lesson.Question):
            ex = item.exercise
            question = ex.question + ("\n\nChoose one: " + " · ".join(ex.options) + "." if ex.options else "")
            h.exercise(question, tuple(ex.hints), f"{ex.solution}\n\n{ex.why}" if ex.why else ex.solution)
        elif isinstance(item, lesson.Table):
            h.table(item.frame)
        else:
            h.figure(item)


def _under_the_lesson(md: str) -> str:
    """A lesson's Markdown one level under the handout's "The lesson": its title (the page's, already on top) goes,
    its sections become subsections."""
    lines = [line for line in md.splitlines() if not line.startswith("# ")]
    return "\n".join("#" + line if line.startswith("##") else line for line in lines).strip()


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip()


#: What the page shows that a handout keeps (Streamlit element types).
_WORDS = {"title", "header", "subheader", "markdown", "caption", "warning", "info", "success", "error"}


def _page(paper: Paper) -> Iterator[tuple[str, Any]]:
    """The page at its defaults, in reading order: everything down to "The paper in depth", then each panel below it
    that holds an in-figure slider. Its in-figure sliders' stops are all built before the run that is read, so the
    page draws them (not the plain figure it draws while they are built)."""
    asked: list[tuple] = []
    real: Callable = instant.figure

    def record(build, key, value, *args, **kw):
        asked.append((value, build, key, tuple(args), kw.get("play", False), kw.get("shown"), kw.get("stops")))
        return real(build, key, value, *args, **kw)

    instant.figure = record  # type: ignore[assignment]
    try:
        at = _run(paper)
        for value, *job in asked:
            slides.opened(value, *job, bold_titles=True)
        at = _run(paper)
    finally:
        instant.figure = real  # type: ignore[assignment]
    if at.exception:
        raise RuntimeError(f"the {paper.topic} page failed: {at.exception}")
    in_depth = False
    for panel in _blocks(at.main):
        items = list(_items(panel))
        if any(kind == "header" and "The paper in depth" in str(v) for kind, v in items):
            in_depth = True
            continue
        if in_depth and not any(kind == "figure" and (v.get("layout") or {}).get("sliders") for kind, v in items):
            continue
        yield from items


def _run(paper: Paper) -> AppTest:
    """One run of the paper's page at its defaults (the address values of the part with the in-figure slider)."""
    at = AppTest.from_file(str(MAIN), default_timeout=300)
    if paper.script != "home.py":
        at.switch_page(f"../pages/{paper.script}")
    for k, v in paper.query:
        at.query_params[k] = v
    return at.run()


def _blocks(main: Any) -> Iterator[Any]:
    """The page's top-level pieces below the classroom strip: the title and idea, then each panel."""
    started = False
    for child in main.children.values():
        if getattr(child, "type", None) == "title":
            started = True
        if started:
            yield child


def _items(node: Any) -> Iterator[tuple[str, Any]]:
    """The words and figures of one piece of the page, in order (tabs' contents all, controls skipped)."""
    kind = getattr(node, "type", None)
    if kind in _WORDS:
        value = str(getattr(node, "value", "") or "")
        if value.strip() and not value.startswith("The slider in this picture"):
            yield kind, value
        return
    if kind == "plotly_chart":
        yield "figure", json.loads(node.proto.spec)
        return
    for child in getattr(node, "children", {}).values():
        yield from _items(child)


def build(topic: str) -> Handout:
    """The handout of one topic (:data:`TOPICS`)."""
    if topic == COURSE:
        return course_handout()
    return paper_handout(next(p for p in PAPERS if p.topic == topic))
