"""Lesson sequences: an ordered list of app views (a page and its settings), each about one panel of that page, with a
title and a speaker note for the presenter view.

A sequence travels in one link: ``?seq=<id>&step=3`` for a ready-made one, ``?seq=~<code>&step=3`` for one a teacher
built in the app, where ``<code>`` is the steps as compact JSON, zlib-compressed and base64url-encoded. Everything
here is pure (no Streamlit): :func:`parse` judges the raw address values and raises ``ValueError`` saying what is
wrong, so the classroom strip can show a message and carry on.

A step names its panel by the panel's stable key (``app.ui.panel(..., key=...)``, listed in docs/architecture.md):
the page opens scrolled to that panel, and ← / → move to the neighbouring steps. The note (``say``) is for the
teacher only: it appears in the presenter view (``?presenter=true``), never on the projected page.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: Pages a step may open (``url_path`` of app/registry.py; "" is the home page).
PAGES: tuple[str, ...] = (
    "",
    "course",
    "baselines",
    "brdp",
    "noise_reduction",
    "svt",
    "ldp",
    "r2dp",
    "negotiate",
    "ledger",
    "audit",
)
CUSTOM_PREFIX = "~"
MAX_STEPS = 30  # a lesson longer than this is not a lesson
MAX_CODE = 4000  # characters of an encoded sequence (a link stays well under browsers' limits)
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,19}$")
#: A panel's key (``app.ui.panel``): lower-case words joined by hyphens, the same on every page that draws it.
PANEL_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
_MAX_SAY, _MAX_TITLE = 300, 120
_MAX_VALUE = 60
#: What a step's setting may hold: a number, an option's id or a part's name ("Figs. 3–5", "Top-c"), never markup or
#: a link; the page the step opens judges the value itself as well.
_VALUE = re.compile(r"^[^\x00-\x1f\x7f<>\[\]{}`\"'\\]*$")
#: Address keys a step never stores: they belong to the classroom, not to the view.
CLASSROOM_KEYS = frozenset({"seq", "step", "present", "presenter", "embed", "embed_options", "ledger", "poll", "join"})


@dataclass(frozen=True)
class Step:
    """One view of a lesson: the page (``url_path``), its address values, what to say while it is on screen (the
    speaker note), the key of the panel it is about ("" for the top of the page) and its title."""

    page: str
    query: Mapping[str, str] = field(default_factory=dict)
    say: str = ""
    panel: str = ""
    title: str = ""


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    steps: tuple[Step, ...]


def _s(page: str, panel: str, title: str, say: str, **query: str) -> Step:
    return Step(page, dict(query), say, panel, title)


#: BR-DP's counterexample: the paper's accountant approves this plan, the exact privacy curve passes far above the
#: target (counterexample A in docs/errata.md). One set of settings for every lesson that shows it.
_PAPER_APPROVES = dict(
    part="Privacy",
    eps="0.1",
    delta="0.001",
    theta="0.1",
    sens="5",
    kernel="gaussian",
    acct="paper",
    split="true",
    share="0.6",
    qov="false",
)

#: Ready-made lessons, keyed by the id their links use. Each step opens on its panel (a key of ``app.ui.panel``).
LESSONS: dict[str, Lesson] = {
    lesson.id: lesson
    for lesson in (
        Lesson(
            "start",
            "A first course: differential privacy in ten short chapters",
            tuple(
                _s("course", "course-chapter", title, say, chapter=slug)
                for slug, title, say in (
                    (
                        "promise",
                        "What ε promises",
                        "ε bounds how far one answer can move anyone's belief: move ε and watch the band.",
                    ),
                    (
                        "noise",
                        "Noise and accuracy: the Laplace mechanism",
                        "Privacy costs accuracy: Laplace noise of scale 1/ε, and how often a count lands within ±1.",
                    ),
                    (
                        "delta",
                        "δ and the Gaussian mechanism",
                        "δ, the small chance the promise fails, buys the bell-shaped Gaussian noise.",
                    ),
                    (
                        "budget",
                        "Spending a budget: composition",
                        "Every release spends budget; counted exactly, many releases cost far less than the sum.",
                    ),
                    (
                        "choose",
                        "Choosing ε from the accuracy you need",
                        "Start from the accuracy you need and read off the smallest ε that delivers it.",
                    ),
                    (
                        "redraw",
                        "Redraw the misses (BR-DP)",
                        "BR-DP redraws answers that miss; believe the exact cost, not the paper's formula.",
                    ),
                    (
                        "sparse",
                        "Find the few big ones (SVT)",
                        "SVT screens many counts and pays only for the few above the threshold.",
                    ),
                    (
                        "stop",
                        "Stop when accurate enough",
                        "Noise reduction stops once the answer is accurate enough and pays only for that level.",
                    ),
                    (
                        "revealed",
                        "What did they actually learn?",
                        "Local DP: what the answers actually revealed, far below the sum of the ε's.",
                    ),
                    (
                        "random_scale",
                        "A random noise scale (R²DP)",
                        "R²DP draws the noise scale at random and wins at larger ε.",
                    ),
                )
            ),
        ),
        Lesson(
            "eps",
            "What ε means — 20 min",
            (
                _s(
                    "",
                    "epsilon-promise",
                    "What ε promises",
                    "ε bounds how much one person's data can change any answer's odds: at ε = 1 by a factor e ≈ 2.7.",
                    eps="1",
                ),
                _s(
                    "",
                    "epsilon-promise",
                    "Small ε: the odds barely move",
                    "Small ε (0.1): the odds barely move, so an observer learns almost nothing about one person.",
                    eps="0.1",
                ),
                _s(
                    "",
                    "epsilon-promise",
                    "Large ε: almost certain",
                    "Large ε (5): a factor e⁵ ≈ 148 on the odds — a sceptic can end up almost certain.",
                    eps="5",
                ),
                _s(
                    "baselines",
                    "classic-noise",
                    "The noise that buys ε = 1",
                    "Privacy costs accuracy: the Laplace noise needed for ε = 1 and a count (Δ = 1).",
                    eps="1",
                    sens="1",
                ),
                _s(
                    "baselines",
                    "classic-noise",
                    "Ten times more private",
                    "Ten times more private means ten times wider noise.",
                    eps="0.1",
                    sens="1",
                ),
                _s(
                    "baselines",
                    "classic-composition",
                    "Every release spends budget",
                    "Every release spends budget: 100 releases at ε = 1 add up.",
                    eps="1",
                    T="100",
                ),
            ),
        ),
        Lesson(
            "brdp",
            "BR-DP in 50 min",
            (
                _s(
                    "baselines",
                    "classic-noise",
                    "One noisy answer",
                    "Start from the Gaussian mechanism: one noisy answer, one (ε, δ) guarantee.",
                    eps="1",
                    delta="1e-05",
                    sens="1",
                ),
                _s(
                    "brdp",
                    "recycling-idea",
                    "Budget recycling",
                    "Budget recycling: redraw an answer that misses ±θ and pay for the redraws.",
                    eps="1",
                    delta="1e-05",
                    theta="1",
                    sens="1",
                    kernel="gaussian",
                    acct="exact",
                ),
                _s(
                    "brdp",
                    "recycling-budget-split",
                    "Where the budget goes",
                    "Where the budget goes: the split between the noise and the stopping test.",
                    part="Budget",
                    eps="1",
                    delta="1e-05",
                    theta="1",
                    sens="1",
                ),
                _s(
                    "brdp",
                    "recycling-privacy-profile",
                    "The paper approves, but it is wrong",
                    "The paper's accountant at these settings under-reports δ: compare its curve with the exact one at "
                    "the target ×.",
                    **_PAPER_APPROVES,
                ),
                _s(
                    "brdp",
                    "recycling-fig2",
                    "The paper's Figure 2, recomputed",
                    "The paper's Figures 2–4, recomputed: the output density of BR-DP against plain DP.",
                    view="reproduce",
                    part="Figs 2-4",
                ),
                _s(
                    "brdp",
                    "recycling-table1",
                    "The paper's Table I, corrected",
                    "The paper's Table I, next to the exact values.",
                    view="reproduce",
                    part="Table I",
                ),
            ),
        ),
        Lesson(
            "svt",
            "SVT in 50 min",
            (
                _s(
                    "svt",
                    "svt-noise-zoo",
                    "Noisy yes or no",
                    "The sparse vector technique answers only 'above or below the threshold?', with noise.",
                    part="Noise",
                    eps="1",
                ),
                _s(
                    "svt",
                    "svt-correction",
                    "One-sided noise needs a correction",
                    "Exponential noise is one-sided: the threshold must be corrected by r.",
                    part="Correction",
                    eps="1",
                    c="1",
                    neg="200",
                    alpha="0",
                    corr="optimal",
                ),
                _s(
                    "svt",
                    "svt-correction",
                    "Less budget, larger correction",
                    "Less privacy budget (ε = 0.1) needs a larger correction.",
                    part="Correction",
                    eps="0.1",
                    c="50",
                    neg="200",
                    alpha="0",
                    corr="optimal",
                ),
                _s(
                    "svt",
                    "svt-idea",
                    "One run on a stream of queries",
                    "One run of the algorithm on a stream of queries: most counts are answered no, for free; below the "
                    "picture, the Run part plays a whole run step by step.",
                    part="Run",
                    eps="1",
                ),
                _s(
                    "svt",
                    "svt-top-c",
                    "Finding the top c queries",
                    "Finding the top c queries: how often SVT gets them right.",
                    part="Top-c",
                    eps="1",
                ),
                _s(
                    "svt",
                    "svt-fig3-accuracy",
                    "The paper's accuracy figures",
                    "The paper's accuracy figures, recomputed.",
                    view="reproduce",
                    part="Figs. 3–5",
                ),
                _s(
                    "svt",
                    "svt-fig16-alpha",
                    "How the correction depends on α",
                    "How the correction depends on α (the paper's Figure 16).",
                    view="reproduce",
                    part="Fig. 16",
                ),
            ),
        ),
        Lesson(
            "brdp-svt",
            "BR-DP + SVT in 50 min",
            (
                _s(
                    "baselines",
                    "classic-noise",
                    "One noisy answer",
                    "Start from the two classic mechanisms: one noisy answer, one (ε, δ) guarantee. "
                    "Ask: how often does "
                    "the answer land within ±θ?",
                    eps="1",
                    delta="1e-05",
                    sens="1",
                ),
                _s(
                    "brdp",
                    "recycling-idea",
                    "Budget recycling: redraw the misses",
                    "BR-DP throws away an answer that misses ±θ with probability q and draws again; every redraw costs "
                    "a little privacy.",
                    eps="1",
                    delta="1e-05",
                    theta="1",
                    sens="1",
                    kernel="gaussian",
                    acct="exact",
                ),
                _s(
                    "brdp",
                    "recycling-budget-split",
                    "Where the budget goes",
                    "The budget is split between the noise and the redraws (q): a sharper noise leaves less for "
                    "recycling.",
                    part="Budget",
                    eps="1",
                    delta="1e-05",
                    theta="1",
                    sens="1",
                ),
                _s(
                    "brdp",
                    "recycling-privacy-profile",
                    "The paper approves, but it is wrong",
                    "At these settings the paper's accountant says the plan is (0.1, 10⁻³)-DP; the exact curve passes "
                    "far above the target ×. Privacy claims need checking.",
                    **_PAPER_APPROVES,
                ),
                _s(
                    "svt",
                    "svt-idea",
                    "SVT: only above or below?",
                    "The sparse vector technique answers many queries but pays only for the few answered yes.",
                    eps="1",
                ),
                _s(
                    "svt",
                    "svt-correction",
                    "One-sided noise needs a correction",
                    "Exponential noise pushes every count up: the threshold is corrected by r, and a count exactly at "
                    "the threshold is accepted with probability only 1/(k+1).",
                    part="Correction",
                    eps="1",
                    c="1",
                    neg="200",
                    alpha="0",
                    corr="optimal",
                ),
                _s(
                    "svt",
                    "svt-top-c",
                    "Finding the top c queries",
                    "With the optimal correction SVT-Exp finds far more of the top c queries than the other private "
                    "methods.",
                    part="Top-c",
                    eps="1",
                ),
                _s(
                    "svt",
                    "svt-fig16-alpha",
                    "How the correction depends on α",
                    "Wrap-up: both papers trade a little privacy for accuracy, and both print a number worth checking "
                    "(the paper's Figure 16).",
                    view="reproduce",
                    part="Fig. 16",
                ),
            ),
        ),
    )
}


def _check_step(step: Step) -> Step:
    if step.page not in PAGES:
        raise ValueError(f"a lesson step names the page {step.page[:30]!r}, which is not one of the app's pages")
    for key, value in step.query.items():
        if not isinstance(key, str) or not _KEY.match(key) or key in CLASSROOM_KEYS:
            raise ValueError(f"a lesson step holds the setting {str(key)[:30]!r}, which is not a setting name")
        if not isinstance(value, str) or len(value) > _MAX_VALUE or not _VALUE.match(value):
            raise ValueError(f"a lesson step holds an unreadable value for {key!r}")
    if step.panel and not PANEL_KEY.match(step.panel):
        raise ValueError(f"a lesson step names the panel {step.panel[:30]!r}, which is not a panel's name")
    return step


def encode(steps: Sequence[Step]) -> str:
    """The compact address form of a teacher's own sequence (``~`` + base64url of zlib-compressed JSON)."""
    if not 1 <= len(steps) <= MAX_STEPS:
        raise ValueError(f"steps: a lesson has between 1 and {MAX_STEPS} views, got {len(steps)}")
    for s in steps:
        _check_step(s)
    rows = []
    for s in steps:  # [page, settings, note, panel, title], trailing empty texts left out (older links have 2 or 3)
        row = [s.page, dict(s.query), s.say[:_MAX_SAY], s.panel, s.title[:_MAX_TITLE]]
        while len(row) > 2 and row[-1] == "":
            row.pop()
        rows.append(row)
    raw = json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode()
    code = CUSTOM_PREFIX + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    if len(code) > MAX_CODE:
        raise ValueError(f"steps: this lesson is too long to fit in one link ({len(code)} > {MAX_CODE} characters)")
    return code


