"""The first course's one control of its own: which chapter is on screen (``?chapter=noise``).

The chapters' titles are the options' words (the course's table of contents); everything else a chapter says is in
:mod:`app.course.chapters`, which reads its titles from here.
"""

from app.catalogue._core import Param, register

#: The chapters in order: address value → title.
CHAPTER_TITLES: dict[str, str] = {
    "promise": "What ε promises",
    "noise": "Noise and accuracy: the Laplace mechanism",
    "delta": "δ and the Gaussian mechanism",
    "budget": "Spending a budget: composition",
    "choose": "Choosing ε from the accuracy you need",
    "redraw": "Redraw the misses (BR-DP)",
    "sparse": "Find the few big ones (SVT)",
    "stop": "Stop when accurate enough",
    "revealed": "What did they actually learn?",
    "random_scale": "A random noise scale (R²DP)",
}

register(
    Param(
        "chapter",
        "",
        "chapter",
        "Which chapter of the first course is on screen: each one is a single idea with one picture and a check.",
        "promise",
        tuple(CHAPTER_TITLES),
        kind="choice",
        labels={slug: f"{i}. {title}" for i, (slug, title) in enumerate(CHAPTER_TITLES.items(), 1)},
        topic="course",
    ),
)
