"""The one-page report of the negotiate page: a self-contained HTML file that prints cleanly on A4 or Letter.

It states the requirement, the answer, why, the alternatives with their reasons, the assumptions, and a link back to
the exact view, in plain words a manager can forward. Every text from the page is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from app import notation
from app.compute import negotiate as compute

STYLE = """
@page { size: auto; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #111; line-height: 1.45;
       max-width: 180mm; margin: 0 auto; padding: 8mm 4mm; font-size: 11pt; }
h1 { font-size: 17pt; margin: 0 0 4mm; } h2 { font-size: 12.5pt; margin: 6mm 0 2mm; }
.answer { border: 2px solid #0072B2; border-radius: 3mm; padding: 3mm 4mm; font-size: 13pt; font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 9.5pt; }
th, td { border-bottom: 1px solid #bbb; text-align: left; vertical-align: top; padding: 1.5mm 2mm; }
th { background: #f2f2f2; }
td.num { white-space: nowrap; }
tr, .answer, li { break-inside: avoid; page-break-inside: avoid; }
a { color: #0057a3; overflow-wrap: anywhere; }
.small { font-size: 9pt; color: #444; }
@media print {
  @page { margin: 12mm 12mm; }
  a { color: #111; } body { padding: 0; font-size: 10pt; line-height: 1.35; }
  h1 { font-size: 15pt; margin-bottom: 3mm; } h2 { font-size: 11.5pt; margin: 4mm 0 1.5mm; }
  .answer { font-size: 12pt; padding: 2.5mm 3.5mm; } table { font-size: 8.8pt; } th, td { padding: 1mm 1.5mm; }
  p, ul { margin: 1.5mm 0; }
}
"""


def _text(text: str) -> str:
    """Text for the report: escaped, with plainly written maths as HTML scripts (``ε_y`` → ε<sub>y</sub>)."""
    return notation.html(escape(text))


def report_html(req: compute.Requirement, answer: compute.Answer, comp: compute.Composition | None, link: str,
                assumptions: list[str]) -> str:
    """The report as one HTML document (inline CSS, no scripts, no external files)."""
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td class='num'>{escape(eps)}</td><td>{_text(why)}</td></tr>"
        for name, eps, why in answer.reasons)
    total = ""
    if comp is not None and comp.releases > 1:
        total = (f"<p>Over <b>{comp.releases}</b> such releases the total privacy loss is ε = "
                 f"<b>{notation.number(comp.total_epsilon, 3)}</b> at δ = "
                 f"{notation.number(comp.total_delta, 3)} ({_text(comp.how)}); adding the releases up would "
                 f"give ε = {notation.number(comp.basic_epsilon, 3)}.</p>")
    items = "".join(f"<li>{_text(a)}</li>" for a in assumptions)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Privacy budget: {escape(req.words())}</title><style>{STYLE}</style></head>
<body>
<h1>Privacy budget for an accuracy requirement</h1>
<h2>Requirement</h2>
<p>{escape(req.words())}, with probability at least {notation.number(req.confidence)} (one person changes the
answer by at most Δ = {notation.number(req.sensitivity)}).</p>
<h2>Answer</h2>
<p class="answer">{_text(answer.sentence)}</p>
{total}
<h2>The alternatives and why they were not chosen</h2>
<table><thead><tr><th>Mechanism</th><th>Smallest ε</th><th>Reason</th></tr></thead><tbody>{rows}</tbody></table>
<h2>Assumptions</h2>
<ul>{items}</ul>
<p class="small">Open this exact view in DP Explorer: <a href="{escape(link, quote=True)}">{escape(link)}</a></p>
</body></html>
"""
