"""“Try this” exercises of the Home page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "home-eps1",
        "Set ε = 1. A sceptic gives 50 % to “Alice is in the data”. How far can a single ε-DP answer push "
        "her belief?",
        {"eps": "1"},
        "To at most **73.1 %**: her odds 1 : 1 can grow by at most e^1 ≈ 2.72, and 2.72 / (1 + 2.72) = 0.731.",
        ("73.1",),
    ),
    Exercise(
        "home-eps01",
        "Set ε = 0.1. What is the largest factor on the odds, and where can the 50 % sceptic end up?",
        {"eps": "0.1"},
        "The odds move by at most e^0.1 = **1.11×**, so her belief stays at or below **52.5 %**: a single "
        "answer barely tells her anything. That is what a small ε buys.",
        ("1.11", "52.5"),
    ),
    Exercise(
        "home-eps5",
        "Set ε = 5. Where can the 50 % sceptic end up now — and an observer who started at only 1 %?",
        {"eps": "5"},
        "At up to **99.3 %** and **60.0 %**: the odds can move by e^5 ≈ 148×. One answer at ε = 5 can "
        "almost reveal membership, which is why such an ε is a weak promise for a single release.",
        ("99.3", "60.0"),
    ),
)
