"""A handout as one self-contained HTML file: the words (Markdown, maths as MathML), the figures with their in-figure
sliders, plotly.js and the sliders' keyboard code inlined once, and a print stylesheet. Nothing is fetched: the file
opens from ``file://`` with no server and no network.

Maths is written in the lessons as LaTeX between ``$`` signs; it becomes MathML here (``latex2mathml``), which the
browser typesets itself and prints as it shows, with no script and no font to fetch. Plainly written maths (``e^ε``,
``ε_y``, as the app's words write it) is typeset by :mod:`app.notation`.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

import latex2mathml.converter
import markdown
import plotly.io as pio
import plotly.offline

from app import notation
from app.slider_js import SLIDERS_CSS, SLIDERS_JS


@dataclass
class Handout:
    """A handout being written: its title, a line under it, and its blocks of HTML in reading order."""

    title: str
    subtitle: str = ""
    blocks: list[str] = field(default_factory=list)
    figures: int = 0
    answers: list[str] = field(default_factory=list)
    _specs: dict[str, str] = field(default_factory=dict, repr=False)  # a figure's JSON → the id that carries it

    def heading(self, text: str, level: int = 2, new_page: bool = False) -> None:
        cls = ' class="new-page"' if new_page else ""
        self.blocks.append(f"<h{level}{cls}>{inline(text)}</h{level}>")

    def text(self, md: str, cls: str = "") -> None:
        """A paragraph or more of Markdown with maths (``$…$``, ``$$…$$``) and plainly written scripts."""
        body = words(md)
        self.blocks.append(f'<div class="{cls}">{body}</div>' if cls else body)

    def exercise(self, question: str, hints: tuple[str, ...], answer: str, heading: str = "Try this") -> None:
        """A question with its hints to open one by one, and its answer folded: on screen each opens on a click; in
        print the hints are written out in a line or two and the answer is not: it is on the answers' page at the
        end."""
        self.answers.append(answer)
        n = len(self.answers)
        ordinal = ("First", "Second", "Third", "Fourth")
        hint_blocks = "".join(
            f'<details class="hint"><summary>{ordinal[i] if i < len(ordinal) else "Another"} hint</summary>'
            f"{words(h)}</details>"
            for i, h in enumerate(hints)
        )
        printed = " ".join(f"({i + 1}) {inline(h)}" for i, h in enumerate(hints))
        self.blocks.append(
            f'<section class="exercise" id="exercise-{n}"><p class="question"><strong>{inline(heading)} '
            f"({n}).</strong></p>{words(question)}{hint_blocks}"
            + (f'<p class="print-only hints"><strong>Hints.</strong> {printed}</p>' if hints else "")
            + f'<details class="answer"><summary>The answer</summary>{words(answer)}</details>'
            f'<p class="print-only source">The answer is on the answers’ page at the end ({n}).</p></section>'
        )

    def table(self, frame: Any) -> None:
        """A table of numbers (a pandas frame), its columns named in words."""
        named = frame.rename(columns=lambda c: str(c).replace("_", " "))
        self.blocks.append(named.to_html(index=False, border=0, float_format=lambda v: f"{v:g}"))

    def figure(self, fig: Any, caption: str = "", alt: str = "") -> None:
        """A Plotly figure (a ``go.Figure`` or its JSON), frames and in-figure slider included."""
        spec = fig if isinstance(fig, dict) else json.loads(pio.to_json(fig, validate=False))
        self.figures += 1
        fid = f"figure-{self.figures}"
        height = int((spec.get("layout") or {}).get("height") or 450)
        payload = json.dumps(
            {"data": spec.get("data", []), "layout": spec.get("layout", {}), "frames": spec.get("frames", [])},
            separators=(",", ":"),
        )
        payload = payload.replace("</", "<\\/")  # a "</script>" inside a label cannot end the script
        label = f' aria-label="{html.escape(alt)}"' if alt else ""
        cap = f"<figcaption>{words(caption)}</figcaption>" if caption else ""
        first = self._specs.setdefault(payload, fid)
        if first != fid:  # the same picture again (the page's and its lesson's): drawn from the JSON carried once
            self.blocks.append(
                f'<figure class="chart"><div id="{fid}" class="plot" data-spec="{first}-spec" '
                f'style="height:{height}px"{label}></div>{cap}</figure>'
            )
            return
        self.blocks.append(
            f'<figure class="chart"><div id="{fid}" class="plot" style="height:{height}px"{label}></div>{cap}'
            f'<script type="application/json" id="{fid}-spec">{payload}</script></figure>'
        )

    def html(self) -> str:
        """The whole file."""
        sub = f'<p class="subtitle">{inline(self.subtitle)}</p>' if self.subtitle else ""
        answers = (
            '<section class="answers print-only new-page"><h2>Answers</h2><ol>'
            + "".join(f"<li>{words(a)}</li>" for a in self.answers)
            + "</ol></section>"
            if self.answers
            else ""
        )
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(self.title)}</title><style>{CSS}{SLIDERS_CSS}</style></head><body><main>"
            f"<h1>{inline(self.title)}</h1>{sub}{''.join(self.blocks)}{answers}</main>"
            f"<script>{plotly.offline.get_plotlyjs()}</script><script>{DRAW_JS}</script>"
            f"<script>{SLIDERS_JS}</script></body></html>\n"
        )


#: Draws every figure from its JSON, frames added so that the slider's steps can animate to them.
DRAW_JS = r"""
(() => {
  const config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["sendDataToCloud"]};
  for (const div of document.querySelectorAll("div.plot")) {
    const spec = JSON.parse(document.getElementById(div.dataset.spec || div.id + "-spec").textContent);
    Plotly.newPlot(div, spec.data, spec.layout, config).then((gd) => spec.frames.length ?
      Plotly.addFrames(gd, spec.frames) : gd);
  }
  // In print every chart is redrawn at once at 1050 px wide, its height kept, and the print stylesheet scales it
  // to the page's width (A4 or Letter less the margins): a resize to its box would come after the page is laid out
  // for print and cut the chart at the right, and a chart drawn narrower would squeeze its plot between its title,
  // slider and legend.
  const screen = new Map();
  window.addEventListener("beforeprint", () => {
    for (const d of document.querySelectorAll("div.plot.js-plotly-plot")) {
      screen.set(d, {width: d.layout.width ?? null});
      Plotly.relayout(d, {width: 1050});
    }
  });
  window.addEventListener("afterprint", () => {
    for (const [d, size] of screen) Plotly.relayout(d, size);
    screen.clear();
  });
})();
"""

CSS = """
:root { color-scheme: light; }
body { font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; margin: 0;
  background: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
h1 { font-size: 2rem; line-height: 1.2; margin: 0.5rem 0; }
h2 { font-size: 1.45rem; margin: 2.2rem 0 0.6rem; border-top: 1px solid #ccc; padding-top: 1rem; }
h3 { font-size: 1.15rem; margin: 1.6rem 0 0.4rem; }
.subtitle { color: #444; margin-top: 0; }
figure.chart { margin: 1rem 0 1.5rem; }
figure.chart figcaption { color: #333; font-size: 0.95rem; margin-top: 0.3rem; }
div.plot { width: 100%; }
math[display="block"] { margin: 0.8rem 0; font-size: 1.1em; }
.notice { border-left: 4px solid #0072B2; padding: 0.2rem 0.9rem; background: #f2f7fb; }
.warning { border-left: 4px solid #D55E00; padding: 0.2rem 0.9rem; background: #fdf3ec; }
.source { color: #555; font-size: 0.9rem; }
details { margin: 0.4rem 0; }
section.exercise { border: 1px solid #ccc; border-radius: 4px; padding: 0.2rem 0.9rem 0.5rem; margin: 1rem 0; }
.print-only { display: none; }
summary { cursor: pointer; font-weight: 600; }
table { border-collapse: collapse; margin: 0.8rem 0; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.6rem; }
code { font-size: 0.92em; }
@page { size: A4; margin: 14mm; }
@media print {
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  h3 { margin: 0.8rem 0 0.3rem; }
  .new-page { break-before: page; page-break-before: always; border-top: 0; margin-top: 0; padding-top: 0; }
  figure.chart { break-inside: avoid; page-break-inside: avoid; margin: 0.4rem 0 0.8rem; }
  figure.chart div.plot { width: 1050px; zoom: 0.65; }
  section.exercise details { display: none; }
  section.exercise { break-inside: avoid; margin: 0.5rem 0; }
  .print-only { display: block; }
  .updatemenu-container, input.dpx-slider, button.dpx-play { display: none; }
}
"""

_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
# may wrap a line; a space before the closing $ only where the maths is plainly LaTeX ("$r^{op} = $ 564.49")
_INLINE = re.compile(r"(?<![\\$])\$(?!\s)([^$]+?(?<!\s)|[^$]*[\\^_{][^$]*?)\$(?!\d)")
_ICON = re.compile(r":material/[a-z_]+:\s?")
_COLOUR = re.compile(r":(?:red|blue|green|orange|violet|gray|grey|rainbow|primary)(?:-background)?\[(.*?)\]")


def mathml(latex: str, display: bool = False) -> str:
    """LaTeX → MathML (the browser typesets it; no script)."""
    return latex2mathml.converter.convert(latex.strip(), display="block" if display else "inline")


def words(md: str) -> str:
    """Markdown with maths → HTML: ``$…$`` and ``$$…$$`` become MathML, plainly written scripts are typeset
    (``e^ε`` → e<sup>ε</sup>), the app's icons and colour marks are dropped (their words stay)."""
    md = _COLOUR.sub(r"\1", _ICON.sub("", md))
    found: list[str] = []

    def keep(out: str) -> str:
        found.append(out)
        return f"\x00{len(found) - 1}\x00"

    md = _DISPLAY.sub(lambda m: "\n\n" + keep(mathml(m[1], display=True)) + "\n\n", md)
    md = _INLINE.sub(lambda m: keep(mathml(m[1])), md)
    md = "\n".join(
        line.strip() if not line.strip().startswith(("|", "-", "*", "1.")) else line.strip() for line in md.splitlines()
    )
    out = markdown.markdown(notation.html(md), extensions=["tables", "sane_lists"])
    return re.sub("\x00(\\d+)\x00", lambda m: found[int(m[1])], out)


def inline(text: str) -> str:
    """One line of words (a heading, a summary): like :func:`words` without the paragraph around it."""
    out = words(re.sub(r"^(\d+)\. ", r"\1\\. ", text))  # "1. What ε promises" is a heading, not a list
    return out[3:-4] if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1 else out
