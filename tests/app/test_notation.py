"""Plainly written maths and its three typeset forms (app.notation): the expected strings are written out by hand."""

from __future__ import annotations

import pytest

from app.notation import html, plain, tex

CASES = [
    # written, LaTeX for Markdown, HTML for Plotly, Unicode for tables
    ("at most e^ε times", "at most $e^{ε}$ times", "at most e<sup>ε</sup> times", "at most eᵋ times"),
    ("r^op grows", r"$r^{\mathrm{op}}$ grows", "r<sup>op</sup> grows", "rᵒᵖ grows"),
    ("kernel at ε_y", "kernel at $ε_{y}$", "kernel at ε<sub>y</sub>", "kernel at ε_y"),  # no Unicode subscript y
    ("costs ε_T²/2", "costs $ε_{T}^{2}$/2", "costs ε<sub>T</sub><sup>2</sup>/2", "costs ε_T²/2"),
    ("Σ k^(−a)", "Σ $k^{-a}$", "Σ k<sup>−a</sup>", "Σ k⁻ᵃ"),
    ("1 − e^−(ε − ε_y)", "1 − $e^{-(ε - ε_{y})}$", "1 − e<sup>−(ε − ε<sub>y</sub>)</sup>", "1 − e^−(ε − ε_y)"),
    ("(1 − p)^t", "(1 − p)${}^{t}$", "(1 − p)<sup>t</sup>", "(1 − p)ᵗ"),
    ("ε_max = 0.2", r"$ε_{\mathrm{max}}$ = 0.2", "ε<sub>max</sub> = 0.2", "εₘₐₓ = 0.2"),
    ("|r̄^op − r^op|", r"|$\bar{r}^{\mathrm{op}}$ − $r^{\mathrm{op}}$|", "|r̄<sup>op</sup> − r<sup>op</sup>|",
     "|r̄ᵒᵖ − rᵒᵖ|"),
    ("ε_(k+1)", "$ε_{k+1}$", "ε<sub>k+1</sub>", "εₖ₊₁"),
    (r"ε\_y = 0.12", "$ε_{y}$ = 0.12", r"ε<sub>y</sub> = 0.12", "ε_y = 0.12"),  # Markdown-escaped
]


@pytest.mark.parametrize("written,latex,markup,unicode", CASES, ids=[c[0] for c in CASES])
def test_each_surface_gets_its_form(written, latex, markup, unicode):
    assert tex(written) == latex
    if "\\_" not in written:
        assert html(written) == markup
        assert plain(written) == unicode


@pytest.mark.parametrize("text", [
    "the dp_accounting library",  # an identifier, not maths
    "open `notebooks/brdp.py` with `make lesson NAME=x_y`",  # code
    "[the lesson](http://127.0.0.1:2719/?file=brdp_x.py)",  # a link target
    ":material/menu_book: read this",  # an icon code
    "already $e^{x}$ typeset",
    "no maths here at all",
])
def test_what_is_not_maths_is_left_alone(text):
    assert tex(text) == text
    assert html(text) == text


@pytest.mark.parametrize("written", [c[0] for c in CASES])
def test_typesetting_twice_changes_nothing(written):
    assert tex(tex(written)) == tex(written)
    assert html(html(written)) == html(written)
