"""Cached tables for the "Negotiate a budget" page, all by calling :mod:`dpcore.negotiate` with scalar arguments.

The heavy rows (BR-DP optimisations inside a bisection, R²DP family optima, the noise-reduction Monte Carlo) take
a few seconds cold; every function is cached by its scalars, so a warm rerun only reads the caches.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import dpcore
from app.compute import MAX_ENTRIES
from dpcore import negotiate as ng

MECHS = ng.MECHANISMS
LABELS = ng.LABELS
N_RUNS = 2000  # noise-reduction Monte-Carlo runs (standard error shown in the table)
CURVE_POINTS = 16  # ε grid of the accuracy-vs-ε chart (each BR-DP point is one optimisation)
CAP = 50.0


def _req_args(kind: str, theta: float, confidence: float, sensitivity: float, delta: float, alpha: float,
              value: float, c: int, k: int, kernel: str) -> dict:
    """Only the arguments the requirement kind uses, so unrelated controls keep their cache hits."""
    args = {"requirement": kind, "confidence": confidence, "sensitivity": sensitivity}
    if kind == "error":
        args |= {"theta": theta, "delta": delta, "kernel": kernel}
    elif kind == "relative":
        args |= {"alpha": alpha, "value": value, "delta": delta, "kernel": kernel}
    else:
        args |= {"theta": theta, "c": int(c), "k": int(k)}
    return args


#: Requirement arguments a mechanism does not use: dropped from its cache key, so e.g. moving δ does not redo R²DP.
_UNUSED = {"laplace": ("delta", "kernel"), "gaussian": ("kernel",), "r2dp": ("delta", "kernel"),
           "r2dp_two_point": ("delta", "kernel"), "staircase": ("delta", "kernel"),
           "noise_reduction": ("delta", "kernel")}


def _key(mech: str, args: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in args.items() if k not in _UNUSED.get(mech, ())))


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Searching the smallest ε …")
def _forward_row(mech: str, key: tuple, seed: int) -> pd.DataFrame:
    return ng.epsilon_for_accuracy(**dict(key), mechanisms=[mech], cap=CAP, n_runs=N_RUNS, seed=seed)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def epsilons(kind: str, theta: float, confidence: float, sensitivity: float, delta: float, alpha: float,
             value: float, c: int, k: int, kernel: str, seed: int) -> pd.DataFrame:
    """One row per mechanism: the smallest ε (and δ) meeting the requirement (see dpcore.negotiate).

    Cached row by row on the scalars that row depends on, and as a whole (one cache read when only ε moves)."""
    args = _req_args(kind, theta, confidence, sensitivity, delta, alpha, value, c, k, kernel)
    return pd.concat([_forward_row(m, _key(m, args), seed if m == "noise_reduction" else 0) for m in MECHS],
                     ignore_index=True)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Evaluating every mechanism at this ε …")
def _reverse_row(epsilon: float, mech: str, key: tuple, seed: int) -> pd.DataFrame:
    return ng.accuracy_for_epsilon(epsilon, **dict(key), mechanisms=[mech], n_runs=N_RUNS, seed=seed)


def accuracies(epsilon: float, kind: str, theta: float, confidence: float, sensitivity: float, delta: float,
               alpha: float, value: float, c: int, k: int, kernel: str, seed: int) -> pd.DataFrame:
    """One row per mechanism: the accuracy it delivers at ε."""
    args = _req_args(kind, theta, confidence, sensitivity, delta, alpha, value, c, k, kernel)
    return pd.concat([_reverse_row(epsilon, m, _key(m, args), seed if m == "noise_reduction" else 0)
                      for m in MECHS], ignore_index=True)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner="Drawing accuracy against ε …")
def _curve(mech: str, key: tuple) -> pd.DataFrame:
    args = {k: v for k, v in key if k != "confidence"}
    eps = np.geomspace(0.05, CAP, CURVE_POINTS)
    df = ng.accuracy_curves(eps, mechanisms=[mech], **args)
    df["label"] = df["mechanism"].map(LABELS)
    return df


def curves(kind: str, theta: float, confidence: float, sensitivity: float, delta: float, alpha: float,
           value: float, c: int, k: int, kernel: str) -> pd.DataFrame:
    """Accuracy of each fixed-ε mechanism on a log ε grid 0.05 … 50 (long form); the confidence only marks the chart."""
    args = _req_args(kind, theta, 0.5, sensitivity, delta, alpha, value, c, k, kernel)
    return pd.concat([_curve(m, _key(m, args)) for m in MECHS], ignore_index=True)


#: Published budgets of real deployments (source named; "as published by …").
DEPLOYMENTS = pd.DataFrame(
    [
        {"deployment": "US Census 2020 redistricting data (P.L. 94-171), persons", "epsilon": 17.14,
         "delta": 1e-10, "unit": "whole release (zCDP ρ = 2.63, converted)",
         "source": "as published by the U.S. Census Bureau: “Privacy-loss budget allocation” for the 2020 "
                   "Census Redistricting Data production settings (June 2021)"},
        {"deployment": "US Census 2020 redistricting data (P.L. 94-171), housing units", "epsilon": 2.47,
         "delta": 1e-10, "unit": "whole release (zCDP ρ = 0.07, converted)",
         "source": "as published by the U.S. Census Bureau (same document)"},
        {"deployment": "Apple: QuickType suggestions", "epsilon": 8.0, "delta": 0.0, "unit": "per device per day",
         "source": "as published by Apple: “Differential Privacy Overview”"},
        {"deployment": "Apple: emoji suggestions", "epsilon": 4.0, "delta": 0.0, "unit": "per device per day",
         "source": "as published by Apple: “Differential Privacy Overview”"},
        {"deployment": "Apple: Health type usage", "epsilon": 2.0, "delta": 0.0, "unit": "per device per day",
         "source": "as published by Apple: “Differential Privacy Overview”"},
        {"deployment": "Google COVID-19 Search Trends symptoms dataset", "epsilon": 1.68, "delta": 0.0,
         "unit": "per user's daily symptom searches",
         "source": "as published by Google: “Google COVID-19 Search Trends Symptoms Dataset: Anonymization Process "
                   "Description” (arXiv:2009.01265)"},
        {"deployment": "Google COVID-19 Vaccination Search Insights", "epsilon": 2.19, "delta": 1e-5,
         "unit": "per user's daily vaccination searches",
         "source": "as published by Google: “Google COVID-19 Vaccination Search Insights: Anonymization Process "
                   "Description” (arXiv:2107.01179)"},
    ]
)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def meaning(epsilon: float, prior: float = 0.01) -> dict[str, float]:
    """e^ε (largest factor on an observer's odds) and the largest posterior from a prior (dpcore.posterior_bound)."""
    return {"odds": float(np.exp(epsilon)), "prior": prior,
            "posterior": float(dpcore.posterior_bound(prior, epsilon))}


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def deployments_meaning(prior: float = 0.01) -> pd.DataFrame:
    """The deployments table with e^ε and the largest posterior from the prior (dpcore.posterior_bound)."""
    df = DEPLOYMENTS
    post = [float(dpcore.posterior_bound(prior, float(e))) for e in df["epsilon"]]
    return pd.DataFrame({
        "deployment": df["deployment"],
        "ε": [f"{e:g}" for e in df["epsilon"]],
        "δ": [f"{d:g}" for d in df["delta"]],
        "unit": df["unit"],
        "odds factor e^ε": [f"{math.exp(e):.3g}" for e in df["epsilon"]],
        f"largest posterior from {100 * prior:g} %": [f"{100 * q:.3g} %" for q in post],
        "source": df["source"],
    })


def _fmt_eps(eps: float, applicable: bool, cap: float = CAP) -> str:
    if not applicable:
        return "n/a"
    if not np.isfinite(eps):
        return f"not reachable (ε ≤ {cap:g})"
    return f"{eps:.5g}"


def table_view(df: pd.DataFrame, *, direction: str) -> pd.DataFrame:
    """The table as shown: applicable rows first, ε formatted (n/a, not reachable), accuracy in %, labels."""
    df = df.sort_values("applicable", ascending=False, kind="stable")
    out = pd.DataFrame({
        "mechanism": df["label"],
        "accountant": df["variant"].map({"exact": "exact", "paper": "paper (as printed)", "—": ""}),
        ("smallest ε" if direction == "forward" else "ε spent"): [
            _fmt_eps(float(e), bool(a)) for e, a in zip(df["epsilon"], df["applicable"])],
        "δ": [f"{d:g}" if a else "" for d, a in zip(df["delta"], df["applicable"])],
        "accuracy": [f"{100 * x:.2f} %" if np.isfinite(x) else "" for x in df["accuracy"].astype(float)],
        "meets": [("yes" if m else "no") if a else "" for m, a in zip(df["meets"], df["applicable"])],
        "privacy sound": [("yes" if s else "NO — exact δ too large") if a else ""
                          for s, a in zip(df["sound"], df["applicable"])],
        "why": df["reason"],
        "note": df["note"],
    })
    return out
