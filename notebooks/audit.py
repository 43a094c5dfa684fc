import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="The privacy audit: catching a mechanism that leaks",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import math

    import marimo as mo

    from app import lessons
    from app.compute import audit as compute
    from app.figures import audit as figs
    from app.lessons import md
    from app.notation import number
    from dpcore import audit, mechanisms

    return audit, compute, figs, lessons, math, md, mechanisms, mo, number


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # The privacy audit: catching a mechanism that leaks

    **The idea in one sentence.** Run a mechanism many times on two data sets $D, D'$ that differ in one person;
    if some outcome $S$ is far likelier on one than on the other, likelier than its $(\varepsilon, \delta)$ allows,
    the privacy claim is false.

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    An $(\varepsilon, \delta)$-DP mechanism promises $\Pr[M(D) \in S] \le e^{\varepsilon}\Pr[M(D') \in S] + \delta$
    for every outcome $S$. We cannot see the probabilities, only counts of outputs; exact (Clopper–Pearson)
    confidence bounds $P_{lo} \le \Pr[M(D) \in S]$ and $P'_{hi} \ge \Pr[M(D') \in S]$ turn counts into a
    **lower bound** on the true ε that holds with the confidence we choose:

    $$\varepsilon \;\ge\; \varepsilon_{lb} = \ln\frac{P_{lo} - \delta}{P'_{hi}}.$$

    If $\varepsilon_{lb}$ exceeds the claimed ε, the claim is false. The outcome $S$ is chosen on half of the
    outputs and counted on the other half, so choosing it costs nothing in confidence (Jagielski, Ullman & Oprea
    2020; Ding et al. 2018).
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("mech", "eps", "delta", "sens", "draws", "level", "seed")
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(compute, figs, md, mechanisms, mo, number, p):
    view = compute.run(p.mech, p.eps, p.delta, p.sens, p.draws, p.seed, p.level, 1.0, 0.6, False)
    _text1 = md(f"""
    ## 1 · Two output laws, one person apart

    The histograms show the outputs of **{mechanisms.display_name(p.mech)}** on $D$ and on $D'$. Where they differ
    most, one person's data shows. The shaded outcome is the one the audit picked.
    """)
    _chart = figs.outputs(view.histogram, view.event, mechanism=p.mech, discrete=view.discrete)
    _r = view.result
    _verdict = (
        "**a violation**: the claim is false"
        if _r.caught
        else "**consistent**: no outcome beats the claim at this number of outputs (evidence, not proof)"
    )
    _text2 = md(f"""
    The mechanism claims ε = {number(_r.claimed_epsilon, 4)} (δ = {number(_r.claimed_delta, 3)}). From
    {p.draws:,} outputs per data set the audit proves, with {100 * p.level:.1f} % confidence, that the true ε is at
    least **{number(_r.epsilon_lb, 4)}** and the true δ at the claimed ε at least **{number(_r.delta_lb, 3)}**.
    Verdict: {_verdict}.
    """)
    mo.vstack([_text1, _chart, _text2])
    return (view,)


@app.cell
def _(md):
    md(r"""
    ## 2 · The privacy loss of each output

    For each bin of outputs, $\ln\frac{\Pr[M(D)\in \text{bin}]}{\Pr[M(D')\in\text{bin}]}$ estimated from the
    counts, with confidence whiskers. Pure ε-DP keeps every bin inside the ±ε band.
    """)
    return


@app.cell
def _(figs, view):
    figs.ratios(view.ratios, epsilon=view.result.claimed_epsilon, discrete=view.discrete)
    return


@app.cell
def _(lessons):
    ex_rr = lessons.Exercise(
        question="Randomized response at ε = 1 reports the truth with probability e^ε/(1 + e^ε). What is that "
        "probability (in %)?",
        answer="73 %",
        hints=(
            "The truth is reported with probability e^ε/(1 + e^ε); put ε = 1 into it.",
            "e is about 2.72, so the probability is 2.72 divided by 3.72.",
        ),
        why="e/(1 + e) ≈ 0.731: the report is the truth 73 % of the time, and the ratio of the two reports' "
        "likelihoods is exactly e^1, so the audit's bound can approach 1 but never pass it.",
        solution=r"$\frac{e^{1}}{1 + e^{1}} = \frac{2.71828}{3.71828} = 0.73106$, i.e. **73.1 %**.",
    )
    rr_answer = ex_rr.input
    ex_rr.show(rr_answer)
    return ex_rr, rr_answer


@app.cell
def _(ex_rr, rr_answer):
    ex_rr.feedback(rr_answer)
    return


@app.cell
def _(lessons):
    ex_ce = lessons.Exercise(
        question="BR-DP calibrated by the paper's accountant at ε = 0.1, δ = 0.001, acceptance region 0.1, Δ = 5: "
        "what does the audit say?",
        answer="a violation",
        options=("a violation", "consistent"),
        hints=(
            "Where can an output land when every answer outside the acceptance region is redrawn?",
            "The two data sets' true answers are 5 apart, and every output lies within 0.1 of its true answer.",
        ),
        why="With q = 1 the outputs on the two data sets never overlap: one output reveals the person, so the audit "
        "proves δ close to 1 against the 0.00067 the paper's accountant certifies.",
        solution="The acceptance region ±0.1 around 0 and around 5 do not meet, and every answer outside is redrawn "
        "(q = 1), so P(output near 0 | D) = 1 and P(output near 0 | D′) = 0. Section 3 below runs it.",
    )
    ce_answer = ex_ce.input
    ex_ce.show(ce_answer)
    return ce_answer, ex_ce


@app.cell
def _(ce_answer, ex_ce):
    ex_ce.feedback(ce_answer)
    return


@app.cell
def _(lessons, p):
    lessons.app_link("audit", p)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · Reproduce: every honest mechanism passes, the paper's BR-DP accountant is caught

    Each line below is checked when the lesson runs (a failed check stops it).
    """)
    return


@app.cell
def _(audit, compute, lessons, math, mo, number):
    _n, _seed = 100_000, 2024
    _table = audit.audit_table(epsilon=1.0, delta=1e-5, n=_n, rng=_seed, alpha=0.05)
    _honest = _table.iloc[:-1]
    _ce = audit.COUNTEREXAMPLE
    _v = compute.run(
        "brdp_paper",
        _ce["epsilon"],
        _ce["delta"],
        _ce["sensitivity"],
        _n,
        _seed,
        0.95,
        _ce["theta"],
        _ce["epsilon_y"] / _ce["epsilon"],
        False,
    )
    _lap = compute.run("laplace", 1.0, 1e-5, 1.0, _n, _seed, 0.95, 1.0, 0.6, True)
    mo.vstack(
        [
            lessons.check(
                bool((_honest["epsilon_lb"] <= _honest["claimed_epsilon"] * (1 + 1e-9)).all()),
                f"all {len(_honest)} honest mechanisms keep their ε lower bound at or below the claim",
            ),
            lessons.check(
                _table["caught"].tolist() == [False] * len(_honest) + [True],
                "only BR-DP with the paper's accountant, at its counterexample, is caught",
            ),
            lessons.check(
                _v.result.caught and _v.result.delta_lb > 0.99,
                f"the audit proves δ ≥ {_v.result.delta_lb:.3f} where the paper's accountant prints "
                f"{number(_v.result.paper_delta, 2)} (exact δ = {number(_v.result.exact_delta, 3)})",
            ),
            lessons.check(
                float(_lap.curve["epsilon_lb"].max()) <= 1.0 and math.isfinite(_lap.result.epsilon_lb),
                "Laplace at ε = 1: the bound climbs with more outputs but never passes the claim",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
