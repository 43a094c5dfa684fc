import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="Local DP: what did the answers actually reveal?",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import math

    import marimo as mo

    from app import lessons
    from app.compute import ldp as compute
    from app.figures import ldp as figs
    from app.lessons import md
    from app.notation import number
    from dpcore import ldp

    return compute, figs, ldp, lessons, math, md, mo, number


@app.cell
def _(lessons, md, mo):
    mo.vstack(
        [
            md(r"""
    # Local DP: what did the answers *actually* reveal?

    **The idea in one sentence.** An ε-LDP answer *could* move anyone's belief about you by a factor $e^{\varepsilon}$,
    but the answers that really came out usually move it much less — so a filter that charges only what was
    actually revealed can answer many more questions within the same budget.

    Move the sliders: every picture and number below follows them. The formal statement is folded just below.
    """),
            lessons.in_depth(r"""
    In **local** differential privacy each person randomizes their own answer before sending it. A query $q$ about
    a person whose secret is $X \in D$ is **ε-LDP** when, for every two values $x, x'$ and every answer $y$
    (Pan 2023, Def. 2.1),

    $$\Pr[q(x) = y] \;\le\; e^{\varepsilon}\,\Pr[q(x') = y].$$

    This lesson follows the app's *Local DP* page and Mingen Pan's paper *Actual Knowledge Gain as Privacy Loss in
    Local Privacy Accounting* (arXiv 2307.08159): randomized response, the **realized** privacy loss of the answers
    that came out against the worst case, and the **Bayesian privacy filter** that keeps the realized loss within a
    budget $\varepsilon_G$.
    """),
        ]
    )
    return


@app.cell
def _(lessons):
    controls = lessons.controls("eps", "epsg", "nq", "dsize", "xtrue", "family", "prior", "seed")
    lessons.panel(controls)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(md, p):
    x_true = min(p.xtrue, p.dsize - 1)
    md(
        f"The true value x* = {p.xtrue} is outside {{0, …, {p.dsize - 1}}}: the lesson uses x* = {x_true}."
        if x_true != p.xtrue
        else ""
    )
    return (x_true,)


@app.cell
def _(compute, figs, md, mo, p, x_true):
    # The idea's picture comes first, before any definition: what the answers revealed against what is charged.
    mo.vstack(
        [
            figs.idea(
                compute.realized_path(p.family, p.eps, p.dsize, p.nq, x_true, p.seed), budget=p.epsg, ratio=False
            ),
            md(
                "The solid line is what your answers actually revealed about the person after each one; the dotted "
                "line is what the worst case charges for the same answers, and the dashed line the budget ε_G that "
                "section 3's filter keeps to. Section 2 says how the solid line is measured."
            ),
        ]
    )
    return


@app.cell
def _(md):
    md(r"""
    ## 1 · Local DP and randomized response

    The simplest ε-LDP query is **randomized response**: on a secret with $K$ possible values, report the true value
    with probability $\frac{e^{\varepsilon}}{e^{\varepsilon}+K-1}$ and each other value with probability
    $\frac{1}{e^{\varepsilon}+K-1}$. Every answer is exactly $e^{\varepsilon}$ times as likely under the true value
    as under any other: randomized response **fully utilises** its budget (Def. 3.3) — each answer reveals the
    worst case.

    Most queries do not. The paper's running example (Eq. 11) asks for $X^i$ through the two-point mechanism
    (Eq. 5): a value $v \in [0, 1]$ is reported as 1 with probability $\frac{1}{e^{\varepsilon}+1} + v\,
    \frac{e^{\varepsilon}-1}{e^{\varepsilon}+1}$, else 0. The answer 1 is most likely when $X = 10$ and least likely
    when $X = 0$, but the values in between separate less.
    """)
    return


@app.cell
def _(lessons):
    ex_rr = lessons.Exercise(
        question="Binary randomized response at ε = ln 3: with what probability (in %) does it report the true value?",
        answer="75 %",
        hints=(
            "The true value is kept with probability e^ε/(e^ε + 1).",
            "e^(ln 3) is 3: the probability is 3 out of 3 + 1.",
        ),
        why="With K = 2 the true value is kept with probability e^ε/(e^ε + 1) = 3/4: the answer 1 is 3 times as "
        "likely when the secret is 1 as when it is 0, exactly e^ε.",
        solution=r"$\frac{e^{\ln 3}}{e^{\ln 3} + 1} = \frac{3}{4}$ = **75 %**; the other value is reported with "
        r"probability 1/4, and $0.75 / 0.25 = 3 = e^{\varepsilon}$.",
    )
    rr_answer = ex_rr.input
    ex_rr.show(rr_answer)
    return ex_rr, rr_answer


