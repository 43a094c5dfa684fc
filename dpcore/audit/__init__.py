"""Monte-Carlo privacy audits: statistically valid lower bounds on ε and δ from neighbouring inputs.

Run a mechanism many times on neighbouring inputs D and D′, bin the outputs and look for an event S with
P(S) > e^ε P′(S) + δ. With one-sided Clopper–Pearson bounds P_lo(S) ≤ P(S) and P′_hi(S) ≥ P′(S) (each at level
α/2), every (ε, δ)-DP mechanism satisfies, with probability ≥ 1 − α,

    ε_lb = ln((P_lo(S) − δ) / P′_hi(S)) ≤ ε        and        δ_lb = P_lo(S) − e^ε P′_hi(S) ≤ δ

(Jagielski, Ullman, Oprea 2020, "Auditing differentially private machine learning"; Ding et al. 2018,
"Detecting violations of differential privacy"). The event is chosen on one half of the samples (the *selection
split*) among threshold sets {x ≤ t}, {x > t}, single bins and likelihood-ratio-ordered unions of bins, in both
directions (D vs D′ and D′ vs D); the bounds are computed on the other half only, so the choice costs no
multiple-testing correction. An audit can only show that a claim is *false*; passing is evidence, not proof.

The package, one module per concern: the bounds and the event search (:mod:`~dpcore.audit.bounds`), a mechanism's
claim audited (:mod:`~dpcore.audit.claims`) and the data of the pictures (:mod:`~dpcore.audit.pictures`).
"""

from dpcore.audit.bounds import EventBound, clopper_pearson, delta_lower_bound, epsilon_lower_bound
from dpcore.audit.claims import (
    COUNTEREXAMPLE,
    COUNTEREXAMPLE_SETTINGS,
    MECHANISMS,
    SECOND_COUNTEREXAMPLE,
    AuditResult,
    MechanismPair,
    audit,
    audit_pair,
    audit_table,
    sample_pair,
)
from dpcore.audit.pictures import bound_vs_n, histogram, likelihood_ratios
from dpcore.mechanisms.sampling import SVT_OFFSETS, svt_outputs

__all__ = [
    "COUNTEREXAMPLE",
    "MECHANISMS",
    "SECOND_COUNTEREXAMPLE",
    "AuditResult",
    "EventBound",
    "MechanismPair",
    "COUNTEREXAMPLE_SETTINGS",
    "audit",
    "audit_pair",
    "audit_table",
    "bound_vs_n",
    "clopper_pearson",
    "delta_lower_bound",
    "epsilon_lower_bound",
    "histogram",
    "likelihood_ratios",
    "sample_pair",
    "svt_outputs",
    "SVT_OFFSETS",
]
