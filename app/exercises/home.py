"""“Try this” exercises of the Home page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "home-eps1",
        "Set ε = 1. A sceptic gives 50 % to “Alice is in the data”. How far can a single ε-DP answer push her belief?",
        {"eps": "1"},
        "To at most **73.1 %**: her odds 1 : 1 can grow by at most e^1 ≈ 2.72, and 2.72 / (1 + 2.72) = 0.731.",
        ("73.1",),
        check=Check(
            "73.1 %",
            (
                "Read the table beside the picture: the row for a belief of 50 % before the answer.",
                "The odds 1 : 1 can grow by at most the factor e^ε shown above the table; turn those odds back into a "
                "percentage.",
            ),
        ),
    ),
    Exercise(
        "home-eps01",
        "Set ε = 0.1. How high can the 50 % sceptic's belief end up, at most (in %)? (Then note the largest factor "
        "on her odds too: the worked solution gives it.)",
        {"eps": "0.1"},
        "The odds move by at most e^0.1 = **1.11×**, so her belief stays at or below **52.5 %**: a single "
        "answer barely tells her anything. That is what a small ε buys.",
        ("1.11", "52.5"),
        check=Check(
            "52.5 %",
            (
                "Move ε down to 0.1 and read the row for a belief of 50 % in the table.",
                "At ε = 0.1 the band hugs the diagonal: the answer is only a little above where she started.",
            ),
        ),
    ),
    Exercise(
        "home-eps5",
        "Set ε = 5. How high can the 50 % sceptic's belief end up now, at most (in %)? (Then look up an observer "
        "who started at only 1 %: the worked solution gives both.)",
        {"eps": "5"},
        "At up to **99.3 %** and **60.0 %**: the odds can move by e^5 ≈ 148×. One answer at ε = 5 can "
        "almost reveal membership, which is why such an ε is a weak promise for a single release.",
        ("99.3", "60.0"),
        check=Check(
            "99.3 %",
            (
                "Move ε up to 5 and read the row for a belief of 50 % in the table.",
                "At ε = 5 the band almost fills the square: she can end up very close to certain, but not at 100 %.",
            ),
        ),
    ),
)
