"""Paper pages open with the newcomer layer and keep the paper one scroll away.

On every paper page's explore view (every part of it): the title, the idea in one sentence, its picture and the few
numbers that matter, each in a sentence with what it means; then a marked "The paper in depth" before every
paper-level panel. Headings name ideas in plain words (theorem, algorithm and proposition numbers go in captions);
the newcomer layer shows no bare number, no table, no symbol it has not defined and none of the paper's jargon; and
where the paper's accountant and the exact one disagree (BR-DP), one sentence says which to believe, in the direction
the numbers on screen go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from app import ui
from app.notation import number
from dpcore import brdp
from tests.app.conftest import COUNTEREXAMPLE_B, open_page, record_parts

PAPER_PAGES = ["brdp.py", "noise_reduction.py", "svt.py", "ldp.py", "r2dp.py"]

#: A reference into the paper: "Thm. 1", "Algorithm 2", "Prop. 1", "Lemma 6.1", "Eq. 8", "Sec. 7", "Fig. 3".
PAPER_REF = re.compile(
    r"\b(Thm|Theorem|Alg|Algorithms?|Prop|Proposition|Lemma|Cor|Corollary|Eq|Sec|Section|Fig|Figure|Table)\.?\s*"
    r"(\d|[IVX]+\b)"
)
#: A panel number in front of a heading ("6 · Privacy loss").
NUMBERED = re.compile(r"^\d+\s*·")
#: Words and symbols of the paper that the newcomer layer must not show (the issue's measured list and its kin).
JARGON = (
    "kernel's share",
    "Thm",
    "Alg.",
    "Prop.",
    "S(y)",
    "SMP-",
    "Δ_f",
    "accountant",
    "zCDP",
    "ρ*",
    "r^op",
    "U(γ)",
    "Σε",
    "Eq.",
)


@dataclass
class Layers:
    """A page run split at the marker: what comes before it (the newcomer layer) and after it (the paper in depth),
    each as (kind, text, panel key) in drawing order; the "Try this" exercises under the page are left out."""

    newcomer: list[tuple[str, str, str]] = field(default_factory=list)
    depth: list[tuple[str, str, str]] = field(default_factory=list)
    markers: int = 0

    def texts(self, layer: str, *kinds: str) -> list[str]:
        return [text for kind, text, _ in getattr(self, layer) if not kinds or kind in kinds]

    def panels(self, layer: str) -> list[str]:
        return list(dict.fromkeys(key for *_, key in getattr(self, layer) if key))


def _layers(at) -> Layers:
    out = Layers()
    state = {"seen_title": False, "layer": "newcomer", "done": False}

    def walk(node, panel: str) -> None:
        for child in getattr(node, "children", {}).values():
            if state["done"]:
                return
            kind = getattr(child, "type", "")
            key = getattr(child, "key", None) or ""
            if kind == "flex_container" and key == ui.IN_DEPTH_KEY:
                out.markers += 1
                state["layer"] = "depth"
            here = key.removeprefix(ui.PANEL_PREFIX) if key.startswith(ui.PANEL_PREFIX) else panel
            if kind == "title":
                state["seen_title"] = True
            elif kind == "header" and child.value == "Try this":
                state["done"] = True
                return
            if state["seen_title"] and kind not in ("flex_container", "column", "tab", "tab_container"):
                value = (
                    child.value
                    if kind in ("markdown", "caption", "header", "title", "info", "warning", "error", "success")
                    else ""
                )
                if kind == "metric":
                    value = f"{child.label}: {child.value}"
                getattr(out, state["layer"]).append((kind, str(value), here))
            if kind == "tab_container" and state["layer"] == "newcomer":
                getattr(out, state["layer"]).append(("tabs", "", here))
            walk(child, here)

    walk(at.main, "")
    return out


def _open_every_part(script: str, monkeypatch) -> list[tuple[str, Layers]]:
    """The explore view at its defaults and at every other part of it."""
    labels = record_parts(monkeypatch)
    at = open_page(script)
    assert not at.exception, at.exception
    runs = [("default", _layers(at))]
    for label in labels[1:]:
        other = open_page(script, {"part": label})
        assert not other.exception, other.exception
        runs.append((label, _layers(other)))
    return runs


@pytest.mark.parametrize("script", PAPER_PAGES)
def test_the_newcomer_layer_comes_first_and_the_paper_follows_a_marked_line(script, monkeypatch):
    for part, layers in _open_every_part(script, monkeypatch):
        where = f"{script} [{part}]"
        assert layers.markers == 1, f"{where}: one marked line 'The paper in depth', found {layers.markers}"
        kinds = [kind for kind, *_ in layers.newcomer]
        assert kinds[:2] == ["title", "markdown"], f"{where}: the title and the idea in one paragraph first"
        # the newcomer layer: the idea's picture and the panel of the numbers that matter, nothing else
        panels = layers.panels("newcomer")
        assert len(panels) == 2, f"{where}: the picture and the numbers, then the paper in depth; got {panels}"
        assert layers.newcomer[kinds.index("plotly_chart")][2] == panels[0], f"{where}: the picture comes first"
        assert not {"metric", "dataframe", "table", "tabs"} & set(kinds), (
            f"{where}: the newcomer layer has a bare number, a table or tabs: {sorted(set(kinds))}"
        )
        # the paper in depth: its heading, then every paper-level panel
        assert ("header", f":material/menu_book: {ui.IN_DEPTH_TITLE}", "") in layers.depth[:2], where
        assert layers.panels("depth"), f"{where}: no panel under the paper in depth"


@pytest.mark.parametrize("script", PAPER_PAGES)
def test_headings_name_ideas_and_the_newcomer_layer_speaks_plainly(script, monkeypatch):
    for part, layers in _open_every_part(script, monkeypatch):
        where = f"{script} [{part}]"
        for heading in layers.texts("newcomer", "header", "title") + layers.texts("depth", "header"):
            assert not PAPER_REF.search(heading), f"{where}: a paper reference in a heading: {heading!r}"
            assert not NUMBERED.match(heading), f"{where}: a numbered heading: {heading!r}"
        for heading in layers.texts("newcomer", "header"):
            # plain words: no symbol but ε (which the page's first sentences define), no maths
            assert not re.search(r"[α-δζ-ωΑ-Ω_^$\\]", heading), f"{where}: a symbol in a heading: {heading!r}"
        words = " ".join(layers.texts("newcomer"))
        found = [j for j in JARGON if j in words]
        assert not found, f"{where}: the paper's jargon in the newcomer layer: {found}"


def _sentences_with_numbers(text: str) -> list[str]:
    """The sentences of a text that hold a number (a digit, or a power of ten)."""
    plain = re.sub(r"\$[^$]*\$", "x", text)  # typeset maths counts as a word
    return [s for s in re.split(r"(?<=[.!?])\s+|\n\n", plain) if re.search(r"\d|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]", s)]


@pytest.mark.parametrize("script", PAPER_PAGES)
def test_every_number_of_the_newcomer_layer_is_in_a_sentence_that_says_what_it_means(script):
    at = open_page(script)
    layers = _layers(at)
    panels = layers.panels("newcomer")
    numbers_panel = [text for kind, text, key in layers.newcomer if key == panels[1] and kind == "markdown"]
    said = _sentences_with_numbers(" ".join(numbers_panel))
    assert 2 <= len(said), f"{script}: the numbers that matter, each in a sentence: {said}"
    for sentence in said:
        words = re.findall(r"[A-Za-z’']+", sentence)
        assert len(words) >= 6, f"{script}: a number without its meaning: {sentence!r}"
    # what a number means comes before it: ε is a budget that bounds how far one person moves the odds
    text = " ".join(numbers_panel + layers.texts("newcomer", "title", "markdown")[:2])
    assert "odds" in text and "×" in text, f"{script}: the budget's meaning for one person is not said"


def _plan(eps=1.0, delta=1e-5, theta=1.0, sens=1.0, accountant="exact", share=None) -> brdp.BRDPPlan:
    if share is None:
        return brdp.optimize(
            epsilon=eps, delta=delta, sensitivity=sens, theta=theta, kernel="gaussian", accountant=accountant
        )
    return brdp.make_plan(
        epsilon=eps, delta=delta, sensitivity=sens, theta=theta, kernel="gaussian", epsilon_y=share * eps
    )


@pytest.mark.parametrize(
    ("query", "plan_args"),
    [
        ({}, {}),
        ({"acct": "paper"}, {"accountant": "paper"}),
        (COUNTEREXAMPLE_B, {"eps": 5.0, "delta": 1e-8, "theta": 3.0, "sens": 0.2, "share": 0.3}),
    ],
    ids=["defaults", "paper-plan", "counterexample"],
)
def test_brdp_says_once_which_delta_to_believe_in_the_direction_of_the_numbers(query, plan_args):
    """The paper's accountant over-charges at the defaults (and for its own plan), under-reports at the
    counterexample: the one sentence follows dpcore's two numbers, and the intro makes no claim about the cost of a
    redraw that the numbers below could contradict."""
    plan = _plan(**plan_args)
    at = open_page("brdp.py", query)
    layers = _layers(at)
    newcomer = " ".join(layers.texts("newcomer"))
    assert "every redraw costs" not in newcomer and "costs a little privacy" not in newcomer
    assert newcomer.count("to believe") + newcomer.count("Believe the exact") == 1, newcomer
    exact, paper = plan.exact_delta, plan.paper_delta
    assert number(exact, 3) in newcomer
    if paper > exact * 1.01:  # the paper over-charges: the plan is sound and the sentence says so
        assert plan.sound and "over-charges" in newcomer and "under-reports" not in newcomer
    else:
        assert exact > paper * 1.01 and not plan.sound  # the counterexample: the paper approves a plan that leaks
        assert "not private" in newcomer and "approves" in newcomer and "over-charges" not in newcomer
        assert any("not private" in w for w in layers.texts("newcomer", "warning"))
    # the paper's number and the exact one side by side, with the errata warning, under the paper in depth
    depth = {text.partition(": ")[0]: text.partition(": ")[2] for text in layers.texts("depth", "metric")}
    eps = number(float(query.get("eps", "1")))
    assert depth[f"δ at ε = {eps} — exact"] == number(exact, 3)
    assert depth[f"δ at ε = {eps} — paper's accountant"] == number(paper, 3)
    assert ("under-reports" in " ".join(layers.texts("depth", "warning"))) == (exact > paper * (1 + 1e-9))
