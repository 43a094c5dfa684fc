"""The report of the negotiate page: a self-contained HTML file a manager can forward and a director can sign.

Page 1 says what was asked and what is recommended, what the ε means, the total over the releases with its δ
beside the plain sum, the leading alternatives with one reason each, the split of several statistics, and the
assumptions; page 2 (the appendix) has every mechanism's numbers. The "Run it" script is inside, folded (it does
not print) and as a download link. The link back to the view appears only for a public address (DPX_PUBLIC_URL),
never a loopback one. No scripts, no external files; every text from the page is HTML-escaped.

PDF: the browser's "Print → Save as PDF" makes it from this file exactly as it prints (the tests print it with
chromium); the server makes no PDF itself, so it needs no browser or PDF library.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
from dataclasses import dataclass, field
from html import escape
from urllib.parse import urlsplit

from app import notation
from app.compute import negotiate as compute
from app.compute import negotiate_words as words
from dpcore.mechanisms import display_name

STYLE = """
@page { size: auto; margin: 14mm 13mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #111; line-height: 1.4;
       max-width: 180mm; margin: 0 auto; padding: 8mm 4mm; font-size: 10.5pt; }
h1 { font-size: 16pt; margin: 0 0 1mm; } h2 { font-size: 11.5pt; margin: 4.5mm 0 1.5mm; }
.meta { color: #444; font-size: 9pt; margin: 0 0 3mm; }
.answer { border: 2px solid #0072B2; border-radius: 3mm; padding: 2.5mm 4mm; font-size: 12.5pt; font-weight: 600;
          margin: 2mm 0; }
.total { font-size: 11.5pt; }
table { border-collapse: collapse; width: 100%; font-size: 9pt; }
th, td { border-bottom: 1px solid #bbb; text-align: left; vertical-align: top; padding: 1.2mm 2mm; }
th { background: #f2f2f2; }
td.num { white-space: nowrap; }
tr, .answer, li { break-inside: avoid; page-break-inside: avoid; }
ul { margin: 1mm 0; padding-left: 5mm; } li { margin: 0.4mm 0; }
.two { display: grid; grid-template-columns: 1fr 1fr; gap: 5mm; }
a { color: #0057a3; overflow-wrap: anywhere; }
.small { font-size: 8.5pt; color: #444; }
pre { font-size: 7.5pt; background: #f6f6f6; padding: 2mm; overflow-x: auto; white-space: pre-wrap; }
.appendix { break-before: page; page-break-before: always; }
@media print {
  @page { margin: 11mm 12mm; }
  a { color: #111; } body { padding: 0; font-size: 9.5pt; line-height: 1.3; }
  h1 { font-size: 14pt; } h2 { font-size: 10.5pt; margin: 3mm 0 1mm; }
  .answer { font-size: 11pt; padding: 2mm 3mm; } table { font-size: 8.2pt; } th, td { padding: 0.8mm 1.4mm; }
  p, ul { margin: 1mm 0; } details { display: none; }
}
"""

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def public_link(link: str) -> str:
    """``link`` when it can be opened by whoever receives the report: "" for a loopback, unspecified or private
    address (127.0.0.1, localhost, ::1, 0.0.0.0, 10.x …) or anything that is not an http(s) address."""
    try:
        parts = urlsplit(link)
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host or host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return link
    return "" if ip.is_loopback or ip.is_unspecified or ip.is_private or ip.is_link_local else link


@dataclass(frozen=True)
class Report:
    """Everything the report shows (the page builds it; tests build it directly)."""

    req: compute.Requirement
    answer: compute.Answer
    comp: compute.Composition | None
    alternatives: tuple[words.Alternative, ...]
    covered: tuple[str, ...]
    not_covered: tuple[str, ...]
    link: str = ""  # the view's public address ("" for none)
    script: str = ""
    split_rows: tuple[words.StatRow, ...] = ()
    split: object | None = None  # dpcore.negotiate_split.Split
    appendix: tuple[tuple[str, str, str], ...] = ()  # (mechanism, ε, reason in full)
    today: dt.date = field(default_factory=dt.date.today)
    version: str = field(default_factory=words.app_version)


def _text(text: str) -> str:
    """Text for the report: escaped, maths as HTML scripts (``ε_y`` → ε<sub>y</sub>), a tiny δ as "negligible"."""
    return notation.html(escape(text, quote=False))


def _requirement(r: Report) -> str:
    return f"<p>{_text(words.requirement_words(r.req))}</p>"


def _split_section(r: Report) -> str:
    if r.split is None or len(r.split_rows) < 2:
        return ""
    best = r.split.best
    rows = "".join(
        f"<tr><td>{_text(row.words())}</td><td>{escape(sh.mechanism_name)}</td>"
        f"<td class='num'>{escape(notation.number(sh.epsilon, 4))}</td>"
        f"<td class='num'>{escape(notation.number(100 * sh.share, 3))} %</td></tr>"
        for row, sh in zip(r.split_rows, _named(r.split.shares), strict=True)
    )
    total = words.split_total(best)
    why = "".join(f"<li>{_text(line)}</li>" for line in r.split.reasoning[-2:])
    return (
        f"<h2>Several statistics: the split</h2><p>All of them together: <b>{_text(total)}</b>.</p>"
        "<table><thead><tr><th>Statistic</th><th>Noise</th><th>Its own ε</th><th>Share</th></tr></thead>"
        f"<tbody>{rows}</tbody></table><ul class='small'>{why}</ul>"
    )


@dataclass(frozen=True)
class _Named:
    mechanism_name: str
    epsilon: float
    share: float


def _named(shares) -> list[_Named]:
    return [_Named(display_name(s.mechanism).split(" (")[0], s.epsilon, s.share) for s in shares]


def _script(r: Report) -> str:
    if not r.script:
        return (
            "<p class='small'>Run it: a script is made for counts and sums (error requirements); top-c selection "
            "runs with <code>dpcore.svt.run_svt</code>.</p>"
        )
    data = base64.b64encode(r.script.encode("utf-8")).decode("ascii")
    return (
        f"<h2>Run it</h2><p class='small'>A short Python script performs this release with dpcore on your CSV "
        f"(a path and a column) and prints the noisy numbers with their accuracy guarantee; without arguments "
        f"it runs on an example table shipped with dpcore. "
        f"<a download='privacy-release.py' href='data:text/x-python;base64,{data}'>Save the script</a>.</p>"
        f"<details><summary>Show the script</summary><pre id='run-it'>{escape(r.script)}</pre></details>"
    )


def report_html(r: Report) -> str:
    """The report as one HTML document (inline CSS, no scripts, no external files)."""
    ans = r.answer
    eps = ans.epsilon if ans.mechanism and ans.epsilon > 0 else None
    meaning = f"<p>{_text(words.meaning_words(eps))}</p>" if eps else ""
    total = ""
    if r.comp is not None:
        total = (
            f"<p class='total'>Over <b>{r.comp.releases}</b> release{'s' if r.comp.releases != 1 else ''}: "
            f"<b>{_text(words.total_words(r.comp))}</b>.</p>"
        )
    alts = "".join(
        f"<li><b>{escape(a.name)}</b> (ε = {escape(a.epsilon)}): {_text(a.reason)}</li>" for a in r.alternatives
    )
    covered = "".join(f"<li>{_text(a)}</li>" for a in r.covered)
    not_covered = "".join(f"<li>{_text(a)}</li>" for a in r.not_covered)
    link = public_link(r.link)
    link_html = (
        (
            f"<p class='small'>Open this exact view in DP Explorer: <a href=\"{escape(link, quote=True)}\">"
            f"{escape(link)}</a></p>"
        )
        if link
        else ""
    )
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td class='num'>{escape(e)}</td><td>{_text(why)}</td></tr>"
        for name, e, why in r.appendix
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Privacy budget: {escape(r.req.words())}</title><style>{STYLE}</style></head>
<body>
<h1>Privacy budget for an accuracy requirement</h1>
<p class="meta">Made on {r.today.isoformat()} with DP Explorer {escape(r.version)}.</p>
<h2>What was asked</h2>
{_requirement(r)}
<h2>Recommendation</h2>
<p class="answer">{_text(ans.sentence)}</p>
{meaning}
{total}
{_split_section(r)}
<h2>The leading alternatives</h2>
<ul>{alts}</ul>
<h2>Assumptions</h2>
<div class="two"><div><b>Covered</b><ul>{covered}</ul></div><div><b>Not covered</b><ul>{not_covered}</ul></div></div>
{_script(r)}
{link_html}
<section class="appendix"><h2>Appendix: every mechanism's numbers</h2>
<table><thead><tr><th>Mechanism</th><th>Smallest ε</th><th>How it was found</th></tr></thead><tbody>{rows}</tbody>
</table></section>
</body></html>
"""