def _decode_custom(code: str) -> tuple[Step, ...]:
    bad = ValueError("seq: this lesson link is damaged (it may have been cut short when it was copied)")
    if len(code) > MAX_CODE:
        raise bad
    try:
        raw = zlib.decompressobj().decompress(base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)), 20_000)
        rows = json.loads(raw)
    except (binascii.Error, zlib.error, ValueError, UnicodeDecodeError):
        raise bad from None
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_STEPS:
        raise bad
    steps = []
    for row in rows:
        if (
            not isinstance(row, list)
            or not 2 <= len(row) <= 5
            or not isinstance(row[0], str)
            or not isinstance(row[1], dict)
            or not all(isinstance(x, str) for x in row[2:])
        ):
            raise bad
        # a ledger's id is a write capability, never part of a view: links built before it was left out drop it
        query = {k: v for k, v in row[1].items() if k != "ledger"}
        say, panel, title = [*row[2:], "", "", ""][:3]
        steps.append(_check_step(Step(row[0], query, say[:_MAX_SAY], panel, title[:_MAX_TITLE])))
    return tuple(steps)


def decode(seq: str) -> Lesson:
    """The lesson a ``?seq=`` value names: a ready-made id or a teacher's own ``~…`` code."""
    seq = seq.strip()
    if seq.startswith(CUSTOM_PREFIX):
        return Lesson(seq, "Your lesson", _decode_custom(seq[len(CUSTOM_PREFIX) :]))
    if seq in LESSONS:
        return LESSONS[seq]
    shown = seq if len(seq) <= 30 else seq[:30] + "…"
    titles = ", ".join(f"“{lesson.title}”" for lesson in LESSONS.values())
    raise ValueError(
        f"seq: it names a lesson “{shown}” this app does not have; its ready-made lessons are {titles} (or a "
        "lesson built with “Add this view to my lesson”)"
    )


def parse(seq: str, step: str | None) -> tuple[Lesson, int]:
    """Judge the address values ``seq`` and ``step`` (1-based, default 1); return the lesson and the 0-based index."""
    lesson = decode(seq)
    if step is None or step.strip() == "":
        return lesson, 0
    try:
        n = int(step.strip())
    except ValueError:
        n = 0
    if not 1 <= n <= len(lesson.steps):
        raise ValueError(
            f"step: it asks for view “{step.strip()[:20]}” of “{lesson.title}”, which has views 1 to "
            f"{len(lesson.steps)}"
        )
    return lesson, n - 1


def view_query(lesson: Lesson, index: int, *, present: bool = False) -> dict[str, str]:
    """The address values that open step ``index`` (0-based) of ``lesson``: its settings, the lesson and the step."""
    out = dict(lesson.steps[index].query) | {"seq": lesson.id, "step": str(index + 1)}
    if present:
        out["present"] = "true"
    return out


def strip_classroom_keys(query: Mapping[str, str]) -> dict[str, str]:
    """A view's settings without the classroom's own keys (what "Add this view to my lesson" stores)."""
    return {k: v for k, v in query.items() if k not in CLASSROOM_KEYS}
