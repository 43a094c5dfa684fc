"""“Try this” exercises of the class poll page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "poll-estimate",
        "A poll at ε = 1 counts 18 Yes among 30 answers. What share of the class truly says Yes?",
        {"eps": "1"},
        "p = e/(1 + e) = 0.731, so 60 % Yes answers = 0.269 + 0.462 × (true share): the estimate is "
        "(0.6 − 0.269)/0.462 = 71.6 % truly Yes, well above the 60 % counted.",
        ("0.731", "0.269", "0.462", "71.6"),
        check=Check(
            "71.6 %",
            (
                "Some of the Yes answers are the coin's, not the students': first work out how often a phone's "
                "answer is counted as given at this ε.",
                "A phone's answer is counted as given with probability p = e^ε/(1 + e^ε), so the expected share of "
                "Yes answers is (1 − p) + (2p − 1) × (the true share): solve that for the true share.",
            ),
        ),
    ),
    Exercise(
        "poll-epsilon",
        "Run the same poll at ε = 2 and at ε = 0.5 (or replay a closed poll at the other ε). How many times as wide "
        "is the interval around the estimate at ε = 0.5?",
        {"eps": "0.5"},
        "For the same answers the interval is stretched by 1/(2p − 1): tanh(1) = 0.762 at ε = 2 and tanh(0.25) = "
        "0.245 at ε = 0.5, so it is about 3.11 times as wide (less where it reaches 0 % or 100 %).",
        ("0.762", "0.245", "3.11"),
        check=Check(
            "3.11",
            (
                "The estimate undoes the coin by stretching the observed share: compare that stretch at the two "
                "values of ε.",
                "The stretch is 1/(2p − 1), and 2p − 1 = tanh(ε/2): divide tanh(ε/2) at the larger ε by tanh(ε/2) "
                "at the smaller one.",
            ),
        ),
    ),
)
