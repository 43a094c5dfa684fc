import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="Accuracy first: noise reduction and privacy filters",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import math

    import marimo as mo

    from app import lessons
    from app.compute import noise_reduction as compute
    from app.figures import noise_reduction as figs
    from app.lessons import md
    from app.notation import number
    from dpcore import filters as fl
    from dpcore import noise_reduction as nr

    return compute, figs, fl, lessons, math, md, mo, nr, number


@app.cell
def _():
    # The app's picture at one stop of η (app.decks): every stop travels with the chart (app.slides), so the slider
    # under it redraws it in the browser; the controls above set the rest.
    from app.decks import noise_reduction_idea as idea_at

    return (idea_at,)


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # Accuracy first: noise reduction and privacy filters

    **The idea in one sentence.** Instead of fixing the privacy budget and living with the noise it gives, release a
    very noisy answer, remove noise step by step, and stop as soon as the answer is accurate enough: you pay only for
    the noise level where you stopped.

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    A *Brownian noise reduction* releases the true count $y$ plus noise at increasing levels
    $\varepsilon_1 < \varepsilon_2 < \dots$ (less noise at each step), with the noise values coupled through one
    Brownian motion $B$:

    $$\hat y_k = y + B(1/\varepsilon_k^2), \qquad
    \operatorname{Var}\big(B(1/\varepsilon_k^2)\big) = 1/\varepsilon_k^2 .$$

    If it stops at level $\varepsilon_T$, the whole sequence of answers leaks no more than the last one alone: it
    costs $\rho_T = \varepsilon_T^2/2$ in zero-concentrated DP, whatever rule chose when to stop
    (Rogers, Samorodnitsky, Wu & Ramdas, NeurIPS 2023). A **privacy filter** then adds up such costs, and ordinary
    ones, under one overall $(\varepsilon, \delta)$ budget, refusing anything that could overrun it.

    This lesson follows the app's *Accuracy first* page.
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("eps", "delta", "eta", "y", "K", "spacing", "process", "m", "const", delta=1e-6)
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(p):
    variant = "as_printed" if p.const == "printed" else "corrected"
    grid_args = (p.eps, p.delta, variant, p.K, p.spacing)
    return grid_args, variant


@app.cell
def _(md):
    md(r"""
    ## 1 · One noise reduction, stopped when accurate

    The analyst wants the count within a relative error $\eta$: $|\hat y / y - 1| < \eta$. She never sees $y$, only
    the released $\hat y$ and the level $\varepsilon$, whose noise has standard deviation $1/\varepsilon$. The paper's
    rule accepts $\hat y$ once $y$ is within $\eta$ even at one standard deviation away,

    $$1 - \eta < \left|\frac{\hat y + 1/\varepsilon}{\hat y - 1/\varepsilon}\right| \le 1 + \eta
    \quad\text{and}\quad |\hat y| > 1/\varepsilon
    \qquad\Longleftrightarrow\qquad \hat y\,\varepsilon \ge \frac{2 + \eta}{\eta} \ \ (\hat y > 0).$$

    The picture shows one path: the released value homes in on $y$ as $\varepsilon$ grows; the × is where the rule
    fired. Everything to its right is never released, so it is never paid for.
    """)
    return


@app.cell
def _(compute, figs, grid_args, idea_at, lessons, md, mo, number, p, variant):
    _chart1 = lessons.slide(idea_at, "eta", p.eta, grid_args, p.y, 0, play=True)
    _slider = lessons.slider_note(
        "η",
        f"ε = {number(p.eps)}, δ = {number(p.delta)}, y = {number(p.y)}, the grid of noise levels",
        play=True,
        stays="the numbers below stay",
    )
    _b = compute.budget(p.eps, p.delta, variant)
    _hist, _summ = compute.stopping(*grid_args, p.y, p.eta, p.process, 0)
    _unit = "ρ_T" if p.process == "brownian" else "ε_T"
    _text = md(
        f"Over {compute.N_RUNS} runs of this release of y = {number(p.y)}, the median run stopped at ε_T = "
        f"**{number(_summ.median_epsilon_stop, 4)}** and paid **{number(_summ.median_charge, 4)}** "
        f"({_unit}); a release that never stopped would pay **{number(_summ.worst_charge, 4)}**, which for "
        f"Brownian noise is the whole budget ρ* = {number(_b.rho, 4)}. {100 * _summ.accepted:.0f} % of the runs "
        f"reached the tolerance, and {100 * _summ.precision:.0f} % of those were really within η (the rule only sees "
        "ŷ, so a few slip through)."
    )
    _chart2 = figs.stopping(_hist, worst=_summ.worst_charge, mechanism=p.process)
    # the picture's slider at the next stops of ε, built by the worker while the reader looks
    _next = [((_q.eps, *grid_args[1:]), p.y, 0) for _q in lessons.neighbours(p, "eps")]
    lessons.slides_ahead(idea_at, "eta", *_next, play=True)
    mo.vstack([_chart1, _slider, _text, _chart2])
    return


