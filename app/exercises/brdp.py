"""“Try this” exercises of the BR-DP page (shown under the page by app.classroom)."""

from app.exercises._base import Exercise
from app.exercises.check import Check

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "brdp-counterexample-b",
        "Open these settings (ε = 5, δ = 10⁻⁸, θ = 3, Δ = 0.2, the kernel's share ε_y = 0.3 ε, q from the "
        "paper's rule). The paper's accountant says δ = 10⁻⁸. What is the exact δ?",
        {
            "eps": "5",
            "delta": "1e-08",
            "theta": "3",
            "sens": "0.2",
            "kernel": "gaussian",
            "acct": "paper",
            "split": "true",
            "share": "0.3",
            "qov": "false",
        },
        "The exact δ (hockey-stick divergence of the two output laws) is **7.53·10⁻⁶**, about **753×** the "
        "target: the plan is not (5, 10⁻⁸)-DP although the paper's accountant approves it. The paper's model (Thm. 1) "
        "adds the redraw's extra loss anywhere, while recycling really changes the odds only where an output is "
        "redrawn for one data set and not for the other.",
        ("7.53·10⁻⁶", "753"),
        check=Check(
            "7.53·10⁻⁶",
            (
                "Open the settings and read the metric marked “exact” beside the paper's accountant.",
                "The exact δ is far above the target: several hundred times 10⁻⁸. Write it as a power of ten, e.g. "
                "2.5·10⁻⁷ or 2.5e-7.",
            ),
        ),
    ),
    Exercise(
        "brdp-counterexample-a",
        "Open these settings (ε = 0.1, δ = 10⁻³, θ = 0.1, Δ = 5, ε_y = 0.6 ε). The paper's rule picks q = 1: "
        "every draw outside ±θ is redrawn. Why is that a privacy disaster whatever the paper's δ says?",
        {
            "eps": "0.1",
            "delta": "0.001",
            "theta": "0.1",
            "sens": "5",
            "kernel": "gaussian",
            "acct": "paper",
            "split": "true",
            "share": "0.6",
            "qov": "false",
        },
        "With q = 1 the output always lies within ±θ of the true answer. Two neighbouring answers 5 apart give "
        "disjoint output ranges [−0.1, 0.1] and [4.9, 5.1], so one release tells them apart for sure: exact "
        "δ = **1**. The paper's accountant reports **6.7·10⁻⁴**.",
        ("1", "6.7·10⁻⁴"),
        check=Check(
            "the outputs for the two data sets never overlap",
            (
                "Where can an output land when every draw outside ±θ is redrawn?",
                "Neighbouring true answers differ by Δ = 5, but every output lies within ±0.1 of its true answer.",
            ),
            options=(
                "the noise is too small for ε = 0.1",
                "the outputs for the two data sets never overlap",
                "the paper's δ is above the target",
            ),
            why="One release then names the data set for sure: the exact δ is 1.",
        ),
    ),
    Exercise(
        "brdp-sound",
        "With the app's defaults (ε = 1, δ = 10⁻⁵, θ = Δ = 1, exact accountant), how often does a BR-DP release "
        "land within ±θ? (Compare a plain Gaussian release.)",
        {"eps": "1", "delta": "1e-05", "theta": "1", "sens": "1", "kernel": "gaussian", "acct": "exact"},
        "Plain DP: **0.2113** (21.1 %); BR-DP with the exact optimum: **0.3957** (39.6 %), at the same exact (1, 10⁻⁵) "
        "guarantee. Recycling pays off when θ is small against the noise.",
        ("0.2113", "0.3957"),
        check=Check(
            "39.6 %",
            (
                "Read the first sentence under the opening picture (or the metric “BR-DP: chance within ±θ” under The "
                "paper in depth).",
                "It is clearly better than the plain Gaussian's chance of about one in five, but below one half.",
            ),
        ),
    ),
)
