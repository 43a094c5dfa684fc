"""The first course: ten short chapters for someone who has never heard of differential privacy.

Each chapter is one idea, one picture and one control, at most one new symbol (defined in words where it first
appears), a check answerable from the chapter alone, and a link to the paper page and lesson that go deeper. This is
the one source of the chapters' words: the app's course page (:mod:`app.views.course`) and the course lessons
(``notebooks/course_*.py``) both read it, and draw the same pictures (:mod:`app.course.pictures`).
"""

from __future__ import annotations

from dataclasses import dataclass

from app import registry
from app.catalogue.course import CHAPTER_TITLES
from app.exercises.check import Check


@dataclass(frozen=True)
class Deeper:
    """Where a chapter's idea is taken further: the app page (``url_path``) and its lesson (the page's record's,
    ``app.registry``)."""

    page: str
    title: str
    fixed: tuple[tuple[str, str], ...] = ()  # address values the page needs besides the chapter's own setting

    @property
    def lesson(self) -> str:
        """The page's lesson notebook (``notebooks/<lesson>.py``)."""
        info = registry.page(self.page)
        assert info is not None and info.lesson, self.page  # every chapter goes deeper on a page with a lesson
        return info.lesson

    @property
    def heading(self) -> str:
        """ "Go deeper: the paper" where the page is a paper's, else "Go deeper" (the basics' and the tools' pages)."""
        return "Go deeper: the paper" if self.page in PAPER_PAGES else "Go deeper"


#: The app pages of the five papers (the others teach the basics or are tools).
PAPER_PAGES = frozenset(p.url_path for p in registry.TOPICS)


@dataclass(frozen=True)
class Chapter:
    """One chapter. ``text`` is its idea in a short paragraph; ``control`` the catalogue key of its one control;
    ``notice`` says what to look at in the picture; ``question``, ``check`` and ``solution`` are its check."""

    slug: str
    symbol: str
    text: str
    control: str
    notice: str
    question: str
    check: Check
    solution: str
    deeper: Deeper

    @property
    def title(self) -> str:
        """The chapter's idea as a heading (the catalogue's words for its address value)."""
        return CHAPTER_TITLES[self.slug]

    @property
    def number(self) -> int:
        return SLUGS.index(self.slug) + 1

    def deeper_settings(self, value: str) -> dict[str, str]:
        """The address values that open the deeper page (and its lesson) at this chapter's setting ``value`` (its
        address form, ``"0.5"``)."""
        return {self.control: value} | dict(self.deeper.fixed)

    @property
    def lesson(self) -> str:
        """The name of the chapter's lesson notebook (``notebooks/<lesson>.py``)."""
        return f"course_{self.number:02d}_{self.slug}"


_BASICS = Deeper("baselines", "the Gaussian & Laplace page")

CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        "promise",
        "ε",
        "Differential privacy is a promise to every person in a data set: whatever is published would have been "
        "almost as likely without your record. The budget **ε** (epsilon) says how close “almost” is: your record can "
        "make any answer at most e^ε times more likely, or less. Picture an observer who wonders whether Alice is in "
        "the data. One answer can move her belief only inside the shaded band.",
        "eps",
        "the band hugs the diagonal at small ε (nothing learned) and widens as ε grows.",
        "Set ε = 0.5. A sceptic starts at 50 %. How high, in %, can one answer push her belief?",
        Check(
            "62.2 %",
            (
                "Move ε to 0.5 and read the sentence under the picture.",
                "Her odds 1 : 1 can grow by at most the factor e^0.5, about 1.65; turn the new odds back into a "
                "percentage.",
            ),
            why="A budget of 0.5 lets one answer move an even guess only a little.",
        ),
        "The odds grow by at most e^0.5 ≈ 1.649, so 1 : 1 becomes 1.649 : 1, a belief of 1.649 / 2.649 = **62.2 %**.",
        _BASICS,
    ),
    Chapter(
        "noise",
        "b",
        "To keep the promise, add random noise to the true answer. One person changes a count by at most 1, so noise "
        "whose typical size is **b** = 1/ε hides anyone: b is the *noise scale*, the average size of the noise. Noise "
        "of this sharp-peaked shape is the Laplace mechanism. The price is accuracy: the smaller ε, the wider the "
        "noise, and the less often the released count lands near the truth.",
        "eps",
        "halve ε and the noise spreads twice as wide: less of it falls inside the shaded ±1.",
        "Set ε = 0.5. In what share of releases is the count within ±1 of the truth?",
        Check(
            "39 %",
            (
                "Move ε to 0.5 and read the share under the picture.",
                "Halving ε doubles the noise scale, so the share falls well below the one at ε = 1.",
            ),
            why="More privacy means wider noise and fewer accurate answers.",
        ),
        "b = 1/0.5 = 2, and Laplace noise of scale b stays within ±1 with probability 1 − e^(−1/b) = 1 − e^(−0.5) = "
        "**39 %** (at ε = 1: 63 %).",
        _BASICS,
    ),
    Chapter(
        "delta",
        "δ",
        "Some noise keeps the promise almost always, not always. Bell-shaped Gaussian noise is one: its tails are so "
        "thin that, very rarely, an answer could give a person away. **δ** (delta) is that small probability with "
        "which the promise may fail; keep it far below one over the number of people. The smaller δ, the wider the "
        "bell must be. For one answer at ε = 1, compare it with Laplace noise.",
        "delta",
        "choose a smaller δ and the bell widens; the Laplace curve does not move.",
        "Set δ = 0.001. In what share of releases does the Gaussian land within ±1 of the truth?",
        Check(
            "30 %",
            (
                "Choose δ = 0.001 and read the sentence under the picture.",
                "A larger δ lets the bell be narrower, so the share rises above the one at δ = 10⁻⁵.",
            ),
            why="Giving up a little of the promise (a larger δ) buys a narrower bell.",
        ),
        "At ε = 1 and δ = 0.001 the tightest Gaussian has a standard deviation of 2.57, and a release lands within ±1 "
        "with probability 2Φ(1/2.57) − 1 = **30 %** (at δ = 10⁻⁵: 21 %; Laplace: 63 %).",
        _BASICS,
    ),
    Chapter(
        "budget",
        "T",
        "Every answer spends some budget. Release **T** answers about the same people, each at ε = 1, and the simple "
        "rule says the total is T × 1: budgets add up. That rule is safe but pessimistic. Counting exactly how the "
        "privacy loss of many answers adds up gives a much smaller total, growing roughly like the square root of T. "
        "Gaussian noise adds up most gently, which is why it is chosen for many releases.",
        "T",
        "the dotted line is the simple sum; the exact totals bend away below it.",
        "Set T = 100. The simple sum says 100. What total ε does Gaussian noise really spend?",
        Check(
            "14.4",
            (
                "Move T to 100 and read the Gaussian's total under the picture.",
                "Exact counting grows roughly like √T: expect a total well below a fifth of the simple sum.",
            ),
            why="Exact accounting charges a small fraction of the simple sum for many releases.",
        ),
        "The Gaussian calibrated for ε = 1, δ = 10⁻⁵ has a standard deviation of 3.73; 100 such releases add up like "
        "one release with a standard deviation of 0.373, whose ε at δ = 10⁻⁵ is **14.4**. Laplace noise spends 68.3, "
        "the simple sum 100.",
        _BASICS,
    ),
    Chapter(
        "choose",
        "θ",
        "Turn the question around: start from the accuracy you need and find the smallest ε that delivers it. Say "
        "each count must be within **θ** of the truth (θ, the error tolerance: how far off an answer may be and still "
        "count as accurate) in 95 % of releases. The curves show how often each noise lands within ±θ as ε grows; the "
        "smallest ε that reaches 95 % is the budget to ask for.",
        "theta",
        "the dotted line marks 95 %; where a curve crosses it is the ε that mechanism needs.",
        "Set θ = 2 (each count within ±2, 95 % of the time). Which ε does Laplace noise need?",
        Check(
            "1.5",
            (
                "Move θ to 2 and read Laplace's ε under the picture.",
                "Twice the tolerance needs half the ε you read at θ = 1.",
            ),
            why="A looser accuracy target needs a proportionally smaller budget.",
        ),
        "Laplace noise of scale b lands within ±θ with probability 1 − e^(−θ/b); 95 % needs b = θ/ln 20, so "
        "ε = 1/b = ln(20)/2 = **1.5**.",
        Deeper("negotiate", "the Negotiate a budget page", (("conf", "0.95"),)),
    ),
    Chapter(
        "redraw",
        "",
        "Budget recycling (BR-DP, Jiang et al. 2024) adds noise as usual, but when the noisy answer misses the truth "
        "by more than θ it may throw it away and draw again: more answers land within ±θ, and the redraws cost some "
        "privacy. Which cost to believe? The exact one, computed from the output distributions themselves. The "
        "paper's own formula errs both ways: here it overcharges, elsewhere it approves plans that give people away.",
        "eps",
        "green dots land within ±1; grey ones missed and were drawn again; orange ones missed but went out anyway.",
        "At ε = 1, in what share of releases does a BR-DP release land within ±1?",
        Check(
            "39.6 %",
            (
                "Read the sentence under the picture at ε = 1.",
                "It is clearly more than plain Gaussian noise's share, but below one half.",
            ),
            why="Redrawing the misses nearly doubles the accurate answers at the same exact guarantee.",
        ),
        "With the exact cost, the best plan at ε = 1 (δ = 10⁻⁵, θ = 1) redraws a miss with probability 0.59; a "
        "release then lands within ±1 in **39.6 %** of cases, against 21.1 % for plain Gaussian noise.",
        Deeper("brdp", "the BR-DP page"),
    ),
    Chapter(
        "sparse",
        "",
        "Often you want only the few counts above a threshold, among thousands. The sparse vector technique (SVT) "
        "compares each noisy count with one noisy threshold and answers “above” or “below”. A “below” answer is "
        "free, so it can screen as many counts as you like and pays only for the few “above” answers, "
        "stopping after a fixed number of them (Liu et al. 2024).",
        "eps",
        "most dots stay under the noisy threshold (raised on purpose: lower counts rarely pass) and cost nothing.",
        "With the same ε, a run screens 100 times more counts. How much more privacy does it spend?",
        Check(
            "nothing more",
            (
                "Read the sentence under the picture: what does one run spend, and does that depend on how many counts "
                "it screens?",
                "A “below” answer is free; only the “above” answers are paid for, and their number is fixed.",
            ),
            options=("nothing more", "about 10 times more, like √100", "100 times more"),
            why="SVT's cost is fixed by its budget, not by how many counts it looks at.",
        ),
        "The budget is split between the threshold's noise and the noise of the few “above” answers, and the two "
        "parts add up to ε. A “below” answer costs nothing, so screening a hundred or a million counts spends the "
        "same ε: **nothing more**. (Composition, chapter 4, charges every answer; SVT does not.)",
        Deeper("svt", "the sparse vector technique page"),
    ),
    Chapter(
        "stop",
        "η",
        "Instead of fixing ε in advance, start with a very noisy answer and remove noise step by step, each step a "
        "little less private. Stop as soon as the answer is accurate enough: within **η** of the count (η, eta, is a "
        "share of the count: 0.1 means within 10 %). You pay only for the step where you stopped, not for the least "
        "noisy one you were allowed (Rogers et al. 2023).",
        "eta",
        "the released value homes in on the true count; × marks where it stopped. Nothing to its right is spent.",
        "Make η larger (accept a rougher answer). Does the release stop earlier or later?",
        Check(
            "earlier, at a noisier and cheaper level",
            (
                "Move η up and watch where the × sits.",
                "A rougher answer is accurate enough sooner, while the noise is still large.",
            ),
            options=(
                "earlier, at a noisier and cheaper level",
                "later, at a less noisy and dearer level",
                "at the same level",
            ),
            why="Asking for less accuracy stops sooner and costs less.",
        ),
        "The stopping rule fires once the noisy answer is within η of itself with high confidence. A larger η is met "
        "while the noise is still large, so the release stops **earlier**, at a noisier level, and pays less.",
        Deeper("noise_reduction", "the Accuracy first page"),
    ),
    Chapter(
        "revealed",
        "ℓ",
        "In local differential privacy each person adds noise to their own answer before sending it. Twenty-five "
        "answers at ε each may, by the simple sum, reveal up to 25 ε. But the answers that actually came out usually "
        "reveal far less: **ℓ**, the realized loss, is the most any observer can have learned about the person from "
        "these very answers (Pan 2023). Charging ℓ instead of the sum keeps a conversation going much longer.",
        "eps",
        "the solid line (what the answers revealed) stays far below the dotted sum; it can even go down.",
        "After the last answer, which is larger?",
        Check(
            "the sum of the ε's",
            (
                "Compare the two lines of the picture after the last answer.",
                "The sum charges the worst possible answer every time; ℓ looks at the answers that really came out.",
            ),
            options=("the sum of the ε's", "ℓ, what the answers revealed", "they are always equal"),
            why="What was actually revealed never exceeds the worst case the sum charges.",
        ),
        "The sum assumes every answer was the most revealing one it could have been. The realized loss ℓ measures "
        "the answers that came out, so it is never larger than **the sum of the ε's**, and usually far smaller.",
        Deeper("ldp", "the Local DP page"),
    ),
    Chapter(
        "random_scale",
        "",
        "Laplace noise uses one fixed noise scale, b = 1/ε. R²DP (Mohammady et al. 2020) first draws the scale itself "
        "at random, fresh and secret for every release, then adds Laplace noise of that scale. Chosen well, the "
        "random scale keeps the same exact ε, yet more releases land near the truth once ε is large. At small ε "
        "nothing beats plain Laplace. Here a release is accurate within ±0.1.",
        "eps",
        "the dashed curve (random scale) leaves the Laplace curve only at larger ε.",
        "Set ε = 5. In what share of releases is plain Laplace noise within ±0.1 of the truth?",
        Check(
            "39.3 %",
            (
                "Move ε to 5 and read Laplace's share under the picture.",
                "Laplace noise of scale 1/ε lands within ±0.1 with probability 1 − e^(−0.1 ε).",
            ),
            why="At ε = 5 the best random scale does markedly better than that.",
        ),
        "1 − e^(−0.1 × 5) = 1 − e^(−0.5) = **39.3 %**; the best random scale reaches 66.0 % at the same exact ε.",
        Deeper("r2dp", "the R²DP page"),
    ),
)

SLUGS: tuple[str, ...] = tuple(c.slug for c in CHAPTERS)
BY_SLUG: dict[str, Chapter] = {c.slug: c for c in CHAPTERS}


def chapter(slug: str) -> Chapter:
    """The chapter named ``slug`` (its address value, ``?chapter=noise``)."""
    try:
        return BY_SLUG[slug]
    except KeyError:
        raise ValueError(f"chapter: {slug!r} is not one of {', '.join(SLUGS)}") from None


if SLUGS != tuple(CHAPTER_TITLES):
    raise RuntimeError("app/catalogue/course.py and app/course/chapters.py list different chapters")
