"""“Try this” exercises of the Local DP page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "ldp-filter",
        "At the defaults (ε = 1 per query, budget ε_G = 4, 25 running-example queries) compare how many "
        "queries the Bayesian filter answers with basic composition.",
        {"eps": "1", "budget": "4", "k": "25", "query": "powers"},
        "Basic composition stops after ε_G/ε = **4** queries. The Bayesian filter looks at the *realized* "
        "loss of the answers actually given (and of every answer the next query could give) and answers many "
        "more — how many depends on the random answers: change the seed.",
        ("4",),
    ),
    Exercise(
        "ldp-example1",
        "Reproduce view, Example 1: six binary randomized-response answers at ε = 0.7, three 1's and three "
        "0's. What do they reveal, and what does basic composition charge?",
        {"view": "reproduce"},
        "Nothing: the likelihood of the balanced pattern is e^(3ε)/(1 + e^ε)^6 whether the secret is 0 or 1, "
        "so the realized loss is **0**, while basic composition charges 2nε = **4.2**. Six 1's would really "
        "cost 4.2.",
        ("0", "4.2"),
    ),
    Exercise(
        "ldp-bound",
        "Without a filter, all 25 queries are answered. Compare the realized loss of the 25 answers with the "
        "LDP bound Σε.",
        {"eps": "1", "budget": "4", "k": "25", "query": "powers"},
        "The LDP bound is Σε = **25**; the realized loss of the answers actually given is much smaller, "
        "because most answers are nearly as likely under every true value.",
        ("25",),
    ),
)