@app.cell
def _(ex_rr, rr_answer):
    ex_rr.feedback(rr_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 2 · Realized loss against the worst case

    After answers $y_1, \dots, y_k$ the **likelihood** of each possible secret is
    $\Lambda(x) = \prod_i \Pr[q_i(x) = y_i]$. Their **realized privacy loss** is the largest factor between the
    likelihoods of two values (Def. 3.2, Eq. 10):

    $$\ell = \ln \max_x \Lambda(x) - \ln \min_x \Lambda(x).$$

    Basic composition charges $\sum_i \varepsilon_i$, the worst case over *all* answers that could have come out;
    $\ell$ is what the answers that *did* come out reveal, and $\ell \le \sum_i \varepsilon_i$ always. In the
    picture at the top, the solid line is the realized loss after each of your $k$ answers, the dotted one what basic
    composition charges.
    """)
    return


@app.cell
def _(compute, md, number, p, x_true):
    _b = compute.beliefs(p.family, p.eps, p.dsize, p.nq, x_true, p.seed, p.prior)
    md(
        f"The {p.nq} answers drawn at x* = {x_true} realize ℓ = **{_b.loss:.4f}**, while basic composition charges "
        f"Σε = **{number(_b.basic, 4)}**. The most likely value is "
        f"{', '.join(str(v) for v in _b.argmax[:5])}; the least likely "
        f"{', '.join(str(v) for v in _b.argmin[:5])}."
    )
    return


@app.cell
def _(md):
    md(r"""
    **Why this ℓ is the right measure.** An observer with any prior belief $b$ updates it by Bayes' rule,
    $b(x \mid y) \propto \Lambda(x)\, b(x)$ (Eq. 2). For any statement $\varphi$ about the person, her confidence
    moves by a factor between $e^{-\ell}$ and $e^{\ell}$ (Lemma 3.1), and some statement and prior come arbitrarily
    close to $e^{\ell}$ (Lemma 3.2): $\ell$ is exactly the most any observer can have learned. The bars below are the
    prior, the likelihood (rescaled) and the posterior: the posterior moves with the *ratio* of likelihoods, so flat
    stretches of $\Lambda$ leave the belief where it was.
    """)
    return


@app.cell
def _():
    # The app's picture at one stop of k (app.decks): every stop travels with the chart (app.slides), so the slider
    # under it redraws it in the browser; the controls above set the rest.
    from app.decks import posterior as beliefs_at

    return (beliefs_at,)


@app.cell
def _(beliefs_at, lessons, mo, number, p, x_true):
    _chart = lessons.slide(beliefs_at, "nq", p.nq, p.family, p.eps, p.dsize, x_true, p.seed, p.prior, play=True)
    # the picture's slider at the next stops of ε, built by the worker while the reader looks
    _next = [(p.family, _q.eps, p.dsize, x_true, p.seed, p.prior) for _q in lessons.neighbours(p, "eps")]
    lessons.slides_ahead(beliefs_at, "nq", *_next, play=True)
    mo.vstack(
        [
            _chart,
            lessons.slider_note(
                "k", f"ε = {number(p.eps)}, {p.dsize} possible values, x* = {x_true}, the prior", play=True
            ),
        ]
    )
    return


@app.cell
def _(lessons):
    ex_balanced = lessons.Exercise(
        question="Six binary randomized-response answers at ε = 1 came out 1, 1, 1, 1, 0, 0. What is their realized "
        "loss ℓ? (Basic composition charges 6.)",
        answer="2",
        hints=(
            "Each 1 and each 0 move the odds between the two secrets by e^ε in opposite directions.",
            "Count how many 1's are left over once each 0 has cancelled a 1, and multiply by ε.",
        ),
        why="Each 1 multiplies Λ(1)/Λ(0) by e^ε and each 0 divides it by e^ε, so ℓ = ε·|n₁ − n₀| = 1·|4 − 2| = 2. "
        "Three 1's and three 0's would reveal nothing (Example 1).",
        solution=r"$\Lambda(1) = p^4 (1-p)^2$ and $\Lambda(0) = (1-p)^4 p^2$ with $p = e/(e+1)$, so "
        r"$\ell = \ln\frac{\Lambda(1)}{\Lambda(0)} = 2 \ln\frac{p}{1-p} = 2\varepsilon$ = **2**.",
    )
    balanced_answer = ex_balanced.input
    ex_balanced.show(balanced_answer)
    return balanced_answer, ex_balanced


@app.cell
def _(balanced_answer, ex_balanced):
    ex_balanced.feedback(balanced_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 3 · The Bayesian privacy filter: look ahead, then answer

    A **privacy filter** decides, query by query, whether to answer. The paper proves that a filter keeps the whole
    interaction $\varepsilon_G$-LDP exactly when every transcript it can produce has $\ell \le \varepsilon_G$
    (Thm 4.1). The **Bayesian privacy filter** (Def. 4.3, Algorithm 2) therefore answers a query only if **every**
    answer it could give keeps the loss within the budget (Cor. 4.1, Eq. 15):

    $$\max_y \;\Big[\ln \max_x \Lambda(x)\Pr[q(x) = y] - \ln \min_x \Lambda(x)\Pr[q(x) = y]\Big]
    \;\le\; \varepsilon_G .$$

    It looks ahead over all answers *before* the query runs, so the decision depends on public information only and
    reveals nothing about the secret. Its **odometer** is the realized loss $\ell$ of what was answered (Def. 4.5):
    it starts at 0, never exceeds $\varepsilon_G$, and can even go **down**, when an answer makes the extreme values
    look more alike. The remaining budget $\varepsilon_G - \ell$ can grow back.
    """)
    return


