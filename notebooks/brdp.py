import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="Budget recycling: redraw the answers that miss",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import marimo as mo

    from app import lessons
    from app.compute import brdp as compute
    from app.figures import brdp as figs
    from app.lessons import md
    from app.notation import number
    from dpcore import brdp

    return brdp, compute, figs, lessons, md, mo, number


@app.cell
def _():
    # The app's picture at one stop of θ (app.decks): every stop travels with the chart (app.slides), so the slider
    # under it redraws it in the browser; the controls above set the rest.
    from app.decks import recycling_density as density_at

    return (density_at,)


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # Budget recycling: redraw the noisy answers that miss

    **The idea in one sentence.** Add noise as usual, but when the noisy answer misses the truth by more than
    θ, throw it away with probability $q$ and draw again — more answers land within $\pm\theta$, and every
    redraw costs a little privacy (Jiang, Du, Sharma & Yan 2024, *Budget Recycling Differential Privacy*).

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    A noise *kernel* (Gaussian or Laplace) is calibrated to a share $\varepsilon_y \le \varepsilon$ of the budget.
    A draw lands within $\pm\theta$ with probability $p_\theta$; a draw that misses is redrawn with probability
    $q$. The chance that the **released** answer is within $\pm\theta$ (the paper's Eq. 9) is

    $$\Pr[\,|\text{error}| \le \theta\,] \;=\; \frac{p_\theta}{1 - (1 - p_\theta)\,q},$$

    and on average $1/(1 - (1-p_\theta)\,q)$ draws are made per release. The picture shows the draws of 40
    releases at your settings: grey draws were thrown away and redrawn.
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("eps", "delta", "theta", "sens", "kernel", "acct", "T")
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(compute, figs, md, mo, number, p):
    key = compute.PlanKey(p.eps, p.delta, p.sens, p.theta, p.kernel, p.acct)
    _draws, _ = compute.recycler(key, 0)
    _chart = figs.recycler(_draws, theta=p.theta)
    _plan = compute.plan(key)
    _text = md(
        f"At these settings a BR-DP release lands within ±θ = {number(p.theta)} with probability "
        f"**{_plan.acceptance:.4f}**, a plain DP release (the same noise at the full budget, never redrawn) with "
        f"**{_plan.dp_acceptance:.4f}**. The noise runs at ε_y = **{number(_plan.epsilon_y, 4)}** of ε = "
        f"{number(p.eps)} and a missed answer is redrawn with probability q = **{number(_plan.q, 3)}**, so a "
        f"release takes **{_plan.expected_draws:.3f}** draws on average."
    )
    mo.vstack([_chart, _text])
    return (key,)


@app.cell
def _(md):
    md(r"""
    ## 1 · Where the answers land

    Redrawing reshapes the output distribution (the paper's Prop. 1): inside $\pm\theta$ the kernel's density is
    lifted by $1/(1 - \bar p_\theta q)$, outside it is scaled down by $(1-q)/(1 - \bar p_\theta q)$, with
    $\bar p_\theta = 1 - p_\theta$. Hence the jump at $\pm\theta$. The histogram is 20 000 seeded releases.
    """)
    return


@app.cell
def _(density_at, key, lessons, mo, number, p):
    _chart = lessons.slide(density_at, "theta", p.theta, key._replace(theta=None), 0)
    # the picture's slider at the next stops of ε, built by the worker while the reader looks
    lessons.slides_ahead(
        density_at, "theta", *[(key._replace(theta=None, epsilon=_q.eps), 0) for _q in lessons.neighbours(p, "eps")]
    )
    mo.vstack(
        [
            _chart,
            lessons.slider_note(
                "θ", f"ε = {number(p.eps)}, δ = {number(p.delta)}, Δ = {number(p.sens)}, the kernel and the accountant"
            ),
        ]
    )
    return


@app.cell
def _(md):
    md(r"""
    ## 2 · The budget split: noise or redraws?

    Each redraw leaks: an answer near the edge of $\pm\theta$ is redrawn for one data set and kept for its
    neighbour. The paper prices this as an extra privacy loss

    $$L = -\ln(1 - q),$$

    so a sharper kernel (larger $\varepsilon_y$) leaves less budget for redrawing (smaller $q$). The paper's
    Alg. 2 searches $\varepsilon_y$ for the best acceptance, with $q$ from its Alg. 1; the star marks the optimum.
    (The paper prints the objective of Alg. 2 as $1 - q + q/p_\theta$; the acceptance above is
    $1/(q + (1-q)/p_\theta)$ — $q$ and $1-q$ are swapped in the print, and the printed form makes Alg. 2 pick
    $\varepsilon_y = \varepsilon$ and $q \approx 0$.)
    """)
    return


@app.cell
def _(compute, figs, key, p):
    _df = compute.landscape(p.eps, p.delta, p.sens, p.theta, p.kernel, "analytic")
    figs.landscape(_df, epsilon=p.eps, delta=p.delta, chosen_eps_y=compute.plan(key).epsilon_y)
    return


@app.cell
def _(lessons):
    ex_split = lessons.Exercise(
        question="Choose the paper's accountant, ε = 1, δ = 10⁻⁵, θ = Δ = 1, Gaussian kernel. What share ε_y / ε of "
        "the budget does the paper's Alg. 2 give the noise?",
        answer="0.9",
        share=True,
        hints=(
            "Choose the paper's accountant and look for the star (the optimum) in the budget-split chart.",
            "The chart's legend names the optimum ε_y; with ε = 1 the share ε_y / ε is that same number.",
        ),
        why="The optimum keeps about 90 % for the noise (ε_y ≈ 0.905) and spends the rest on redrawing with "
        "q ≈ 0.209: the acceptance rises from 0.2113 (plain DP) to 0.2324.",
        solution="Set the accountant to *the paper's model* and read the star of the budget-split chart: "
        "ε_y = **0.9049**, so ε_y / ε = **0.905**; Alg. 1 then gives q = 0.2086 and the acceptance "
        "p_θ / (1 − (1 − p_θ) q) = 0.1933 / (1 − 0.8067 · 0.2086) = **0.2324**.",
    )
    split_answer = ex_split.input
    ex_split.show(split_answer)
    return ex_split, split_answer


@app.cell
def _(ex_split, split_answer):
    ex_split.feedback(split_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · The paper's δ against the exact δ

    The paper's accountant (Thm. 1, Prop. 2) models recycling as the kernel's privacy loss $Z$ plus $L$ with
    probability $W$, independently:

    $$\delta_{\text{paper}}(\varepsilon) = (1 - W)\,\delta_Z(\varepsilon) + W\,\delta_Z(\varepsilon - L).$$

    But the extra loss happens exactly where an output is redrawn for one data set and kept for the other, and
    there $Z$ is not independent of it; the model also measures $W$ under the kernel instead of BR-DP's output law
    and ignores the region where the loss is $-L$. **This is not an upper bound in general.** The exact δ is the
    hockey-stick divergence between the two BR-DP output distributions,

    $$\delta_{\text{exact}}(\varepsilon) = \sup_{0 < d \le \Delta}
    \int \max\bigl(0,\; f(x \mid 0) - e^{\varepsilon} f(x \mid d)\bigr)\,dx,$$

    computed in closed form piece by piece. The app and this lesson use the exact δ by default.
    """)
    return


@app.cell
def _(compute, key, md, number):
    _plan = compute.plan(key)
    _verdict = (
        "**This plan is not private at your target**: the exact δ is above it."
        if not _plan.sound
        else "The plan meets the target under the exact accountant."
    )
    _warn = (
        f"\n\n⚠ Here the paper **under-reports** δ by a factor {number(_plan.exact_delta / _plan.paper_delta, 3)}."
        if _plan.exact_delta > _plan.paper_delta
        else ""
    )
    md(
        f"| accountant | δ at ε = {number(_plan.epsilon)} |\n|---|---|\n"
        f"| paper's model (Prop. 2) | {number(_plan.paper_delta, 3)} |\n"
        f"| **exact** (hockey-stick divergence) | **{number(_plan.exact_delta, 3)}** |\n\n"
        f"{_verdict}{_warn}"
    )
    return


@app.cell
def _(md):
    md(r"""
    The curves below are the two privacy profiles $\delta(\varepsilon')$ of a plan the paper's accountant
    approves: ε = 5, δ = 10⁻⁸, θ = 3, Δ = 0.2, kernel share ε_y = 1.5, $q$ from the paper's Alg. 1. The paper's
    curve passes under the target ×, the exact one far above it.
    """)
    return


@app.cell
def _(compute, figs):
    _cx = compute.PlanKey(5.0, 1e-8, 0.2, 3.0, "gaussian", "paper", share=0.3)
    figs.profile(compute.profile(_cx), epsilon=5.0, delta=1e-8, kernel="gaussian")
    return


@app.cell
def _(lessons):
    ex_exact = lessons.Exercise(
        question="For that plan (ε = 5, δ = 10⁻⁸, θ = 3, Δ = 0.2, ε_y = 1.5, q from Alg. 1), how many times the "
        "target δ is the exact δ?",
        answer="753",
        hints=(
            "Load the example “Paper approves, truly 750× the target δ” and read the exact δ.",
            "Divide the exact δ (a few times 10⁻⁶) by the target 10⁻⁸.",
        ),
        why="The exact δ is about 7.53 × 10⁻⁶, some 750 times the 10⁻⁸ the paper's accountant promises: the plan "
        "is not (5, 10⁻⁸)-DP.",
        solution="Alg. 1 gives q = 0.9855 (L = 4.23). The exact hockey-stick divergence at ε = 5 is "
        "**7.53 × 10⁻⁶**; divided by 10⁻⁸ that is **≈ 753**.",
    )
    exact_answer = ex_exact.input
    ex_exact.show(exact_answer)
    return ex_exact, exact_answer


@app.cell
def _(ex_exact, exact_answer):
    ex_exact.feedback(exact_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 4 · Many releases: composition

    Releasing $T$ answers composes $T$ BR-DP mechanisms. The paper's Thm. 3 composes its model: a binomial
    mixture over how many of the $T$ releases pay the extra loss $L$ (the $k = 0$ term must be included; the
    printed Alg. 3 leaves it out). Exactly, the privacy-loss distribution of one release is convolved $T$ times.
    A plan that recycles "for free" at one release can compose badly.
    """)
    return


@app.cell
def _(compute, figs, key, lessons, md, mo, number, p):
    totals, _curve = lessons.remember(compute.composition, key, p.T)
    # the ε slider's neighbouring stops, composed on the other core while you read this one
    lessons.ahead(compute.composition, *[(key._replace(epsilon=_q.eps), p.T) for _q in lessons.neighbours(p, "eps")])
    _chart = figs.composition(_curve, delta=p.delta, compositions=p.T)
    _rem = compute.remarks(key, p.T, totals).set_index("accountant")
    _adv = _rem.iloc[3]
    _text = md(
        f"After T = {p.T} releases at δ = {number(p.delta)}: exact BR-DP **{number(totals['exact'], 4)}**, "
        f"the paper's Thm. 3 **{number(totals['paper'], 4)}**, plain DP **{number(totals['dp'], 4)}** (the "
        f"naive sum is {number(p.T * p.eps)}). The paper's Remarks 3–4 compose each release's (ε, δ₁) instead: "
        f"basic composition gives **{number(_rem.iloc[2]['ε after T'], 4)}**, advanced composition "
        + f"**{number(_adv['ε after T'], 4)}** at the same total δ (T releases at δ/(2T) each plus a slack "
        "δ′ = δ/2: the paper's Remark 4 prints the total as δ′ alone)."
    )
    mo.vstack([_chart, _text])
    return (totals,)


@app.cell
def _(lessons):
    ex_compose = lessons.Exercise(
        question="With the app's defaults (ε = 1, δ = 10⁻⁵, θ = Δ = 1, exact accountant) and T = 100 releases, "
        "which spends the smaller total ε?",
        answer="plain DP",
        options=("BR-DP", "plain DP", "the same"),
        hints=(
            "Set T = 100 and compare the totals under the composition chart.",
            "Recycling is free at one release, but every redraw's extra loss adds up over many releases.",
        ),
        why="The exact optimum keeps ε_y = ε and redraws with q ≈ 0.59: free at one release, but the redraws add "
        "up — about 36.6 after 100 releases against 14.4 for plain DP.",
        solution="Set T = 100 and read the totals under the composition chart: exact BR-DP **≈ 36.6**, plain DP "
        "**14.43**.",
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
    lessons.app_link("brdp", p, text="Open the BR-DP page with these settings")
    return


@app.cell
def _(md):
    md(r"""
    ## Reproduce the paper

    The paper's Figs. 2(b), 3, 4 and 5 at its own parameters (δ = 10⁻⁵ and Δ = 1 where the paper leaves them out;
    the δ values of Fig. 3 are unreadable in the paper, 10⁻², 10⁻³, 10⁻⁵, 10⁻⁸ are used). Each check below is
    recomputed now and compared with an independent value.
    """)
    return


@app.cell
def _(compute, figs):
    _fig2 = compute.PlanKey(2.0, 1e-5, 1.0, 1.0, "gaussian", "paper")
    _curves, _hist = compute.density(_fig2, 0, 100_000)
    figs.density(_curves, _hist, kernel="gaussian", theta=1.0, title="Fig. 2(b): 100 000 releases at ε = 2")
    return


@app.cell
def _(compute, figs):
    fig3 = compute.q_curves(3.0, (1e-2, 1e-3, 1e-5, 1e-8), 1.0, 1.0, "gaussian", "analytic")
    figs.q_curves(fig3, epsilon=3.0, title="Fig. 3: q against ε_y at ε = 3")
    return (fig3,)


@app.cell
def _(compute, figs):
    fig4a = compute.fig4(1.0)
    figs.acceptance(fig4a, kernel="gaussian", title="Fig. 4(a): acceptance against ε, Δ = 1")
    return (fig4a,)


@app.cell
def _(compute, figs):
    fig5a = compute.fig5("gaussian")
    figs.composition(fig5a, delta=1e-5, title="Fig. 5(a): composition, Gaussian kernel")
    return (fig5a,)


@app.cell
def _(brdp, compute, fig3, fig4a, fig5a, lessons, mo, number):
    import math

    import numpy as np
    from scipy import integrate

    _paper = compute.plan(compute.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian", "paper"))
    _exact = compute.plan(compute.PlanKey(1.0, 1e-5, 1.0, 1.0, "gaussian", "exact"))
    # the paper's plan, accepted by eq. (9) recomputed from scipy's normal CDF
    _p = math.erf(1.0 / (_paper.scale * math.sqrt(2)))
    _acc = _p / (1 - (1 - _p) * _paper.q)

    # exact δ of the paper's plan by quadrature of the two output densities (shift d = Δ = 1)
    def _f(x, c):
        return brdp.output_density(x, kernel="gaussian", scale=_paper.scale, theta=1.0, q=_paper.q, center=c)

    _quad = sum(
        integrate.quad(
            lambda x: max(0.0, float(_f(x, 0.0)) - math.e * float(_f(x, 1.0))), a, b, limit=200, epsabs=1e-14
        )[0]
        for a, b in ((-60, -1), (-1, 0), (0, 1), (1, 2), (2, 60))
    )
    # Fig. 2(b) plan sampled: the share of 100 000 releases within ±θ
    _fig2 = compute.plan(compute.PlanKey(2.0, 1e-5, 1.0, 1.0, "gaussian", "paper"))
    _draws = brdp.sample_outputs(100_000, kernel="gaussian", scale=_fig2.scale, theta=1.0, q=_fig2.q, rng=0)
    _share = float(np.mean(np.abs(_draws) <= 1.0))
    _row = fig3[fig3["delta"] == 1e-5].set_index("epsilon_y")["q"]
    _q1 = float(np.interp(1.0, _row.index, _row.values))
    _t100 = fig5a.set_index("compositions")
    _gauss100 = float(brdp.composed_epsilon(1e-5, compositions=100, plan=_paper, accountant="dp"))
    mo.vstack(
        [
            lessons.check(
                lessons.close(_paper.acceptance, _acc, rel=1e-9) and lessons.close(_acc, 0.23243, abs_=1e-4),
                f"the paper's example (ε = 1, θ = Δ = 1): ε_y = {_paper.epsilon_y:.4f}, q = {_paper.q:.4f}, "
                f"acceptance {_acc:.5f} (Eq. 9 from the normal CDF)",
            ),
            lessons.check(
                lessons.close(_paper.exact_delta, _quad, rel=1e-4),
                f"its exact δ(1) = {number(_paper.exact_delta, 4)} equals quadrature of the two output "
                f"densities ({number(_quad, 4)}); the paper's model says "
                f"{number(_paper.paper_delta, 3)}, over-cautious here",
            ),
            lessons.check(
                _exact.sound and _exact.acceptance > _paper.acceptance,
                f"the exact optimum is sound and lands within ±θ more often: {_exact.acceptance:.4f} against "
                f"{_paper.acceptance:.4f} (ε_y = {number(_exact.epsilon_y, 3)}, q = "
                f"{number(_exact.q, 3)})",
            ),
            lessons.check(
                abs(_share - _fig2.acceptance) < 4 * math.sqrt(_fig2.acceptance * (1 - _fig2.acceptance) / 1e5),
                f"Fig. 2(b): {_share:.4f} of 100 000 sampled releases fall within ±θ, as Eq. 9 says "
                f'({_fig2.acceptance:.4f}) — less than half, not "most" as the paper\'s text puts it',
            ),
            lessons.check(
                abs(_q1 - 0.8846) < 2e-3 and _q1 >= 1 - math.exp(-2.0),
                f"Fig. 3: Alg. 1's q at ε_y = 1, δ = 10⁻⁵ is {_q1:.4f}, above the baseline "
                f"1 − e^−2 = {1 - math.exp(-2):.4f}",
            ),
            lessons.check(
                bool((fig4a["brdp_paper"] >= fig4a["dp"] - 1e-9).all()),
                "Fig. 4(a): BR-DP's acceptance is never below plain DP's (the paper's Prop. 4)",
            ),
            lessons.check(
                lessons.close(float(_t100.loc[100, "dp"]), _gauss100, rel=1e-6)
                and float(_t100.loc[100, "paper"]) > float(_t100.loc[100, "dp"]),
                f"Fig. 5(a) at T = 100: the paper's Thm. 3 gives {_t100.loc[100, 'paper']:.3f}, *more* than "
                f"plain DP's {_t100.loc[100, 'dp']:.3f} — the paper draws BR-DP below DP",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
