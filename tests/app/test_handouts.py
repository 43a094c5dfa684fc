"""Handouts (``make handouts``): each topic's file is self-contained — plotly.js inlined once, no script, style sheet,
image or frame fetched from anywhere, no link to a CDN — and holds the topic's words, maths and pictures with their
in-figure sliders. (Opening them in chromium with the network blocked: tests/e2e/test_handouts.py.)"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

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
        assert "Check what you saw" in text and "<details>" in text
    else:
        assert "The lesson" in text and "<math" in text  # the lesson's equations, typeset as MathML
        assert "The paper in depth" not in text  # the newcomer layer, then only the panels with a slider
    assert "$" not in re.sub(r"<script.*?</script>", "", text, flags=re.S), f"{topic}: LaTeX left untypeset"
    assert "@media print" in text and "break-inside: avoid" in text


@pytest.mark.parametrize("topic", [t for t in topics.TOPICS if t != topics.COURSE])
def test_a_handout_carries_its_lessons_words(topic):
    """The handout reads every cell of the paper's lesson that writes fixed text (``md`` of a literal string), its
    sections one level down; the cells that say numbers at the reader's settings (f-strings) stay in the lesson."""
    path = topics.ROOT / "notebooks" / f"{topic}.py"
    words = list(topics.lesson_words(path))
    literal = len(re.findall(r"\bmd\(r?\"\"\"", path.read_text()))
    assert literal >= 3 and len(words) == literal, topic
    assert "The idea in one sentence" in words[0] and not any(w.startswith("# ") for w in words)
    assert any(w.startswith("### 1 · ") for w in words), topic