@app.cell
def _(compute, figs, md, mo, number, p, x_true):
    _t = compute.timeline(p.family, p.eps, p.epsg, p.dsize, p.nq, x_true, p.seed)
    _chart = figs.timeline(_t.table, _t, ratio=False)
    _text = md(
        f"With ε_G = {number(p.epsg)} the Bayesian filter answers **{_t.accepted} of {p.nq}** queries; basic "
        f"composition stops after **{_t.basic_accepted}**. The odometer ends at ℓ = {_t.loss:.4f} and went "
        f"down {_t.decreases} time(s)."
    )
    mo.vstack([_chart, _text])
    return


@app.cell
def _(lessons):
    ex_equal = lessons.Exercise(
        question="Example 3: budget ε_G = ln 2.25. After q₁ = X answered 1, the look-ahead for q₂ = X² finds "
        "e^ℓ = 1.1458 if it answers 0 and e^ℓ = 2.25 if it answers 1. Does the filter answer q₂?",
        answer="yes",
        options=("yes", "no"),
        hints=(
            "Compare the worse of the two look-ahead values with e^(ε_G).",
            "e^(ln 2.25) is 2.25; the filter's test allows equality.",
        ),
        why="The test is ℓ ≤ ε_G with equality allowed: the worse answer lands exactly on the budget 2.25 = 1.5², so "
        "q₂ is answered (and the answer 0 even lowers the odometer to 1.1458).",
        solution="Both branches satisfy e^ℓ ≤ e^(ε_G) = 2.25 (one with equality), so q₂ passes the look-ahead. "
        "The trace continues: q₃ and q₄ are answered, q₅ would reach 3.375 and is refused.",
    )
    equal_answer = ex_equal.input
    ex_equal.show(equal_answer)
    return equal_answer, ex_equal


@app.cell
def _(equal_answer, ex_equal):
    ex_equal.feedback(equal_answer)
    return


@app.cell
def _(md):
    md(r"""
    ## 4 · How many queries get answered?

    On a stream of binary randomized-response queries the realized loss is $\varepsilon\,|n_1 - n_0|$, so the
    filter keeps answering while the difference between the 1's and 0's stays below $\lfloor \varepsilon_G /
    \varepsilon \rfloor$: the number answered is the time a ±1 random walk needs to reach that distance. Its expected
    value has a closed form (this project's own benchmark; the walk steps up with probability
    $e^{\varepsilon}/(1+e^{\varepsilon})$). Basic composition answers $\lfloor \varepsilon_G/\varepsilon \rfloor$.
    """)
    return


