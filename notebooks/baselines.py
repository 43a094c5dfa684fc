import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="What ε and δ promise: Gaussian & Laplace",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import marimo as mo

    import dpcore
    from app import compute, lessons
    from app.figures import baselines as figs
    from app.lessons import md
    from app.notation import number

    return compute, dpcore, figs, lessons, md, mo, number


@app.cell
def _():
    # The app's pictures at one value of ε (app.decks): every stop of ε travels with the chart (app.slides), so the
    # slider under a picture redraws it in the browser; the controls above set the rest.
    from app.decks import accuracy as accuracy_at
    from app.decks import belief as belief_at
    from app.decks import densities as densities_at

    return accuracy_at, belief_at, densities_at


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # What ε and δ promise: the Gaussian and Laplace mechanisms

    **The idea in one sentence.** A differentially private answer is the true answer plus random noise, scaled so
    that no single person's data can change what the answer reveals by more than the budget ε allows.

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    Formally, a mechanism $M$ is $(\varepsilon, \delta)$-differentially private when, for any two data sets $D, D'$
    that differ in one person and every set of outputs $S$,

    $$\Pr[M(D) \in S] \;\le\; e^{\varepsilon}\,\Pr[M(D') \in S] + \delta .$$

    This lesson follows the app's *Gaussian & Laplace* page: first what the promise means for someone watching
    the output, then the two classic ways to keep it, how accurate they are, and what happens when you release many
    answers.
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("eps", "delta", "sens", "theta", "T", "calib")
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(md):
    md(r"""
    ## 1 · What ε means for an observer

    Suppose an observer believes with probability $p$ that Alice is in the data. After seeing one ε-DP answer,
    Bayes' rule and the $e^{\varepsilon}$ bound keep her **odds** within a factor $e^{\varepsilon}$ of what they were:

    $$\frac{p'}{1-p'} \;\le\; e^{\varepsilon}\,\frac{p}{1-p}.$$

    The shaded band is everywhere her belief can end up, whatever answer she sees.
    """)
    return


@app.cell
def _(belief_at, compute, lessons, md, mo, number, p):
    _table, _factor = compute.belief_table(p.eps)
    _half = _table.loc[_table["prior"] == 0.5, "largest_posterior"].item()
    mo.vstack(
        [
            lessons.slide(belief_at, "eps", p.eps, play=True),
            md(
                "The slider under each picture of this lesson (and Play here) moves ε and redraws "
                "that picture at once, "
                f"with no waiting; your controls above set everything else (δ = {number(p.delta)}, Δ "
                f"= {number(p.sens)}, "
                f"θ = {number(p.theta)}), and the numbers stay at the ε set there."
            ),
            md(
                f"At ε = {number(p.eps)} the odds can move by at most e^ε = **{number(_factor, 3)}×**: a "
                f"sceptic who gives 50 % to “Alice is in the data” ends at most at **{100 * _half:.1f} %**, whatever "
                "she sees."
            ),
        ]
    )
    return


@app.cell
def _(lessons):
    ex_odds = lessons.Exercise(
        question="At ε = 0.1, how far (in %) can one answer push the belief of an observer who starts at 50 %?",
        answer="52 %",
        hints=(
            "Move ε to 0.1 and read the highest belief after the answer above 50 % in the picture.",
            "The odds 1 : 1 grow by at most e^0.1, a factor just above 1.1; turn the new odds back into a percentage.",
        ),
        why="The odds 1 : 1 grow by at most e^0.1 ≈ 1.105, and 1.105 / 2.105 ≈ 52.5 %: a small ε barely moves "
        "anyone's belief.",
        solution=r"Posterior odds $\le e^{0.1}\cdot\frac{0.5}{0.5} = 1.10517$, so "
        r"$p' \le \frac{1.10517}{1 + 1.10517} = 0.52498$, i.e. **52.5 %**.",
    )
    odds_answer = ex_odds.input
    ex_odds.show(odds_answer)
    return ex_odds, odds_answer


@app.cell
def _(ex_odds, odds_answer):
    ex_odds.feedback(odds_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 2 · Two ways to keep the promise

    Both mechanisms add noise to the true answer $f(D)$; $\Delta$ is the most one person can change it.

    * **Laplace**: noise with density $\frac{1}{2b}e^{-|x|/b}$ and $b = \Delta/\varepsilon$ is ε-DP with δ = 0.
    * **Gaussian**: noise $\mathcal N(0, \sigma^2)$ is never pure DP; the *analytic* calibration
      (Balle & Wang 2018) finds the smallest σ with the exact δ(ε) at most δ. The textbook
      $\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon$ is proven only for ε < 1 and always noisier.

    The shaded band marks the answers within the error tolerance ±θ.
    """)
    return


@app.cell
def _(compute, densities_at, lessons, md, mo, number, p):
    _cal = compute.calibration(p.eps, p.delta, p.sens, p.calib)
    _, _summary = compute.sampled_outputs(p.eps, p.delta, p.sens, p.calib, p.theta, 0)
    _within = dict(zip(_summary["mechanism"], _summary["exact_within_theta"], strict=True))
    mo.vstack(
        [
            lessons.slide(densities_at, "eps", p.eps, p.delta, p.sens, p.calib, p.theta),
            md(
                f"At these settings the Gaussian needs σ = **{number(_cal.sigma, 4)}** and the Laplace b = "
                f"**{number(_cal.laplace_scale, 4)}**. A release lands within ±θ = {number(p.theta)} of the "
                f"truth with probability **{_within['gaussian']:.4f}** (Gaussian) and "
                f"**{_within['laplace']:.4f}** (Laplace)."
            ),
        ]
    )
    return


@app.cell
def _(accuracy_at, lessons, p):
    lessons.slide(accuracy_at, "eps", p.eps, p.theta, p.delta, p.sens, p.calib)
    return


@app.cell
def _(lessons):
    ex_sigma = lessons.Exercise(
        question="With ε = 0.5, δ = 10⁻⁵ and Δ = 2 (analytic calibration), how large is σ? Set the sliders and "
        "read it off.",
        answer="14.06",
        hints=(
            "Set ε = 0.5, Δ = 2 and δ = 10⁻⁵ in the sidebar and read σ under the noise picture.",
            "σ grows exactly in proportion to Δ, so at Δ = 2 it is twice σ at Δ = 1. In ε it is not proportional to "
            "1/ε: halving ε from 1 takes σ from 3.73 to a little less than double. Read σ at ε = 0.5, Δ = 1 first.",
        ),
        why="σ is proportional to Δ (7.03 at Δ = 1 becomes 14.06 at Δ = 2). In ε the analytic Gaussian grows a "
        "little slower than 1/ε: 3.73 at ε = 1 and 7.03, not 7.46, at ε = 0.5.",
        solution="σ(ε = 0.5, δ = 10⁻⁵, Δ = 2) = 2 · σ(0.5, 10⁻⁵, 1) = 2 · 7.032 = **14.06**; the Laplace scale is "
        "b = Δ/ε = **4**.",
    )
    sigma_answer = ex_sigma.input
    ex_sigma.show(sigma_answer)
    return ex_sigma, sigma_answer


@app.cell
def _(ex_sigma, sigma_answer):
    ex_sigma.feedback(sigma_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · One mechanism, a whole curve of guarantees

    A calibrated mechanism is not only $(\varepsilon, \delta)$-DP: for every $\varepsilon'$ it is
    $(\varepsilon', \delta(\varepsilon'))$-DP, where the *privacy profile* $\delta(\varepsilon')$ is the largest
    gap $\Pr[M(D)\in S] - e^{\varepsilon'}\Pr[M(D')\in S]$. Both curves pass through (or below) the target ×.
    """)
    return


@app.cell
def _(compute, figs, p):
    figs.profiles(compute.profiles(p.eps, p.delta, p.sens, p.calib), epsilon=p.eps, delta=p.delta)
    return


@app.cell
def _(md):
    md(r"""
    ## 4 · Many releases: composition

    Releasing $T$ answers about the same people spends more budget. Adding up the ε's (*basic composition*,
    $T\varepsilon$) is safe but far too pessimistic; counting exactly — in closed form for the Gaussian
    ($T$ releases with noise σ are one release with sensitivity $\sqrt{T}\,\Delta$), through the privacy-loss
    distribution for Laplace — gives totals that grow roughly like $\sqrt T$.
    """)
    return


@app.cell
def _(compute, figs, md, mo, number, p):
    _total = compute.composed_epsilons(p.eps, p.delta, p.sens, p.calib, p.T)
    mo.vstack(
        [
            figs.composition(
                compute.composition(p.eps, p.delta, p.sens, p.calib, compute.composition_range(p.T)),
                compositions=p.T,
                delta=p.delta,
            ),
            md(
                f"After T = {p.T} releases at δ = {number(p.delta)}: Gaussian "
                f"**{number(_total.gaussian, 4)}**, Laplace **{number(_total.laplace, 4)}**, against the naive "
                f"{p.T} × {number(p.eps)} = {number(p.T * p.eps)}."
            ),
        ]
    )
    return


@app.cell
def _(lessons):
    ex_compose = lessons.Exercise(
        question="Which mechanism spends the smaller total ε over T = 100 releases at ε = 1, δ = 10⁻⁵ each?",
        answer="Gaussian",
        options=("Gaussian", "Laplace", "the same"),
        hints=(
            "Set T = 100 and compare the two totals under the composition chart.",
            "Exact accounting of one of them grows like √T, the other's faster at this δ: which bell-shaped noise "
            "adds up most gently?",
        ),
        why="Gaussian noise composes best: 100 releases cost about ε = 14.4 at δ = 10⁻⁵, Laplace about 68.3, the "
        "naive sum 100.",
        solution="Set ε = 1, δ = 10⁻⁵, T = 100 and read the totals: Gaussian **14.43**, Laplace **68.26**.",
    )
    compose_answer = ex_compose.input
    ex_compose.show(compose_answer)
    return compose_answer, ex_compose


@app.cell
def _(compose_answer, ex_compose):
    ex_compose.feedback(compose_answer)
    return


@app.cell
def _(lessons, p):
    lessons.app_link("baselines", p, text="Open the Gaussian & Laplace page with these settings")
    return


@app.cell
def _(md):
    md(r"""
    ## Reproduce: the reference numbers

    Each line is recomputed now and checked against an independent value: the published calibration constants,
    the exact profile at the target, the Gaussian accountant of Google's *dp-accounting* library, and the sampling
    error of 100 000 seeded draws.
    """)
    return


@app.cell
def _(compute, dpcore, lessons, md, mo, number, p):
    _cal1 = dpcore.calibrate(1.0, 1e-5, sensitivity=1.0)
    _classic = dpcore.gaussian_sigma(1.0, 1e-5, method="classic")
    _cal = compute.calibration(p.eps, p.delta, p.sens, p.calib)
    _exact_delta = float(dpcore.gaussian_delta(p.eps, sigma=_cal.sigma, sensitivity=p.sens))
    _total = compute.composed_epsilons(p.eps, p.delta, p.sens, p.calib, p.T)
    _ref = compute.gaussian_reference_epsilon(_cal.sigma, p.sens, p.T, p.delta)
    _, _summary = compute.sampled_outputs(p.eps, p.delta, p.sens, p.calib, p.theta, 0)
    _gap = (_summary["empirical_within_theta"] - _summary["exact_within_theta"]).abs().max()
    _se = _summary["standard_error"].max()
    mo.vstack(
        [
            lessons.check(
                lessons.close(_cal1.sigma, 3.73063, rel=1e-5),
                f"analytic σ(ε = 1, δ = 10⁻⁵) = {_cal1.sigma:.5f}, as in Balle & Wang (2018)",
            ),
            lessons.check(
                lessons.close(_classic, 4.84481, rel=1e-5), f"classic σ(1, 10⁻⁵) = Δ√(2 ln(1.25/δ))/ε = {_classic:.5f}"
            ),
            lessons.check(
                lessons.close(_cal1.laplace_scale, 0.999980, rel=1e-5),
                f"Laplace b(1, 10⁻⁵) = {_cal1.laplace_scale:.6f} (ε′ = ε − 2 ln(1 − δ))",
            ),
            lessons.check(
                abs(_exact_delta - p.delta) <= 1e-9 * p.delta,
                f"the analytic σ meets the target exactly: δ({number(p.eps)}) = {number(_exact_delta, 4)}",
            )
            if p.calib == "analytic"
            else md(
                f"ℹ The classic σ is proven only for ε < 1: at ε = {number(p.eps)} its exact δ is "
                f"{number(_exact_delta, 3)} against the target {number(p.delta)}"
                + (" — it does **not** keep the promise here." if _exact_delta > p.delta * (1 + 1e-9) else ".")
            ),
            lessons.check(
                abs(_total.gaussian - _ref) < 1e-2,
                f"exact Gaussian total ε after T = {p.T} agrees with Google's dp-accounting library "
                f"({_total.gaussian:.4f} vs {_ref:.4f})",
            )
            if _ref is not None
            else md(
                f"ℹ The total ε = {number(_total.gaussian, 5)} is past 709, where e^ε no longer fits in "
                "ordinary floating point: the dp-accounting library cannot follow it there, so this lesson does not "
                "compare (its own totals are computed in log space)."
            ),
            lessons.check(
                _gap < 4 * _se + 1e-12,
                f"sampled share within ±θ matches the exact one (largest gap {_gap:.4f} < 4 standard errors)",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
