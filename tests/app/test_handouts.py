"""Handouts (``make handouts``): each topic's file is self-contained — plotly.js inlined once, no script, style sheet,
image or frame fetched from anywhere, no link to a CDN — and holds the topic's words, maths and pictures with their
in-figure sliders. (Opening them in chromium with the network blocked: tests/e2e/test_handouts.py.)"""

from __future__ import annotations

import html
import json
import math
import re
from html.parser import HTMLParser

import pytest

from app import catalogue
from app.handouts import topics

#: Hosts that serve scripts, fonts and styles to other sites: a handout must not point at any of them.
CDN = re.compile(r"cdn|jsdelivr|unpkg|cdnjs|googleapis|gstatic|plot\.ly|mathjax|katex|polyfill", re.I)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False if tag == "script" else self._in_script

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


@pytest.fixture(scope="module", params=topics.TOPICS)
def handout(request) -> tuple[str, str]:
    return request.param, topics.build(request.param).html()


def test_a_handout_fetches_nothing_and_names_no_cdn(handout):
    topic, text = handout
    p = _Tags()
    p.feed(text)
    for tag, attrs in p.tags:
        assert tag not in ("link", "iframe", "img", "object", "embed", "base"), (topic, tag, attrs)
        assert "src" not in attrs, (topic, tag, attrs)  # every script is inline
        href = attrs.get("href") or ""
        assert not CDN.search(href), (topic, tag, href)
    assert not re.search(r"<script[^>]*\bsrc\s*=", text, re.I)
    style = "".join(re.findall(r"<style>(.*?)</style>", text, re.S))
    assert "@import" not in style and "url(" not in style
    # plotly.js inlined once, and before the figures are drawn
    assert sum("Plotly" in s and len(s) > 1_000_000 for s in p.scripts) == 1, topic
    assert text.count("<script>") == 3  # plotly.js, the figures, the sliders' keyboard code


def test_a_handout_holds_its_pictures_with_their_sliders_and_its_words(handout):
    topic, text = handout
    specs = [
        json.loads(s.replace("<\\/", "</"))
        for s in re.findall(r'<script type="application/json" id="figure-\d+-spec">(.*?)</script>', text, re.S)
    ]
    carried = re.findall(r'<script type="application/json" id="(figure-\d+-spec)">(.*?)</script>', text, re.S)
    assert len({payload for _, payload in carried}) == len(carried), topic  # a picture shown twice is carried once
    assert set(re.findall(r'data-spec="([^"]+)"', text)) <= {fid for fid, _ in carried}
    with_slider = [s for s in specs if s["layout"].get("sliders")]
    assert with_slider, f"{topic}: no picture with an in-figure slider"
    for s in with_slider:  # every stop of the slider is a frame the handout carries
        names = {f["name"] for f in s["frames"]}
        assert [st["args"][0][0] for st in s["layout"]["sliders"][0]["steps"]] == [
            st["value"] for st in s["layout"]["sliders"][0]["steps"]
        ]
        assert {st["value"] for st in s["layout"]["sliders"][0]["steps"]} <= names
    if topic == topics.COURSE:
        assert len(with_slider) == 10 and text.count('class="new-page"') == 10  # a chapter a page in print
        assert "Check what you saw" in text and text.count('<details class="answer">') == 10
        assert text.count('<details class="hint">') == 20  # two hints a chapter, each opened on its own
    else:
        assert "The lesson" in text and "<math" in text  # the lesson's equations, typeset as MathML
        assert "The paper in depth" not in text  # the newcomer layer, then only the panels with a slider
    assert "$" not in re.sub(r"<script.*?</script>", "", text, flags=re.S), f"{topic}: LaTeX left untypeset"
    assert "@media print" in text and "break-inside: avoid" in text


