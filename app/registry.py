"""The pages of DP Explorer: one record per page (:class:`PageInfo`), read by the navigation, the home page's cards,
the classroom strip (glossary terms, "Try this" exercises), the link to the page's lesson and the tests.

A page appears in the navigation (and its card links to it) only when its script exists, so the home page never
links to a page that has not been built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.exercises import (
    Exercise,
    audit,
    baselines,
    brdp,
    home,
    ldp,
    ledger,
    negotiate,
    noise_reduction,
    poll,
    r2dp,
    svt,
)

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"


@dataclass(frozen=True)
class PageInfo:
    """Everything the app knows about one page (see the module's docstring)."""

    script: str  # file name under pages/
    title: str
    url_path: str
    icon: str
    blurb: str  # one sentence for the home page card
    paper: str = ""  # citation of the paper the page teaches
    lead: bool = False  # the page opens with its answer (app.ui.lead): drawn before the classroom strip
    lesson: str = ""  # the lesson notebook of the page, notebooks/<lesson>.py ("": none)
    # glossary terms of the classroom strip (app.catalogue.GLOSSARY), in the order shown
    terms: tuple[str, ...] = field(default=(), compare=False)
    # the "Try this" exercises under the page (app/exercises/<page>.py); a page is known by its script and address
    exercises: tuple[Exercise, ...] = field(default=(), compare=False)

    @property
    def path(self) -> Path:
        return PAGES_DIR / self.script

    @property
    def exists(self) -> bool:
        return self.path.is_file()


HOME = PageInfo(
    "home.py",
    "Home",
    "",
    ":material/home:",
    "What differential privacy promises, in plain words.",
    terms=("ε (epsilon)", "δ (delta)", "sensitivity Δ", "Laplace mechanism", "Gaussian mechanism"),
    exercises=home.EXERCISES,
)

COURSE = PageInfo(
    "course.py",
    "A first course",
    "course",
    ":material/school:",
    "Ten short chapters for a newcomer: what ε promises, noise and accuracy, δ, budgets, choosing ε, and each "
    "paper's idea in plain words.",
)

BASELINES = PageInfo(
    "baselines.py",
    "Gaussian & Laplace",
    "baselines",
    ":material/show_chart:",
    "The two classic noise mechanisms every paper compares against: calibration, accuracy, privacy "
    "profiles and composition.",
    lesson="baselines",
    terms=(
        "ε (epsilon)",
        "δ (delta)",
        "sensitivity Δ",
        "Laplace mechanism",
        "Gaussian mechanism",
        "privacy profile",
        "composition",
        "PLD",
    ),
    exercises=baselines.EXERCISES,
)

#: The five paper topics, in the order the home page shows them.
TOPICS: tuple[PageInfo, ...] = (
    PageInfo(
        "brdp.py",
        "BR-DP: budget recycling",
        "brdp",
        ":material/recycling:",
        "Redraw noisy answers that miss the target and pay for it in the privacy budget, and see where the "
        "paper's own accountant under-reports δ.",
        "Budget recycling differential privacy (BR-DP)",
        lesson="brdp",
        terms=(
            "ε (epsilon)",
            "δ (delta)",
            "privacy loss",
            "privacy profile",
            "hockey-stick divergence",
            "PLD",
            "composition",
        ),
        exercises=brdp.EXERCISES,
    ),
    PageInfo(
        "noise_reduction.py",
        "Accuracy first: noise reduction",
        "noise_reduction",
        ":material/trending_down:",
        "Start very private and remove noise until the answer is accurate enough, paying only the ex-post "
        "privacy loss, under a privacy filter.",
        "Accuracy first: selecting a DP level for accuracy-constrained ERM / Brownian noise reduction",
        lesson="noise_reduction",
        terms=("ex-post privacy", "privacy filter", "zCDP", "privacy loss", "Laplace mechanism", "Gaussian mechanism"),
        exercises=noise_reduction.EXERCISES,
    ),
    PageInfo(
        "svt.py",
        "Sparse vector technique",
        "svt",
        ":material/filter_alt:",
        "Find the queries above a threshold with exponential noise and the optimal threshold correction.",
        "Sparse vector technique with exponential noise",
        lesson="svt",
        terms=("sparse vector technique", "ε (epsilon)", "sensitivity Δ", "Laplace mechanism", "composition"),
        exercises=svt.EXERCISES,
    ),
    PageInfo(
        "ldp.py",
        "Local DP: Bayesian privacy filter",
        "ldp",
        ":material/person_search:",
        "Measure the privacy each answer really costs and keep answering while the realized loss stays in budget.",
        "Realized privacy loss and a Bayesian privacy filter for local DP",
        lesson="ldp",
        terms=("local DP", "randomized response", "realized privacy loss", "privacy filter", "composition"),
        exercises=ldp.EXERCISES,
    ),
    PageInfo(
        "r2dp.py",
        "R²DP: randomized Laplace scale",
        "r2dp",
        ":material/casino:",
        "Draw the Laplace scale itself at random and gain accuracy at the same exact ε.",
        "R²DP: randomizing the Laplace scale",
        lesson="r2dp",
        terms=("Laplace mechanism", "usefulness", "ε (epsilon)", "sensitivity Δ", "privacy loss"),
        exercises=r2dp.EXERCISES,
    ),
)


#: Pages that work across the papers: negotiating a budget, keeping a ledger of releases, auditing mechanisms, and a
#: live class poll.
TOOLS: tuple[PageInfo, ...] = (
    PageInfo(
        "negotiate.py",
        "Negotiate a budget",
        "negotiate",
        ":material/handshake:",
        "State the accuracy you need and see the smallest ε every mechanism in the app needs to deliver it "
        "— or fix ε and see the accuracy each one delivers.",
        lead=True,
        lesson="negotiate",
        terms=("ε (epsilon)", "δ (delta)", "usefulness", "Laplace mechanism", "Gaussian mechanism"),
        exercises=negotiate.EXERCISES,
    ),
    PageInfo(
        "ledger.py",
        "Privacy ledger",
        "ledger",
        ":material/receipt_long:",
        "Collect releases from every page against one session budget, add up their privacy loss several ways (from "
        "plain addition to the tightest exact accountant), and let a privacy filter refuse what would overspend.",
        terms=("composition", "zCDP", "PLD", "privacy filter", "ex-post privacy"),
        exercises=ledger.EXERCISES,
    ),
    PageInfo(
        "audit.py",
        "Privacy audit",
        "audit",
        ":material/troubleshoot:",
        "Attack each mechanism with neighbouring inputs and a Monte-Carlo lower bound on ε: the claims hold, "
        "and BR-DP calibrated by the paper's accountant is caught.",
        lesson="audit",
        terms=("privacy loss", "hockey-stick divergence", "ε (epsilon)", "δ (delta)"),
        exercises=audit.EXERCISES,
    ),
    PageInfo(
        "poll.py",
        "Class poll",
        "poll",
        ":material/how_to_vote:",
        "Ask the class a yes/no question on their phones through randomized response: the count rises live on the "
        "projector, beside the estimate of the true share of Yes.",
        terms=("randomized response", "local DP", "realized privacy loss", "unbiased estimate", "confidence interval"),
        exercises=poll.EXERCISES,
    ),
)


#: Every page of the app, in navigation order.
PAGES: tuple[PageInfo, ...] = (HOME, COURSE, BASELINES, *TOPICS, *TOOLS)
#: Those whose script exists, looked up once per process (every page run asks; a page script added later needs a
#: restart, as any code change does with the file watcher off).
_AVAILABLE: tuple[PageInfo, ...] = tuple(p for p in PAGES if p.exists)


def available_pages() -> list[PageInfo]:
    """Home, the first course, the baselines page, every topic page and every tool page whose script exists, in
    navigation order."""
    return list(_AVAILABLE)


def page(url_path: str) -> PageInfo | None:
    """The page at ``url_path`` ("" for home), or None."""
    return next((p for p in PAGES if p.url_path == url_path), None)
