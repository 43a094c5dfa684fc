"""For each lesson (``notebooks/<name>.py``), two parameter sets besides its defaults at which the tests run it.

Each set changes some of the values of the lesson's ``p`` (its main control group); the rest keep their defaults.
Keys are catalogue URL keys. Choose sets that move the lesson somewhere else: a small and a large ε, another δ …
"""

OTHER_SETS: dict[str, tuple[dict, dict]] = {
    "baselines": (
        {"eps": 0.2, "delta": 1e-8, "T": 100, "theta": 10.0},
        {"eps": 8.0, "delta": 0.01, "sens": 2.0, "calib": "classic", "T": 1},
    ),
}
