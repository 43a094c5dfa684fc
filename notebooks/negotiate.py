import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="From an accuracy requirement to a privacy budget",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import math

    import marimo as mo

    import dpcore
    from app import lessons
    from app.compute import negotiate as compute
    from app.compute import negotiate_words as words
    from app.figures import negotiate as figs
    from app.lessons import md
    from app.notation import number
    from dpcore import negotiate, negotiate_split

    return compute, dpcore, figs, lessons, math, md, mo, negotiate, negotiate_split, number, words


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # From an accuracy requirement to a privacy budget

    **The idea in one sentence.** Start from the accuracy a user needs, "the count must be within ±θ of the truth
    in a share $p$ of releases", and find the smallest ε each mechanism needs to deliver it.

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    For Laplace noise of scale $b = \Delta/\varepsilon$ the chance of landing within ±θ is
    $\Pr[|\mathrm{Lap}(b)| \le \theta] = 1 - e^{-\varepsilon\theta/\Delta}$, so the requirement
    $1 - e^{-\varepsilon\theta/\Delta} \ge p$ gives in one line

    $$\varepsilon \;=\; \frac{\Delta}{\theta}\,\ln\frac{1}{1 - p}.$$

    Other mechanisms have no closed form; the app bisects in ε, because more budget never makes them less accurate.
    This lesson follows the app's *Negotiate a budget* page.
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("theta", "conf", "sens", "delta", "T")
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(compute, lessons, md, p):
    def _error_within(q):
        return compute.Requirement("error", q.theta, q.conf, q.sens, q.delta)

    req = _error_within(p)
    answer = lessons.remember(compute.answer, req)
    # the θ slider's neighbouring stops, computed on the other core while you read this one
    _next = [(_error_within(_q),) for _q in lessons.neighbours(p, "theta")]
    lessons.ahead(compute.answer, *_next)
    lessons.ahead(compute.curves, *_next)
    md(f"""
    ## 1 · The answer first

    > **{answer.sentence}**

    The stated ε is the smallest one rounded **up** to two significant digits, so it still meets the requirement.
    """)
    return answer, req


@app.cell
def _(md):
    md(r"""
    ## 2 · Accuracy against ε, for every mechanism

    Each curve is $\Pr[\text{answer within } \pm\theta]$ as ε grows. Where a curve crosses the dotted confidence line
    is that mechanism's smallest ε. The staircase is the best any ε-DP additive noise can do (Geng & Viswanath
    2016); R²DP never does worse than Laplace; the Gaussian needs a δ and pays for its light tails unless δ is
    generous; budget recycling (BR-DP) gains most when θ is tight.
    """)
    return


@app.cell
def _(answer, compute, figs, lessons, md, mo, p, req):
    _chart = figs.accuracy_curves(
        lessons.remember(compute.curves, req),
        epsilon=answer.epsilon if answer.epsilon > 0 else 1.0,
        confidence=p.conf,
        y_title="P(answer within ±θ)",
    )
    _text = md("\n".join(f"- **{_n}**: ε = {_e}. {_w}" for _n, _e, _w in answer.reasons))
    mo.vstack([_chart, _text])
    return


@app.cell
def _(lessons):
    ex_laplace = lessons.Exercise(
        question="Requirement: within ±2 in 90 % of releases, Δ = 1. Which ε does Laplace noise need exactly, to "
        "three decimals? (The answer at the top of the page rounds it up to two digits.)",
        answer="1.151",
        hints=(
            "Laplace noise of scale b stays within ±θ with probability 1 − e^(−θ/b); solve for the scale.",
            "You need e^(−θ/b) = 0.1, so θ/b = ln 10 and ε = Δ/b = ln(10)/θ.",
        ),
        why="ε = Δ·ln(1/(1 − p))/θ = ln(10)/2 ≈ 1.151: half the budget of ±1, since the error bound doubled.",
        solution=r"$\varepsilon = \frac{1}{2}\ln\frac{1}{1 - 0.9} = \frac{\ln 10}{2} = 1.1513.$",
    )
    laplace_answer = ex_laplace.input
    ex_laplace.show(laplace_answer)
    return ex_laplace, laplace_answer