@app.cell
def _(compute, figs, md, mo, number, p):
    _chart = figs.rr_curve(compute.rr_closed_form(p.eps), budget=p.epsg)
    _e = compute.rr_expected(p.eps, p.epsg)
    _text = md(
        f"At ε = {number(p.eps)} and ε_G = {number(p.epsg)} the filter answers on average **{_e:.3f}** "
        f"randomized-response queries, basic composition **{int(p.epsg / p.eps + 1e-9)}**."
        if _e is not None
        else f"At ε = {number(p.eps)} and ε_G = {number(p.epsg)} the walk is too long to solve here (⌊ε_G/ε⌋ > "
        f"{compute.RR_CLOSED_FORM_MAX_M})."
    )
    mo.vstack([_chart, _text])
    return


@app.cell
def _(lessons):
    ex_count = lessons.Exercise(
        question="Binary randomized response at ε = 1 with budget ε_G = 4: basic composition answers 4 queries. How "
        "many does the Bayesian filter answer on average? Set ε and ε_G and read it off.",
        answer="8.344",
        hints=(
            "Set ε = 1 and ε_G = 4 and read the average number answered under the filter's chart.",
            "The filter stops when the 1's and 0's differ by four; that takes about twice as many answers as "
            "basic composition allows.",
        ),
        why="The filter stops when |n₁ − n₀| reaches 4; a walk drifting towards the true value (up with probability "
        "e/(1 + e) ≈ 0.73) takes 8.344 steps on average — about twice as many answers for the same guarantee.",
        solution="E[# answered](ε = 1, ε_G = 4) = **8.344** (closed form); basic composition ⌊4/1⌋ = 4.",
    )
    count_answer = ex_count.input
    ex_count.show(count_answer)
    return count_answer, ex_count


@app.cell
def _(count_answer, ex_count):
    ex_count.feedback(count_answer)
    return


@app.cell
def _(lessons, p):
    lessons.app_link("ldp", p, text="Open the Local DP page with these settings")
    return


@app.cell
def _(md):
    md(r"""
    ## Reproduce the paper: Examples 1–3

    Each line is recomputed now and checked against the number the paper prints, or against a closed form.

    * **Example 1** (Eq. 9): six binary randomized-response answers at ε = 0.7, three 1's and three 0's: both values
      have likelihood $e^{3\varepsilon}/(1+e^{\varepsilon})^6$, so nothing is revealed, while basic composition
      charges $6\varepsilon = 4.2$.
    * **Example 2** (Eq. 11): the answers (1, 0, 1) to $X, X^2, X^3$ at $e^{\varepsilon} = 1.5$: the paper prints the
      ratio 0.144 / 0.096 = 1.5, i.e. ℓ = ln 1.5, a third of the bound $3\ln 1.5$. Its table shows Λ(2) = 0.109: a
      misprint — the queries give 0.1046 (0.109 is Λ(3)); the maximum, minimum and the 1.5 are unaffected.
    * **Example 3**: the filter with $\varepsilon_G = \ln 2.25$ answers 4 queries where basic composition allows 2;
      the paper prints $e^{\ell}$ = 1.50, 1.15, 1.50, 2.25 after each.
    """)
    return


@app.cell
def _(compute, lessons, math, mo):
    _ex = compute.examples()
    _e1, _e2, _e3 = _ex.ex1, _ex.ex2, _ex.ex3
    _closed = math.exp(3 * 0.7) / (1 + math.exp(0.7)) ** 6
    _after = _e3["ratio_after"].tolist()[:4]
    mo.vstack(
        [
            lessons.check(
                lessons.close(_e1.likelihood_0, _closed, rel=1e-12)
                and lessons.close(_e1.likelihood_1, _closed, rel=1e-12),
                f"Example 1: Λ(0) = Λ(1) = {_e1.likelihood_0:.7f} = e^(3ε)/(1 + e^ε)^6",
            ),
            lessons.check(
                abs(_e1.loss_balanced) < 1e-12 and lessons.close(_e1.loss_all_ones, 4.2, rel=1e-12),
                f"Example 1: ℓ = {abs(_e1.loss_balanced):.1f} for the balanced answers, {_e1.loss_all_ones:.1f} "
                "for six 1's (= basic composition 2nε)",
            ),
            lessons.check(
                lessons.close(_e2.ratio, 1.5, rel=1e-12), f"Example 2: max Λ / min Λ = {_e2.ratio:.6f}, the paper's 1.5"
            ),
            lessons.check(
                abs(_e2.table.loc[2, "likelihood"] - 0.1046) < 5e-5
                and abs(_e2.table.loc[3, "likelihood"] - 0.109) < 5e-4,
                f"Example 2: Λ(2) = {_e2.table.loc[2, 'likelihood']:.4f}, not the printed 0.109 (that is Λ(3) = "
                f"{_e2.table.loc[3, 'likelihood']:.4f}): a misprint",
            ),
            lessons.check(
                all(abs(a - b) < 1e-12 for a, b in zip(_after, [1.5, 0.275 / 0.24, 1.5, 2.25], strict=True)),
                "Example 3: e^ℓ after q₁…q₄ = "
                + ", ".join(f"{v:.6f}" for v in _after)
                + " (printed 1.50, 1.15, 1.50, 2.25)",
            ),
            lessons.check(
                _e3["accepted"].tolist() == [True, True, True, True, False, False],
                "Example 3: q₁–q₄ answered, q₅ and q₆ refused",
            ),
        ]
    )
    return