@app.cell
def _(lessons):
    ex_stop = lessons.Exercise(
        question="With η = 0.1, at which noise level ε does the rule accept a release of a count y = 1000 that happens "
        "to land exactly on ŷ = 1000? (Give ε.)",
        answer="0.021",
        hints=(
            "The rule accepts once ŷ·ε reaches (2 + η)/η.",
            "With η = 0.1 the right-hand side is 21; divide it by the count.",
        ),
        why="ŷ·ε must reach (2 + η)/η = 21, so ε = 21/1000 = 0.021; the release then costs only ε²/2 ≈ 0.00022 of "
        "zCDP budget.",
        solution=r"$\hat y\,\varepsilon \ge (2+\eta)/\eta = 2.1/0.1 = 21$, so "
        r"$\varepsilon = 21/1000 = 0.021$ and $\rho_T = \varepsilon^2/2 = 0.0002205$. "
        "A count ten times smaller needs a level ten times larger and pays a hundred times more.",
    )
    stop_answer = ex_stop.input
    ex_stop.show(stop_answer)
    return ex_stop, stop_answer


@app.cell
def _(ex_stop, stop_answer):
    ex_stop.feedback(stop_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 2 · Why only the last level costs privacy

    Run the clock in $s = \varepsilon^2$ (the precision). Then $W(s) = s\,(\hat y(s) - y)$ is an ordinary Brownian
    motion, and the privacy loss of the released path against a neighbour with count $y - u$ ($u = \pm 1$) is

    $$\mathcal L(s) = \frac{s}{2} + u\,W(s),$$

    a Brownian motion with drift ½: exactly the loss of **one** Gaussian release with $\rho = s/2$, at whatever
    level $s_T = \varepsilon_T^2$ the stopping rule picked (the paper's Theorem 4). The earlier, noisier answers add
    nothing, because the last one already contains everything they said.
    """)
    return


@app.cell
def _(compute, figs, grid_args, p):
    _inv, _ = compute.inversion(*grid_args, p.y, p.eta, 1, 0)
    figs.inversion(_inv, direction=1)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · One budget for many releases: the privacy filter

    The filter turns the overall $(\varepsilon, \delta)$ into a zCDP budget $\rho^*$, the largest $\rho$ with
    $\rho + 2\sqrt{\rho \ln(1/\delta)} \le \varepsilon$:

    $$\rho^* = \left(\sqrt{\ln(1/\delta) + \varepsilon} - \sqrt{\ln(1/\delta)}\right)^2 .$$

    A request may start only if its **worst case** still fits: an ordinary Gaussian release its $\rho_n$, a noise
    reduction its largest level, $\varepsilon_{\max}^2/2$. Once a noise reduction has stopped it is charged only
    $\varepsilon_T^2/2$, and the rest goes back to the pool. The whole run is then $(\varepsilon, \delta)$-DP however
    the analyst chose her requests (Theorem 6).

    The picture releases a queue of $m$ counts $y, y/2^{0.75}, y/3^{0.75}, \dots$ under one budget: by noise reduction,
    and by the *doubling* baseline, which draws fresh Gaussian answers with twice the $\varepsilon^2$ each time and
    pays for every failed try.
    """)
    return


@app.cell
def _(compute, figs, grid_args, md, mo, number, p, variant):
    _odo = compute.odometer(*grid_args, p.y, p.eta, p.m, 0)
    _b = compute.budget(p.eps, p.delta, variant)
    _chart = figs.odometer(_odo, budget=_b.rho)
    _got = compute.odometer_summary(_odo)
    _text = md(
        f"With ε = {number(p.eps)} and δ = {number(p.delta)} the filter's budget is ρ* = "
        f"**{number(_b.rho)}**. Of the m = {p.m} counts, noise reduction returns **{_got.noise_reduction}** "
        f"and doubling **{_got.doubling}** within η = {number(p.eta)}."
    )
    mo.vstack([_chart, _text])
    return


@app.cell
def _(lessons):
    ex_rho = lessons.Exercise(
        question="The paper's experiments use ε = 10 and δ = 10⁻⁶. What zCDP budget ρ* does the filter get?",
        answer="1.35301",
        hints=(
            "Set ε = 10 and δ = 10⁻⁶ and read ρ* above the filter's picture.",
            "ρ* = (√(ln(1/δ) + ε) − √ln(1/δ))², and ln(10⁶) is about 13.8.",
        ),
        why="ρ* = (√(ln 10⁶ + 10) − √ln 10⁶)² = (4.88012 − 3.71692)² = 1.35301, so the squared levels of all "
        "releases may add up to 2ρ* ≈ 2.706: the paper's “roughly 2.705”.",
        solution=r"$L = \ln 10^6 = 13.8155$, $\rho^* = (\sqrt{23.8155} - \sqrt{13.8155})^2 = (4.88012 - 3.71692)^2 "
        r"= 1.35301$.",
    )
    rho_answer = ex_rho.input
    ex_rho.show(rho_answer)
    return ex_rho, rho_answer


@app.cell
def _(ex_rho, rho_answer):
    ex_rho.feedback(rho_answer)
    return


@app.cell
def _(md):
    md(r"""
    **Laplace noise reduction** costs a plain $\varepsilon_T$, not a zCDP $\rho$, so it cannot join this filter.
    The paper's Theorem 3 runs two filters side by side instead: a zCDP filter with budget from $(\varepsilon,
    \delta)$ and an *ex-post* filter that adds up the $\varepsilon_T$'s against its own budget $\varepsilon'$.
    Whatever order the requests come in, the pair is $(\varepsilon + \varepsilon', \delta)$-DP. Below: odd counts of
    the queue as one-shot Gaussian releases, even ones as Laplace noise reductions, with $\varepsilon' = 1$.
    """)
    return


@app.cell
def _(compute, figs, p):
    _df, _cs = compute.concurrent(p.eps, p.delta, 1.0, p.y, p.eta, p.m, p.K, 0)
    figs.concurrent(_df, rho_budget=_cs.rho_budget, expost_budget=_cs.expost_budget)
    return


@app.cell
def _(md):
    md(r"""
    ## 4 · What the filter really spends

    Simulate many complete filter runs (Gaussian releases mixed with noise reductions that stop adaptively, until
    the budget is gone) and add up each run's privacy loss against a worst-case neighbour. Theorem 6 says the total is
    no worse than one Gaussian release with zCDP $\rho^*$: its loss is $\mathcal N(\rho^*, 2\rho^*)$, the black curve.
    """)
    return


@app.cell
def _(compute, figs, p, variant):
    _hist, _curve, _summ = compute.loss_distribution(p.eps, p.delta, variant, p.y, p.eta, 0)
    figs.loss_distribution(_hist, _curve, epsilon=p.eps, rho=_summ.rho)
    return


@app.cell
def _(md):
    md(r"""
    ## 5 · Noise reduction against doubling, count by count

    The cost of one accurate count, in $\varepsilon^2$: an oracle that knew $y$ would pay
    $((2+\eta)/(\eta y))^2$. Noise reduction pays close to it for the counts its grid can tell apart; doubling pays
    for every failed try, about 2–3× more there. But the grid is even in $\varepsilon^2$: a count that needs less
    than its first step, about $2.7/K$, still pays that step, while doubling starts at $\varepsilon^2 = 10^{-4}$ and
    pays less. So on the right of the picture, for large counts, doubling wins, and more levels $K$ push that point
    further right (the paper uses $K = 1000$). (The budget here is the paper's, $\sum \varepsilon^2 \le 2.706$.)
    """)
    return


@app.cell
def _(compute, figs, lessons, p):
    figs.costs(lessons.remember(compute.costs, p.K, p.eta, p.y, 0), value=p.y)
    return


@app.cell
def _(lessons):
    ex_printed = lessons.Exercise(
        question="The paper's Theorem 6 prints the constant 2√(2ρ ln(1/δ)) where its proof gives 2√(ρ ln(1/δ)). At "
        "ε = 10, δ = 10⁻⁶, what does the printed constant do to the budget ρ*?",
        answer="it shrinks by about 43 %",
        options=("it grows by about 43 %", "it shrinks by about 43 %", "nothing: the two are equal"),
        hints=(
            "A larger constant charges more privacy for the same ρ: does more or less ρ then fit under ε?",
            "Set the constant to “as printed” and watch ρ* in the numbers above.",
        ),
        why="With the printed constant ρ* = (√(2L + ε) − √(2L))² = 0.770693 instead of 1.35301: still safe (it "
        "overstates the cost), but 43 % of the budget is wasted. Set the constant to *as printed* and watch fewer "
        "counts fit.",
        solution=r"$2L = 27.631$, $\rho^*_{\text{printed}} = (\sqrt{37.631} - \sqrt{27.631})^2 = 0.770693$; "
        r"$1 - 0.770693/1.353015 = 43\,\%$.",
    )
    printed_answer = ex_printed.input
    ex_printed.show(printed_answer)
    return ex_printed, printed_answer


@app.cell
def _(ex_printed, printed_answer):
    ex_printed.feedback(printed_answer)
    return


@app.cell
def _(lessons, p):
    lessons.app_link("noise_reduction", p, text="Open the Accuracy first page with these settings")
    return


@app.cell
def _(md):
    md(r"""
    ## Reproduce the paper

    Each line is recomputed now and checked against an independent value: a closed form worked by hand here, the
    paper's own numbers (Section 7.2), or an independent re-implementation of its experiments (1000 trials of
    Figure 3; 20 000 draws per count).
    """)
    return


@app.cell
def _(compute, fl, lessons, math, mo, nr):
    _L = math.log(1e6)
    _rho = (math.sqrt(_L + 10.0) - math.sqrt(_L)) ** 2  # by hand: ρ + 2√(ρL) = 10
    _printed = (math.sqrt(2 * _L + 10.0) - math.sqrt(2 * _L)) ** 2
    _thm6 = 0.5 + 2 * math.sqrt(0.5 * _L)  # 100 stops at ε² = 0.01: ρ = 0.5
    _curves = compute.composition_curves(1e-6).set_index("m").loc[100.0]
    _costs = compute.paper_costs(0).set_index("value")
    _ref_costs = {
        30: (0.4911, 1.6078),
        50: (0.1780, 0.4309),
        100: (0.04565, 0.1077),
        200: (0.01240, 0.02685),
        500: (0.00281, 0.00579),
    }
    mo.vstack(
        [
            lessons.check(
                lessons.close(2 * float(fl.rho_budget(10.0, 1e-6)), 2.706029, rel=1e-6)
                and lessons.close(float(fl.rho_budget(10.0, 1e-6)), _rho, rel=1e-12),
                "the experiments' budget Σε² = 2ρ*(10, 10⁻⁶) = 2.706029, the paper's “roughly 2.705”",
            ),
            lessons.check(
                lessons.close(float(fl.rho_budget(10.0, 1e-6, variant="as_printed")), _printed, rel=1e-12),
                f"with Theorem 6's printed constant the budget would be 2ρ* = {2 * _printed:.6f} (1.541386)",
            ),
            lessons.check(
                lessons.close(float(nr.em_rho(0.1)), 0.1**2 / 8, rel=1e-12),
                "the exponential mechanism with ε_EM = 0.1 costs ε_EM²/8 = 0.00125 in zCDP (Section 7.2)",
            ),
            lessons.check(
                bool(nr.relative_error_stop(21.0, 1.0, alpha=0.1)) and not nr.relative_error_stop(20.9, 1.0, alpha=0.1),
                "the stopping rule fires exactly when ŷ·ε ≥ (2 + η)/η = 21 at η = 0.1",
            ),
            lessons.check(
                lessons.close(1.0 / float(nr.zipf_probabilities(0.75, 300)[0]), 13.212814, rel=1e-7),
                "Figure 2's Zipf law: p_k = k^(−0.75)/13.212814 on items 1–300",
            ),
            lessons.check(
                lessons.close(float(_curves["thm6"]), _thm6, rel=1e-9)
                and _curves["thm5"] > _curves["thm6"]
                and _curves["basic"] > 10 * _curves["thm5"],
                f"100 noise reductions stopped at ε² = 0.01: Theorem 6 gives ε = {_thm6:.4f}, Theorem 5 with its "
                f"drift {_curves['thm5']:.4f}, adding single bounds {_curves['basic']:.1f}",
            ),
            lessons.check(
                all(
                    abs(_costs.loc[y, "bm_cost"] / c[0] - 1) < 0.1
                    and abs(_costs.loc[y, "doubling_cost"] / c[1] - 1) < 0.1
                    for y, c in _ref_costs.items()
                ),
                "the cost of one count at the paper's settings matches an independent simulation within 10 % "
                "(2000 draws here)",
            ),
        ]
    )
    return


@app.cell
def _(compute, figs, lessons, mo):
    _fig3 = compute.figure3(50, "corrected", 0)
    _res = _fig3.pivot(index="n", columns="method", values="results_mean")
    _ref = compute.figure3_reference().pivot(index="n", columns="method", values="results_mean")
    _gap = float(((_res - _ref).abs() / _ref).max().max())
    mo.vstack(
        [
            figs.figure3(
                _fig3,
                column="results",
                title="Figure 3: number of results (50 trials per n)",
                y="results returned (mean ± sd)",
            ),
            lessons.check(
                bool((_res["noise_reduction"] > _res["doubling"]).all()),
                "Figure 3: noise reduction returns more counts than doubling at every sample size",
            ),
            lessons.check(
                _gap < 0.15,
                f"the means agree with an independent re-implementation (1000 trials) within {100 * _gap:.0f} %",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
