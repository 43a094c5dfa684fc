"""The glossary: one plain-words entry per recurring term; catalogue parameters and pages point to it by term."""

from __future__ import annotations

#: Plain-language glossary: term → one or two sentences.
GLOSSARY: dict[str, str] = {
    "ε (epsilon)": "The privacy-loss budget. For any two data sets that differ in one person, every output is at "
    "most e^ε times as likely under one as under the other: smaller ε, stronger privacy, more noise.",
    "δ (delta)": "A small slack added to the e^ε promise: Pr[M(D) ∈ S] ≤ e^ε·Pr[M(D′) ∈ S] + δ for every set of "
    "outputs S. Keep it far below 1/(number of people).",
    "sensitivity Δ": "The most one person can change the true answer of the query (1 for a count). Noise is scaled "
    "to Δ/ε: double Δ and the noise doubles.",
    "Laplace mechanism": "Adds Laplace noise Lap(b), density e^(−|x|/b)/(2b), to the answer. With b = Δ/ε it is "
    "ε-DP with δ = 0 (pure DP).",
    "Gaussian mechanism": "Adds normal noise N(0, σ²) to the answer. A calibrated σ (analytic: Balle & Wang 2018; "
    "classic: Δ√(2 ln(1.25/δ))/ε, proven for ε < 1) makes it (ε, δ)-DP; it is never pure DP (δ > 0).",
    "composition": "Running several DP mechanisms on the same data adds up privacy loss. Basic composition sums the "
    "ε's and δ's; tighter accountants (advanced composition, zCDP, PLD) give totals that grow roughly like √T.",
    "privacy profile": "The whole curve δ(ε) of guarantees one mechanism meets: for each ε, the smallest δ for which "
    "it is (ε, δ)-DP. It equals the largest hockey-stick divergence between the outputs on neighbouring data sets.",
    "hockey-stick divergence": "The largest gap P(S) − e^ε·Q(S) over all sets of outputs S, for the output laws P and "
    "Q on two neighbouring "
    "data sets. A mechanism is (ε, δ)-DP "
    "exactly when this is at most δ for the output laws P, Q of every pair of neighbouring data sets.",
    "privacy loss": "For an output y, the log-ratio ln(P(y)/Q(y)) of its probabilities under two neighbouring data "
    "sets. ε-DP says it never exceeds ε; (ε, δ)-DP roughly lets it exceed ε with probability about δ.",
    "PLD": "Privacy-loss distribution: the law of the privacy loss when y is drawn from the mechanism. Composing "
    "mechanisms convolves their PLDs, which gives the tight total δ(ε) (Google's dp-accounting library does this).",
    "zCDP": "Zero-concentrated DP with parameter ρ: the Rényi divergence of every order a > 1 between neighbouring "
    "outputs is at most ρ·a. ρ's add up under composition. The app turns ρ into (ε, δ) with the tight bound of "
    "Canonne, Kamath & Steinke (2020); the Accuracy-first filters keep their paper's ρ + 2√(ρ ln(1/δ)).",
    "ex-post privacy": "The privacy loss actually paid for the outcome that happened, as opposed to the worst case "
    "declared in advance. A mechanism that stops as soon as its answer is accurate enough pays only the ex-post ε "
    "of the level where it stopped.",
    "privacy filter": "An accountant that refuses the next query if answering it could push the total privacy loss "
    "past a fixed budget, even when the analyst chooses queries and their budgets adaptively.",
    "sparse vector technique": "Compares a long stream of noisy query answers with a noisy threshold and pays "
    "privacy only for the (at most c) answers reported above the threshold, not for the many below it.",
    "local DP": "Each person randomises their own data before sending it, so nobody — not even the collector — "
    "sees a raw value. An ε-LDP answer is at most e^ε times likelier under any one input than under any other.",
    "randomized response": "Report your true answer with probability e^ε/(1 + e^ε) and the opposite one otherwise. "
    "It is the classic ε-local-DP mechanism for a yes/no question.",
    "realized privacy loss": "What one concrete transcript of answers reveals: ln of the largest over the smallest "
    "likelihood of those answers across all possible true values. It is often far below the worst-case sum of ε's.",
    "usefulness": "The probability that the released answer is within the tolerated error γ of the truth, "
    "U(γ) = P(|noise| ≤ γ) (the R²DP paper's accuracy measure); higher is better. γ is the same idea as the error "
    "tolerance θ of the other pages, in the R²DP paper's own letter.",
    "error tolerance": "How far from the truth an answer may be and still count as accurate: θ on the Gaussian & "
    "Laplace, BR-DP and negotiation pages, γ on the R²DP page, α in the SVT paper's (α, β)-accuracy — each paper's "
    "own letter for the same idea. On the Accuracy-first page the tolerance is relative, η: an answer is accurate "
    "when its error is at most η times the true value.",
    "unbiased estimate": "An estimate that is right on average: repeated over many classes, its errors cancel out. "
    "The class poll's estimate of the share of Yes is unbiased, so it can fall a little below 0 % or above 100 %.",
    "confidence interval": "A range computed from the answers that holds the true value in 95 % of the polls it is "
    "computed for. The more private each answer, the wider it gets for the same number of answers.",
}