@app.cell
def _(ex_laplace, laplace_answer):
    ex_laplace.feedback(laplace_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · Several releases

    A budget is spent once per release. Adding the ε's up (basic composition) is always safe; the exact total,
    from composing the privacy-loss distributions of the releases, is never larger and grows roughly like
    $\sqrt{T}$ once $T$ is large:

    $$\varepsilon_{\text{total}} \;\le\; T\,\varepsilon .$$
    """)
    return


@app.cell
def _(answer, compute, md, p, words):
    if answer.mechanism and answer.epsilon > 0:
        _c = compute.composition(answer.mechanism, answer.epsilon, answer.delta, p.sens, p.T, p.delta)
        _text = (
            f"**{p.T} releases** of the answer spend **{words.total_words(_c)}**: the exact total is "
            "quoted with its δ, the small chance that it fails, beside the plain sum and its own δ."
        )
    else:
        _text = "This requirement has no ε > 0 answer to compose (see the sentence above)."
    md(_text)
    return


@app.cell
def _(lessons):
    ex_count = lessons.Exercise(
        question="Each release spends ε = 0.06. How many releases fit a total budget of ε = 1 if you simply add "
        "them up?",
        answer="16",
        hints=(
            "Adding up means the total is the number of releases times 0.06; it must stay at most 1.",
            "Divide 1 by 0.06 and keep only the whole part.",
        ),
        why="16 × 0.06 = 0.96 ≤ 1 and 17 × 0.06 = 1.02 > 1. The exact accountant may admit a few more.",
        solution=r"$\lfloor 1/0.06 \rfloor = \lfloor 16.67 \rfloor = 16.$",
    )
    count_answer = ex_count.input
    ex_count.show(count_answer)
    return count_answer, ex_count


@app.cell
def _(count_answer, ex_count):
    ex_count.feedback(count_answer)
    return


@app.cell
def _(md, negotiate_split, number):
    _split = negotiate_split.split(
        [
            negotiate_split.statistic("counts per county", 50, 0.95, 1.0),
            negotiate_split.statistic("mean income", 500, 0.90, 20.0),
        ],
        delta=1e-5,
    )
    md(
        "## 4 · Several statistics at once\n\nCounts per county within ±50 in 95 % of releases, and a mean "
        "income within ±500 in 90 % (values clipped to [0, 200000] over 10 000 rows, so Δ = 20). Each statistic "
        "gets the most noise its own accuracy allows; then the kinds of noise are compared:\n\n"
        + "\n".join(f"- {_line}" for _line in _split.reasoning)
        + f"\n\nThe total: ε = **{number(_split.best.epsilon, 4)}** with δ = {number(_split.best.delta)}."
    )
    return


@app.cell
def _(lessons, p):
    lessons.app_link("negotiate", p)
    return


@app.cell
def _(md):
    md(r"""
    ## 5 · Check the numbers

    Each line is checked when the lesson runs, against a computation that does not use the app's search.
    """)
    return


@app.cell
def _(dpcore, lessons, math, mo, negotiate):
    from scipy import stats

    _df = negotiate.epsilon_for_accuracy(
        theta=1.0, confidence=0.95, delta=1e-5, mechanisms=["laplace", "gaussian", "staircase", "brdp"]
    ).set_index("mechanism")
    _lap = float(_df.loc["laplace", "epsilon"])
    _b = 1.0 / _lap
    _sigma = 1.0 / stats.norm.ppf(0.975)
    mo.vstack(
        [
            lessons.check(
                lessons.close(stats.laplace.cdf(1, scale=_b) - stats.laplace.cdf(-1, scale=_b), 0.95, rel=1e-9),
                f"Laplace at ε = {_lap:.4f} = ln 20 lands within ±1 in exactly 95 % of releases (scipy)",
            ),
            lessons.check(
                lessons.close(
                    float(dpcore.gaussian_delta(float(_df.loc["gaussian", "epsilon"]), sigma=_sigma)), 1e-5, rel=1e-4
                ),
                "the Gaussian row's σ gives 95 % within ±1 and meets δ = 1e-5 exactly at its ε",
            ),
            lessons.check(
                float(_df.loc["staircase", "epsilon"]) <= _lap * (1 + 1e-4),
                "the optimal (staircase) noise never needs more ε than Laplace",
            ),
            lessons.check(
                float(_df.loc["brdp", "epsilon"]) <= float(_df.loc["gaussian", "epsilon"]) * (1 + 1e-4)
                and math.isfinite(float(_df.loc["brdp", "epsilon"])),
                "BR-DP with the exact accountant never needs more than its Gaussian kernel (Jiang et al. 2024, "
                "Prop. 4)",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
