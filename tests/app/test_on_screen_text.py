"""What a learner reads: on every part of every view, no maths left untypeset (``e^ε``, ``ε_y`` outside ``$…$``), no
code names (``snake_case``) in tables, and noise families named with a capital in every label, option and legend."""

from __future__ import annotations

import json
import re

import pytest

from app import course, notation, registry, typeset
from tests.app.conftest import open_page, record_parts

VIEWS = (
    [(p.script, {}) for p in registry.available_pages()]
    + [(p.script, {"view": "reproduce"}) for p in registry.TOPICS if p.exists]
    + [("course.py", {"chapter": slug}) for slug in course.SLUGS[1:]]
)  # every chapter of the first course
#: Regions a reader sees typeset or verbatim: $…$, `code`, link targets, HTML tags, icon codes, addresses.
_VERBATIM = re.compile(
    r"\$\$.*?\$\$|\$(?:[^$\n]|\n(?![ \t]*\n))+\$|`[^`]*`|\]\([^)]*\)|<[^>]+>|:material/[a-z_]+:|https?://\S+", re.S
)
_RAW_MATHS = re.compile(r"[A-Za-zα-ωΑ-Ω0-9)ℓ]\u0304?\\?[\^_][A-Za-zα-ωΑ-Ω0-9({−-]")
_SNAKE = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
#: a noise family used as a name (a label, an option, after "~" or ":"), not as a word in a sentence
_LOWER_NOISE = re.compile(r"(?:^|[~:(]\s*)(laplace|gaussian|gumbel|exponential)(?![A-Za-z])")


def _texts(at) -> list[tuple[str, str]]:
    """(kind, text) of everything the page shows as words (values of metrics and cells excepted)."""
    out: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error", "success"):
        out += [(kind, str(e.value)) for e in getattr(at, kind)]
    out += [("metric", m.label) for m in at.metric] + [("help", m.proto.help) for m in at.metric if m.proto.help]
    for kind in ("select_slider", "radio", "selectbox", "toggle", "checkbox", "number_input", "button"):
        for e in getattr(at, kind):
            out.append((kind, e.label))
            out += [(f"{kind} option", str(o)) for o in getattr(e, "options", [])]
    out += [("expander", e.label) for e in at.expander] + [("tab", t.label) for t in at.tabs]
    out += [("table column", str(c)) for df in at.dataframe for c in df.value.columns]
    out += [
        ("table cell", v)
        for df in at.dataframe
        for c in df.value.columns
        for v in df.value[c].head(200)
        if isinstance(v, str) and not v.startswith("http")
    ]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        layout = spec.get("layout", {})
        texts = [layout.get("title", {}).get("text")] + [a.get("text") for a in layout.get("annotations") or []]
        texts += [
            v.get("title", {}).get("text")
            for k, v in layout.items()
            if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict)
        ]
        out += [("chart text", t) for t in texts if t] + [("legend", t["name"]) for t in spec["data"] if t.get("name")]
    return out


def _problems(at) -> list[str]:
    found = []
    for kind, text in _texts(at):
        shown = _VERBATIM.sub(" ", text)
        if _RAW_MATHS.search(shown) and kind not in ("table column", "table cell"):  # cells: plain text, no $…$
            found.append(f"untypeset maths in {kind}: {text[:90]!r}")
        if kind == "table column" and _SNAKE.search(text):
            found.append(f"code name as a column: {text!r}")
        if kind == "table cell" and _SNAKE.fullmatch(text):
            found.append(f"code name in a table: {text!r}")
        if kind in (
            "radio option",
            "selectbox option",
            "legend",
            "chart text",
            "tab",
            "button",
            "header",
        ) and _LOWER_NOISE.search(shown.strip()):
            found.append(f"lower-case noise name in {kind}: {text[:90]!r}")
    return found


def test_the_checks_catch_what_they_are_for():
    assert _RAW_MATHS.search("the kernel runs at ε_y") and _RAW_MATHS.search("at most e^ε times")
    assert _RAW_MATHS.search(r"ε\_y = 0.12 (Markdown-escaped)")
    assert not _RAW_MATHS.search(_VERBATIM.sub(" ", notation.tex("the kernel runs at ε_y, at most e^ε times")))
    assert _SNAKE.search("bm_cost_se") and not _SNAKE.search("cost, noise reduction")
    assert typeset._cell_in_words("noise_reduction") == "noise reduction" and typeset._cell_in_words("r_op") != "r op"
    assert _LOWER_NOISE.search("threshold ρ ~ laplace") and _LOWER_NOISE.search("Fig. 5(b): laplace kernel")
    assert _LOWER_NOISE.search("exponential") and not _LOWER_NOISE.search("SVT, exponential noise + correction")


@pytest.mark.parametrize(
    "script,query", VIEWS, ids=[f"{s}-{q.get('view', q.get('chapter', 'explore'))}" for s, q in VIEWS]
)
def test_every_part_reads_as_words_and_typeset_maths(script, query, monkeypatch):
    labels = record_parts(monkeypatch)
    problems = _problems(open_page(script, query))
    for label in labels[1:]:
        problems += [f"[part {label}] {p}" for p in _problems(open_page(script, {**query, "part": label}))]
    assert not problems, "\n".join(problems)


def test_ratios_and_table_one_read_as_numbers_people_write():
    """A warning's ratio is written 1,490×, never 1.49e+03×; Table I shows two decimals as the paper prints them."""
    from tests.app.conftest import open_page

    assert notation.times(1490.4) == "1,490×" and notation.times(2.54) == "2.5×" and notation.times(37.2) == "37×"
    at = open_page("brdp.py", {"view": "reproduce", "part": "Table I"})
    table = next(df.value for df in at.dataframe if "mechanism" in df.value.columns)
    cells = [str(v) for c in table.columns if c != "mechanism" for v in table[c]]
    assert cells and all(v == "not reproduced" or (v.count(".") == 1 and len(v.split(".")[1]) == 2) for v in cells)
