"""“Try this” exercises of the Local DP page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "ldp-filter",
        "At the defaults (ε = 1 per query, budget ε_G = 4, 25 queries of the running example) compare how many "
        "queries the Bayesian filter answers with basic composition. How many does basic composition answer?",
        {"eps": "1", "epsg": "4", "nq": "25", "family": "powers"},
        "Basic composition stops after ε_G/ε = **4** queries. The Bayesian filter charges only what the answers "
        "actually revealed (checking every answer the next query could give first) and answers many more — how "
        "many depends on the random answers: change the seed.",
        ("4",),
        check=Check(
            "4",
            (
                "Read the metric “Answered under basic composition”.",
                "Basic composition adds ε = 1 per query until the budget ε_G is used up.",
            ),
        ),
    ),
    Exercise(
        "ldp-example1",
        "Reproduce view, Example 1: six binary randomized-response answers at ε = 0.7, three 1's and three 0's. "
        "What realized loss do they have? (Compare what basic composition charges.)",
        {"view": "reproduce"},
        "Nothing: the balanced answers are exactly as likely whether the secret is 0 or 1 (e^(3ε)/(1 + e^ε)^6 both "
        "times), so the realized loss is **0**, while basic composition charges 2nε = **4.2**. Six 1's would "
        "really cost 4.2.",
        ("0", "4.2"),
        check=Check(
            "0",
            (
                "Are three ones and three zeros more likely under one secret than under the other?",
                "Each one favours one secret exactly as much as each zero favours the other: the effects cancel.",
            ),
        ),
    ),
    Exercise(
        "ldp-bound",
        "Without a filter, all 25 queries are answered. Compare the realized loss of the 25 answers with the LDP "
        "bound Σε. How large is the bound?",
        {"eps": "1", "epsg": "4", "nq": "25", "family": "powers"},
        "The LDP bound is Σε = **25**; the realized loss of the answers actually given is much smaller, because "
        "most answers are nearly as likely under every true value.",
        ("25",),
        check=Check(
            "25",
            (
                "Read the first sentence under the picture: what does adding up the ε's charge?",
                "The bound adds the ε of every answer given, whatever the answers were.",
            ),
        ),
    ),
)
