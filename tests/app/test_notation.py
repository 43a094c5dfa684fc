"""Plainly written maths and its three typeset forms, and numbers as a reader writes them (app.notation): the expected
strings are written out by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.notation import html, number, numbers_in, plain, tex
from tests.app.conftest import read_number

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
    (
        "|r̄^op − r^op|",
        r"|$\bar{r}^{\mathrm{op}}$ − $r^{\mathrm{op}}$|",
        "|r̄<sup>op</sup> − r<sup>op</sup>|",
        "|r̄ᵒᵖ − rᵒᵖ|",
    ),
    ("ε_(k+1)", "$ε_{k+1}$", "ε<sub>k+1</sub>", "εₖ₊₁"),
    (r"ε\_y = 0.12", "$ε_{y}$ = 0.12", r"ε<sub>y</sub> = 0.12", "ε_y = 0.12"),  # Markdown-escaped
]


@pytest.mark.parametrize("written,latex,markup,unicode", CASES, ids=[c[0] for c in CASES])
def test_each_surface_gets_its_form(written, latex, markup, unicode):
    assert tex(written) == latex
    if "\\_" not in written:
        assert html(written) == markup
        assert plain(written) == unicode


@pytest.mark.parametrize(
    "text",
    [
        "the dp_accounting library",  # an identifier, not maths
        "open `notebooks/brdp.py` with `make lesson NAME=x_y`",  # code
        "[the lesson](http://127.0.0.1:2719/?file=brdp_x.py)",  # a link target
        ":material/menu_book: read this",  # an icon code
        "already $e^{x}$ typeset",
        "a formula run over a line break, $\\varepsilon = \\varepsilon_1 +\n    \\varepsilon_2$, is typeset whole",
        "no maths here at all",
    ],
)
def test_what_is_not_maths_is_left_alone(text):
    assert tex(text) == text
    assert html(text) == text


def test_a_blank_line_ends_an_unclosed_dollar():
    """A lone $ (a price) does not make the next paragraph's scripts maths: only a line break within one paragraph
    may fall inside an inline formula."""
    assert (
        tex("costs $5 each.\n\nThe kernel runs at ε_y, at $2") == "costs $5 each.\n\nThe kernel runs at $ε_{y}$, at $2"
    )


@pytest.mark.parametrize("written", [c[0] for c in CASES])
def test_typesetting_twice_changes_nothing(written):
    assert tex(tex(written)) == tex(written)
    assert html(html(written)) == html(written)


NUMBERS = [
    # (value, significant figures, what a reader sees)
    (1e-5, 6, "10⁻⁵"),
    (3e-6, 6, "3·10⁻⁶"),
    (2e-6, 6, "2·10⁻⁶"),
    (1e-12, 6, "10⁻¹²"),
    (1e-10, 6, "10⁻¹⁰"),
    (5e-4, 6, "5·10⁻⁴"),  # below 0.001: a power of ten
    (1e-4, 6, "10⁻⁴"),
    (0.001, 6, "0.001"),  # from 0.001 up: a plain decimal
    (0.00123, 6, "0.00123"),
    (0.01, 6, "0.01"),
    (0.5, 6, "0.5"),
    (0.1 + 0.2, 6, "0.3"),
    (1.0, 6, "1"),
    (20.0, 6, "20"),
    (1000.0, 6, "1000"),
    (100000.0, 6, "100000"),
    (999999.0, 6, "999999"),
    (1e6, 6, "10⁶"),  # a million and more: a power of ten
    (2.5e6, 6, "2.5·10⁶"),
    (12345678.0, 6, "1.23457·10⁷"),
    (4.85165e8, 3, "4.85·10⁸"),
    (1e100, 3, "10¹⁰⁰"),
    (7.5312e-6, 3, "7.53·10⁻⁶"),
    (6.7e-4, 3, "6.7·10⁻⁴"),
    (0.004975, 4, "0.004975"),
    (0.123456, 3, "0.123"),
    (14.0623, 4, "14.06"),
    (1234.5, 3, "1230"),  # to its figures, never 1.23e+03
    (12345.6, 4, "12350"),
    (19224.6, 4, "19220"),
    (9.9996e-6, 3, "10⁻⁵"),  # rounding carries into the power
    (0.00099996, 3, "0.001"),  # … and across the boundary to a plain decimal
    (999999.7, 6, "10⁶"),
    (-0.5, 6, "-0.5"),
    (-3e-6, 6, "-3·10⁻⁶"),
    (-2.5e7, 2, "-2.5·10⁷"),
    (0.0, 6, "0"),
    (-0.0, 6, "0"),
    (math.inf, 6, "∞"),
    (-math.inf, 6, "-∞"),
    (math.nan, 6, "–"),
    (3, 6, "3"),  # an int is a number too
]


@pytest.mark.parametrize("value,digits,shown", NUMBERS, ids=[c[2] for c in NUMBERS])
def test_numbers_read_as_people_write_them(value, digits, shown):
    assert number(value, digits) == shown


def test_number_defaults_to_six_figures_like_python_g():
    assert number(0.1234567) == "0.123457"
    assert number(1e-5) == "10⁻⁵"


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300), st.integers(1, 8))
def test_a_written_number_means_the_number_to_its_figures(x, digits):
    shown = number(x, digits)
    assert "e" not in shown and "+" not in shown
    assert math.isclose(read_number(shown), x, rel_tol=10.0 ** (1 - digits), abs_tol=1e-300)


def test_numbers_in_a_sentence_are_rewritten_with_their_figures():
    assert numbers_in("has δ = 1e-05 left; needs δ = 7.53e-06") == "has δ = 10⁻⁵ left; needs δ = 7.53·10⁻⁶"
    assert numbers_in("a ratio of 2.5e+07") == "a ratio of 2.5·10⁷"
    assert numbers_in("ρ = 0.5 at ε = 2, grid 0.0001") == "ρ = 0.5 at ε = 2, grid 0.0001"  # already plain
    assert numbers_in("version v1e-05 and x_1e-05") == "version v1e-05 and x_1e-05"  # part of a word


def test_every_surface_writes_a_programmers_number_as_people_do_but_not_in_code_or_links():
    written = "δ = 1e-05 here; `?delta=1e-05` and [open](./brdp?delta=1e-05) keep theirs"
    assert tex(written) == "δ = 10⁻⁵ here; `?delta=1e-05` and [open](./brdp?delta=1e-05) keep theirs"
    assert html("Total ε at δ = 2e-06 after T releases") == "Total ε at δ = 2·10⁻⁶ after T releases"
    assert tex("ε_y at δ = 1e-05") == "$ε_{y}$ at δ = 10⁻⁵"


def test_a_tiny_delta_reads_negligible_by_one_rule():
    """δ below 10⁻¹⁵ reads "negligible" wherever δ is written for people: formatted directly, or inside a sentence
    built elsewhere in either spelling (``3.42e-56``, ``3.42·10⁻⁵⁶``); 10⁻¹⁵ itself and larger δ keep their digits,
    and other tiny numbers are not touched."""
    from app import notation

    assert notation.delta(3.42e-56) == "negligible" and notation.delta(1e-15) == "10⁻¹⁵"
    assert notation.delta(0) == "0" and notation.delta(1e-5) == "10⁻⁵"
    assert notation.tex("exact δ of this plan = 3.42e-56") == "exact δ of this plan = negligible"
    assert notation.html("at δ = 9.9·10⁻¹⁶, fine") == "at δ = negligible, fine"
    assert notation.tex("with δ ≤ 10⁻²⁰.") == "with δ ≤ negligible."
    assert notation.tex("δ = 1e-05") == "δ = 10⁻⁵"
    assert notation.tex("p = 1e-20") == "p = 10⁻²⁰"


def test_shares_ratios_and_odds_read_as_people_say_them():
    """A share as a percentage (39.6 %, 100.0 %), a ratio as 2.5× or 1,490×, and a budget ε as the factor on
    anyone's odds: e¹ = 2.71828… reads ×2.72, e⁵ = 148.41… ×148, e¹⁰ = 22026.5… ×22,026, e²⁵ ≈ 7.2·10¹⁰."""
    from app import notation

    assert notation.percent(0.39568) == "39.6 %" and notation.percent(0.004975, 2) == "0.50 %"
    assert notation.percent(1.0) == "100.0 %" and notation.percent(0.1, 0) == "10 %"
    assert notation.percent(0.00013) == "0.013 %" and notation.percent(0.0) == "0.0 %"
    assert notation.times(689.3) == "689×" and notation.times(2.54) == "2.5×"
    assert notation.times(math.inf) == "infinitely"
    assert notation.odds_factor(1.0) == "×2.72" and notation.odds_factor(5.0) == "×148"
    assert notation.odds_factor(10.0) == "×22,026" and notation.odds_factor(25.0) == "×7.2·10¹⁰"
    assert notation.odds_factor(800.0) == "an unlimited factor"
