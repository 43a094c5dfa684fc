"""Catalogue entries of the class poll (see app/catalogue/__init__.py for what an entry holds). The poll's ε is the
shared ``eps``: one report reveals exactly ε about its sender."""

from __future__ import annotations

from app.catalogue._core import Param, log_grid, register

TOPIC = "poll"

#: Ready questions: yes/no questions some would rather not answer aloud, which is what the coin is for.
QUESTIONS: dict[str, str] = {
    "cheat": "Have you ever copied someone else's homework?",
    "sleep": "Did you sleep less than six hours last night?",
    "phone": "Have you checked your phone during a lecture this week?",
    "stream": "Do you use someone else's password for a streaming service?",
    "own": "My own question",
}
OWN = "own"

register(
    Param(
        "pq",
        "",
        "question",
        "A yes/no question that some would rather not answer aloud: because every phone's answer goes through the "
        "coin, nobody can tell what one student chose, so everyone can answer truthfully.",
        "cheat",
        tuple(QUESTIONS),
        kind="choice",
        labels=QUESTIONS,
        glossary="randomized response",
        topic=TOPIC,
    ),
    Param(
        "pmins",
        "",
        "time limit",
        "How long phones may answer: the poll closes when you press Stop or when this time has passed.",
        5,
        (1, 2, 3, 5, 10, 15, 20, 30, 45, 60),
        unit="minutes",
        topic=TOPIC,
    ),
    Param(
        "reps",
        "",
        "replayed at ε",
        "The same class answering again through a coin of another ε: smaller ε, a fairer coin, more private "
        "answers and a wider interval around the estimate.",
        0.5,
        log_grid(0.1, 10.0),
        glossary="randomized response",
        topic=TOPIC,
    ),
)