def _reading(text: str) -> str:
    """What a reader reads: the text of the page, without its scripts, style, maths (MathML) and commands (code)."""
    body = re.sub(r"<(script|style|math|code)\b.*?</\1>", " ", text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


#: Names a handout may write with an underscore: a library's own name.
PROPER_NAMES = {"dp_accounting"}


def test_no_code_leaks_into_a_handout(handout):
    """No brace of a format string, no snake_case name, no None, no Python repr where a reader reads."""
    topic, text = handout
    seen = _reading(text)
    assert not re.search(r"[{}]", seen), (topic, re.findall(r".{40}[{}].{40}", seen, re.S)[:3])
    names = set(re.findall(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b", seen)) - PROPER_NAMES
    assert not names, (topic, names)
    for leak in (r"\bNone\b", r"\bnan\b", r"object at 0x", r"\bValues\(", r"Traceback", r"np\.float", r"\bTrue\b"):
        assert not re.search(leak, seen), (topic, leak, re.findall(r".{40}" + leak + r".{0,40}", seen, re.S)[:2])


@pytest.mark.parametrize("topic", [t for t in topics.TOPICS if t != topics.COURSE])
def test_a_paper_handout_carries_its_whole_lesson(topic):
    """The lesson is run at its defaults and every cell it shows is written in order: its literal words, the numbers
    it computes, the values it used, every exercise (the answer folded, and on the answers' page in print)."""
    path = topics.ROOT / "notebooks" / f"{topic}.py"
    source = path.read_text()
    text = topics.build(topic).html()
    seen = " ".join(_reading(text).split())
    lesson_part = seen[seen.index("The lesson on this paper") :]
    assert "The idea in one sentence" in lesson_part and "Reproduce" in lesson_part
    sections = re.findall(r"^ +## (.+)$", source, re.M)  # every section of the lesson, in order
    assert len(sections) >= 3
    at = 0
    for title in sections:
        at = lesson_part.index(" ".join(title.split()), at)
    p = catalogue.get("eps")
    eps = re.search(r"lessons\.controls\([^)]*\beps=([0-9.]+)", source)  # a lesson may open at its own ε
    shown_eps = p.words(float(eps[1]) if eps else p.default)
    assert f"Numbers at the lesson's default settings: ε = {shown_eps}," in lesson_part
    assert "✓" in lesson_part  # the reproduced results, with their numbers
    exercises = source.count("lessons.Exercise(")
    assert exercises >= 1
    assert text.count('<section class="exercise"') == exercises
    assert text.count('<details class="answer">') == exercises
    answers = re.search(r'<section class="answers print-only new-page">(.*?)</section>', text, re.S)
    assert answers is not None and answers[1].count("<li>") == exercises
    # in print the hints are written out, the answers left off the page and gathered on the answers' page
    assert re.search(r"@media print \{.*section\.exercise details \{ display: none; \}", text, re.S)
    assert text.count('<p class="print-only hints"><strong>Hints.</strong> (1) ') == exercises
    # a section of the lesson is one level under "The lesson"
    assert re.search(r"<h3>1 · ", text), topic


def test_a_handout_says_the_numbers_the_lesson_computes():
    """A sentence the baselines lesson computes, at its default ε = 1, with its numbers computed here."""
    seen = " ".join(_reading(topics.build("baselines").html()).split())
    factor = f"{math.exp(1):.3g}"  # the most the odds can move at ε = 1: e¹
    sceptic = f"{100 * math.e / (1 + math.e):.1f} %"  # a 50 % prior, its odds multiplied by e at most
    assert factor == "2.72" and sceptic == "73.1 %"
    assert f"At ε = 1 the odds can move by at most eε = {factor}×" in seen
    assert f"ends at most at {sceptic}" in seen


def test_a_lesson_run_for_a_handout_leaves_the_lessons_as_they_were():
    """The stand-ins used while a lesson runs for its handout are put back: a lesson served after it is unchanged."""
    import marimo as mo

    from app import lessons
    from app.handouts import lesson

    before = (lessons.md, lessons.panel, lessons.Exercise.show, mo.vstack, mo.md, mo.ui.table)
    outputs = lesson.run(topics.ROOT / "notebooks" / "svt.py")
    assert (lessons.md, lessons.panel, lessons.Exercise.show, mo.vstack, mo.md, mo.ui.table) == before
    kinds = {type(o).__name__ for o in lesson.shown(outputs)}
    assert {"Words", "Settings", "Question", "Figure"} <= kinds
