"""The pages of DP Explorer: one entry per page, used by the navigation and by the home page's cards.

A page appears in the navigation (and its card links to it) only when its script exists, so the home page never
links to a page that has not been built.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"


@dataclass(frozen=True)
class PageInfo:
    script: str  # file name under pages/
    title: str
    url_path: str
    icon: str
    blurb: str  # one sentence for the home page card
    paper: str = ""  # citation of the paper the page teaches
    lead: bool = False  # the page opens with its answer (app.ui.lead): drawn before the classroom strip

    @property
    def path(self) -> Path:
        return PAGES_DIR / self.script

    @property
    def exists(self) -> bool:
        return self.path.is_file()


HOME = PageInfo("home.py", "Home", "", ":material/home:", "What differential privacy promises, in plain words.")

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
    ),
    PageInfo(
        "noise_reduction.py",
        "Accuracy first: noise reduction",
        "noise_reduction",
        ":material/trending_down:",
        "Start very private and remove noise until the answer is accurate enough, paying only the ex-post "
        "privacy loss, under a privacy filter.",
        "Accuracy first: selecting a DP level for accuracy-constrained ERM / Brownian noise reduction",
    ),
    PageInfo(
        "svt.py",
        "Sparse vector technique",
        "svt",
        ":material/filter_alt:",
        "Find the queries above a threshold with exponential noise and the optimal threshold correction.",
        "Sparse vector technique with exponential noise",
    ),
    PageInfo(
        "ldp.py",
        "Local DP: Bayesian privacy filter",
        "ldp",
        ":material/person_search:",
        "Measure the privacy each answer really costs and keep answering while the realized loss stays in "
        "budget.",
        "Realized privacy loss and a Bayesian privacy filter for local DP",
    ),
    PageInfo(
        "r2dp.py",
        "R²DP: randomized Laplace scale",
        "r2dp",
        ":material/casino:",
        "Draw the Laplace scale itself at random and gain accuracy at the same exact ε.",
        "R²DP: randomizing the Laplace scale",
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
    ),
    PageInfo(
        "ledger.py",
        "Privacy ledger",
        "ledger",
        ":material/receipt_long:",
        "Collect releases from every page against one session budget, add up their privacy loss several ways (from "
        "plain addition to the tightest exact accountant), and let a privacy filter refuse what would overspend.",
    ),
    PageInfo(
        "audit.py",
        "Privacy audit",
        "audit",
        ":material/troubleshoot:",
        "Attack each mechanism with neighbouring inputs and a Monte-Carlo lower bound on ε: the claims hold, "
        "and BR-DP calibrated by the paper's accountant is caught.",
    ),
    PageInfo(
        "poll.py",
        "Class poll",
        "poll",
        ":material/how_to_vote:",
        "Ask the class a yes/no question on their phones through randomized response: the count rises live on the "
        "projector, beside the estimate of the true share of Yes.",
    ),
)


@functools.cache
def _built() -> tuple[PageInfo, ...]:
    return tuple(p for p in (HOME, COURSE, BASELINES, *TOPICS, *TOOLS) if p.exists)


def available_pages() -> list[PageInfo]:
    """Home, the first course, the baselines page, every topic page and every tool page whose script exists, in
    navigation order.

    Looked up once per process (every page run asks; a page script added later needs a restart, as any code change
    does with the file watcher off)."""
    return list(_built())
