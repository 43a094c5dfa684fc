"""For each lesson (``notebooks/<name>.py``), two parameter sets besides its defaults at which the tests run it.

Each set changes some of the values of the lesson's ``p`` (its main control group); the rest keep their defaults.
Keys are catalogue URL keys. Choose sets that move the lesson somewhere else: a small and a large ε, another δ …
"""

import os

import plotly.graph_objects as go

OTHER_SETS: dict[str, tuple[dict, dict]] = {
    "baselines": (
        {"eps": 0.2, "delta": 1e-8, "T": 100, "theta": 10.0},
        {"eps": 8.0, "delta": 0.01, "sens": 2.0, "calib": "classic", "T": 1},
    ),
    "negotiate": (
        {"theta": 50.0, "conf": 0.99, "T": 100},
        {"theta": 0.3, "conf": 0.8, "sens": 2.0, "delta": 0.01, "T": 1},
    ),
    "audit": (
        {"mech": "rr", "eps": 3.0, "draws": 30_000},
        {"mech": "brdp_paper", "eps": 0.1, "delta": 0.001, "sens": 5.0, "draws": 10_000, "level": 0.99},
    ),
    "svt": (
        {"eps": 0.1, "c": 1, "neg": 10, "alpha": 5.0, "noise": "laplace", "corr": "mean"},
        {"eps": 4.0, "c": 5, "neg": 1000, "thr": 1000.0, "noise": "gumbel", "mono": True, "seed": 3},
    ),
    "ldp": (
        {"eps": 0.2, "epsg": 1.0, "nq": 60, "dsize": 2, "xtrue": 1, "family": "rr", "prior": "skewed", "seed": 5},
        {"eps": 5.0, "epsg": 20.0, "nq": 3, "dsize": 101, "xtrue": 100, "prior": "bimodal", "seed": 1},
    ),
    "r2dp": (
        {"eps": 1.0, "gamma": 0.5, "fam": "uniform"},
        {"eps": 10.0, "gamma": 0.05, "sens": 2.0, "fam": "two_point", "shape": 0.5},
    ),
    "noise_reduction": (
        {"eps": 10.0, "y": 100.0, "eta": 0.2, "K": 50, "m": 50},
        {"eps": 2.0, "delta": 1e-8, "process": "laplace", "spacing": "linear", "const": "printed", "y": 300.0},
    ),
    # the first course: one control a chapter (app/course/chapters.py)
    "course_01_promise": ({"eps": 0.1}, {"eps": 5.0}),
    "course_02_noise": ({"eps": 0.5}, {"eps": 20.0}),
    "course_03_delta": ({"delta": 1e-3}, {"delta": 1e-12}),
    "course_04_budget": ({"T": 1}, {"T": 1000}),
    "course_05_choose": ({"theta": 2.0}, {"theta": 0.1}),
    "course_06_redraw": ({"eps": 0.1}, {"eps": 5.0}),
    "course_07_sparse": ({"eps": 0.5}, {"eps": 10.0}),
    "course_08_stop": ({"eta": 0.01}, {"eta": 0.5}),
    "course_09_revealed": ({"eps": 0.2}, {"eps": 5.0}),
    "course_10_random_scale": ({"eps": 0.1}, {"eps": 20.0}),
    "brdp": (
        {"eps": 0.5, "delta": 1e-8, "theta": 3.0, "sens": 2.0, "T": 100},
        {"eps": 5.0, "kernel": "laplace", "acct": "paper", "theta": 0.5, "T": 1},
    ),
}


def computed_by(x: object) -> tuple[int, object]:
    """(pid of the process that ran it, x): shows whether a lesson's value came from its worker (importable, so a
    worker process can run it)."""
    import os

    return os.getpid(), x


def picture_by(eps: float, height: int) -> go.Figure:
    """A picture at one ε whose title names the process that drew it (a worker, or the lesson's own)."""
    title = {"text": f"pid {os.getpid()}"}
    return go.Figure(go.Scatter(x=[eps], y=[1.0]), layout={"height": height, "title": title})