@app.cell
def _(md):
    md(r"""
    ### The filter never exceeds its budget, and two claims that do not hold

    **Theorem 4.1, checked exhaustively.** With the analyst of Example 3 (send $X, X^2, \dots$ and stop at the first
    refusal) there are finitely many transcripts. Their probabilities sum to 1 for every secret, and the largest
    ratio $\Pr[\text{transcript} \mid x] / \Pr[\text{transcript} \mid x']$ over all of them is exactly
    $e^{\varepsilon_G} = 2.25$: the interaction is $\ln 2.25$-LDP.

    **Two statements of Sec. 4.2 fail on small cases** (errata):

    * *"When the odometer equals ε_G no query with ε > 0 can be accepted."* With
      Λ = (1, 1.5, 2) and ε_G = ln 2 (spent), a query that only separates the middle value has ε > 0, yet every
      answer leaves ℓ = ln 2: the filter accepts it.
    * *"The odometer decreases if the next answer is less likely at the most likely value than at the least
      likely."* With Λ = (1, 1.9, 2) and an answer with probabilities (1, 10, 0.5)/10.5 the condition holds, yet ℓ
      rises from ln 2 to 2.944: the condition is necessary, not sufficient.
    """)
    return


@app.cell
def _(compute, lessons, math, mo):
    _ex = compute.examples()
    _c = _ex.counter
    mo.vstack(
        [
            lessons.check(
                _ex.transcripts == 39
                and lessons.close(math.exp(_ex.max_loss), 2.25, rel=1e-10)
                and bool((abs(_ex.total_probability - 1) < 1e-12).all()),
                f"Example 3's interaction: {_ex.transcripts} transcripts (lengths {_ex.min_length}–"
                f"{_ex.max_length}), probabilities sum to 1, largest ratio {math.exp(_ex.max_loss):.6f} = 2.25",
            ),
            lessons.check(
                _c.full_budget_bayesian
                and _c.full_budget_query_epsilon > 0.2
                and bool((abs(_c.full_budget_look_ahead - math.log(2)) < 1e-12).all()),
                f"at full budget a query with ε = {_c.full_budget_query_epsilon:.4f} is accepted (every answer "
                "leaves ℓ = ln 2)",
            ),
            lessons.check(
                _c.p_at_max < _c.p_at_min and lessons.close(_c.decrease_after, math.log(19), rel=1e-12),
                f"the 'decrease' condition holds ({_c.p_at_max:.4f} < {_c.p_at_min:.4f}) yet ℓ rises from "
                f"{_c.decrease_before:.4f} to {_c.decrease_after:.4f} = ln 19",
            ),
        ]
    )
    return


@app.cell
def _(md):
    md(r"""
    ### The randomized-response closed form

    The expected number of randomized-response queries answered, from the closed form, next to reference values
    computed independently (the app's page adds a seeded simulation of 200 streams each).
    """)
    return


@app.cell
def _(compute, lessons, mo):
    _ref = compute.rr_reference()
    mo.vstack(
        [
            mo.ui.table(_ref, selection=None),
            lessons.check(
                bool(((_ref["closed_form"] - _ref["reference"]).abs() < 1e-3).all()),
                "closed form = the reference values 8.344, 21.638, 31.489, 92.500 (to 10⁻³)",
            ),
            lessons.check(
                bool((_ref["closed_form"] > 2 * _ref["basic"]).all()),
                "the filter answers more than twice as many queries as adding up ε in every setting",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
