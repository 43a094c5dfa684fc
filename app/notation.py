"""Maths written plainly in the app's text (``e^ε``, ``r^op``, ``ε_y``, ``ε_T²/2``, ``k^(−a)``), shown typeset.

Text is authored the way one types maths in an e-mail, and turned into what each surface can show:

* ``tex``: inline LaTeX (``$e^{ε}$``) for everything Streamlit and marimo render as Markdown (both typeset it with a
  local KaTeX);
* ``html``: ``<sup>``/``<sub>`` for Plotly (titles, axis titles, legends, annotations);
* ``plain``: Unicode super- and subscripts where every character has one (``rᵒᵖ``, ``εᵢ``), for table headers, which
  render neither.

Numbers are written as a reader writes them (:func:`number`): ``10⁻⁵`` and ``3·10⁻⁶``, never ``1e-05``.

A script is a base (a letter, a digit or a closing bracket; a whole word such as ``max`` when it is one) followed by
``^`` or ``_`` and either a bracketed group or a run of letters and digits. Code spans, links, existing ``$…$``, HTML
tags and icon codes are left alone, and so are identifiers whose two sides are both words (``dp_accounting``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

_GREEK = "α-ωΑ-Ωϑϕϵℓℒ"
_LETTER = f"A-Za-z{_GREEK}"
#: regions never touched: $$…$$, $…$, `code`, link targets, HTML tags, Streamlit icon codes, bare URLs
#: Regions left as written: display and inline maths (an inline formula may run over a line break of its paragraph,
#: not over a blank line), code, link targets, HTML tags, icon codes and addresses.
_SKIP = re.compile(
    r"\$\$.*?\$\$|\$(?:[^$\n]|\n(?![ \t]*\n))+\$|`[^`]*`|\]\([^)]*\)|<[^>]+>|:material/[a-z_]+:|https?://\S+", re.S
)
_GROUP = r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)|\{(?:[^{}]|\{[^{}]*\})*\}"
_SCRIPT = re.compile(
    rf"(?P<base>(?<![{_LETTER}])[A-Za-z]{{2,}}(?=[_^])|[{_LETTER}0-9]\u0304?|\))"
    rf"(?P<op>\\?[\^_])"  # Markdown-escaped (\\_) too
    rf"(?P<arg>[−-]?(?:{_GROUP})|[−-]?[{_LETTER}0-9]+(?:\.[0-9]+)?)"
    rf"(?P<sq>[⁰¹²³⁴⁵⁶⁷⁸⁹]*)"
)
_SUP = dict(
    zip(
        "0123456789+−-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθιφχε",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᶥᵠᵡᵋ",
        strict=True,
    )
)
_SUB = dict(zip("0123456789+−-=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))
_SQ = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789", strict=True))


def _is_identifier(m: re.Match[str]) -> bool:
    """``dp_accounting``, ``bm_cost``: a word on both sides of an underscore is a name, not maths."""
    return m["op"][-1] == "_" and len(m["base"]) > 1 and re.fullmatch(r"[A-Za-z]{2,}", m["arg"] or "") is not None


def _inner(arg: str) -> str:
    """The script's content without its brackets."""
    if arg[:1] in "({" and arg[-1:] in ")}":
        return arg[1:-1]
    if arg[:1] in "−-" and arg[1:2] in "({":
        return arg[0] + arg[1:]  # e^−(ε − ε_y): the sign and the bracket both belong to the exponent
    return arg


def _script_latex(m: re.Match[str], base: str | None = None) -> str:
    """One script in LaTeX: ``ε_T²`` → ``ε_{T}^{2}``, ``r̄^op`` → ``\\bar{r}^{\\mathrm{op}}``."""
    if base is None:
        base = m["base"]
        if base.endswith("\u0304"):
            base = rf"\bar{{{base[0]}}}"
        elif len(base) > 1:
            base = rf"\mathrm{{{base}}}"
    out = f"{base}{m['op'][-1]}{{{_latex(_inner(m['arg']))}}}"
    if m["sq"]:
        out += "^{" + "".join(_SQ[c] for c in m["sq"]) + "}"
    return out


def _latex(text: str) -> str:
    """Maths text (already inside $…$) in KaTeX's words: words upright, nested scripts, minus and dot."""

    def word(m: re.Match[str]) -> str:
        return rf"\mathrm{{{m[0]}}}"

    out = _SCRIPT.sub(lambda m: m[0] if _is_identifier(m) else _script_latex(m), text)
    return re.sub(r"(?<![\\{A-Za-z])[A-Za-z]{2,}(?![A-Za-z{}])", word, out)


def _finish(latex: str) -> str:
    return latex.replace("−", "-").replace("·", r"\cdot ").replace("…", r"\dots ")


def _each_plain_part(text: str, convert: Callable[[str], str]) -> str:
    out, last = [], 0
    for m in _SKIP.finditer(text):
        out.append(convert(text[last : m.start()]))
        out.append(m[0])
        last = m.end()
    out.append(convert(text[last:]))
    return "".join(out)


def _scripts(text: str, render: Callable[[re.Match[str]], str]) -> str:
    """``text`` with every script outside the untouched regions replaced by ``render(match)`` (identifiers kept)."""
    if "^" not in text and "_" not in text:
        return text
    return _each_plain_part(text, lambda part: _SCRIPT.sub(lambda m: m[0] if _is_identifier(m) else render(m), part))


def _readable(text: str) -> str:
    """``1e-05`` → ``10⁻⁵`` and a δ below 10⁻¹⁵ → "negligible" outside the untouched regions (a link's address
    keeps its value)."""
    if "δ" in text:
        text = _each_plain_part(text, deltas_in)
    return _each_plain_part(text, numbers_in) if _E_NUMBER.search(text) else text


def tex(text: str) -> str:
    """``e^ε`` → ``$e^{ε}$``: every script in Markdown text typeset by KaTeX (Streamlit, marimo); a number written
    ``1e-05`` reads 10⁻⁵. (A Streamlit page run typesets a hundred texts or more, mostly the same as in the run
    before: ``app.ui`` remembers them.)"""

    def render(m: re.Match[str]) -> str:
        if m["base"] == ")":  # (1 − p)^t: the bracket stays text, its exponent is typeset alone
            return ")$" + _finish(_script_latex(m, "{}")) + "$"
        return "$" + _finish(_script_latex(m)) + "$"

    return _scripts(_readable(text), render)


def html(text: str) -> str:
    """``r^op`` → ``r<sup>op</sup>``: scripts for Plotly's text (titles, axes, legends, annotations); a number
    written ``1e-05`` reads 10⁻⁵. (Only a figure being built asks, and built figures are remembered.)"""

    def render(m: re.Match[str]) -> str:
        tag = "sup" if m["op"][-1] == "^" else "sub"
        out = f"{m['base']}<{tag}>{html(_inner(m['arg']))}</{tag}>"
        return out + (f"<sup>{''.join(_SQ[c] for c in m['sq'])}</sup>" if m["sq"] else "")

    return _scripts(_readable(text), render)


def plain(text: str) -> str:
    """``r^op`` → ``rᵒᵖ``, ``ε_i`` → ``εᵢ``: Unicode scripts where every character has one, else left as written."""

    def render(m: re.Match[str]) -> str:
        table = _SUP if m["op"][-1] == "^" else _SUB
        inner = _inner(m["arg"]).replace(" ", "")
        if not inner or any(c not in table for c in inner):
            return m[0]
        return m["base"] + "".join(table[c] for c in inner) + m["sq"]

    return _scripts(text, render)


#: Plain decimals from this magnitude up to :data:`_LARGE` (0.001, 0.5, 20, 123456); powers of ten outside it.
_SMALL = 1e-3
_LARGE = 1e6
_E_NUMBER = re.compile(r"(?<![\w.])(?P<m>\d+(?:\.\d+)?)e[+-]?\d+(?![\w.])")


def number(x: float, digits: int = 6) -> str:
    """A number as a reader writes it, to ``digits`` significant figures (counted as Python's ``g`` counts them).

    From 0.001 to below a million it is a plain decimal, trailing zeros dropped (``0.5``, ``20``, ``0.00123``;
    ``12300`` for 12345.6 at 3 figures, not ``1.23e+04``). Outside that range it is a power of ten with Unicode
    superscripts: 10⁻⁵, 3·10⁻⁶, 2.5·10⁶. Also 0, ∞, -∞ and "–" for not-a-number; a negative number starts
    with "-".
    """
    x = float(x)
    if math.isnan(x):
        return "–"
    sign = "-" if x < 0 else ""
    if math.isinf(x):
        return sign + "∞"
    if x == 0:
        return "0"
    size = abs(x)
    rounded = float(f"{size:.{digits}g}")  # decide the form after rounding: 0.00099996 at 3 figures is 0.001
    if _SMALL <= rounded < _LARGE:
        return sign + (f"{rounded:.0f}" if rounded >= 10.0**digits else f"{rounded:.{digits}g}")
    mantissa, _, exponent = f"{size:.{digits - 1}e}".partition("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    power = "10" + "".join(_SUP[c] for c in str(int(exponent)))
    return sign + (power if mantissa == "1" else f"{mantissa}·{power}")


def percent(share: float, decimals: int = 1) -> str:
    """A share as a reader says it: ``39.6 %`` (``decimals`` after the point, the same for every share a sentence
    compares: ``100.0 %`` beside ``99.9 %``); a share too small for them keeps two significant figures (``0.013 %``)."""
    share = float(share)
    if math.isnan(share):
        return "–"
    if 0 < abs(share) * 100 < 0.5 * 10.0**-decimals:  # too small for the decimals: two significant figures
        return f"{number(100 * share, 2)} %"
    return f"{100 * share:.{decimals}f} %"


def times(ratio: float) -> str:
    """A ratio as a reader says it: 2.5×, 37×, 1,490×, 2.5·10⁷× (never 1.49e+03×)."""
    if not math.isfinite(ratio):
        return "infinitely"
    return f"{ratio:,.0f}×" if 10 <= ratio < 1e7 else f"{number(ratio, 2)}×"


def odds_factor(epsilon: float) -> str:
    """What a budget ε means for a person, as a factor on the odds of any answer: ``×2.72`` for ε = 1 (e^ε, three
    significant figures; ``×1,490`` and ``×7.2·10¹⁰`` for larger ε)."""
    factor = math.exp(epsilon) if epsilon < 700 else math.inf
    if not math.isfinite(factor):
        return "an unlimited factor"
    if factor >= 1e7:
        return f"×{number(factor, 2)}"
    return f"×{factor:,.0f}" if factor >= 1000 else f"×{number(factor, 3)}"


#: A δ below this is written "negligible" (:func:`delta`): a failure probability far below anything that can be
#: observed (one in a thousand million million), whose digits would only distract.
NEGLIGIBLE_DELTA = 1e-15
NEGLIGIBLE = "negligible"
#: "δ = 3.42e-56", "exact δ of this plan = 3.42·10⁻⁵⁶", "at δ ≤ 10⁻²⁰": a δ, a few words, a relation and a number
_DELTA_IN_TEXT = re.compile(
    r"(?P<head>δ(?:[ \t][a-z]+){0,4}[ \t]?(?:=|≈|≤)[ \t]?)"
    r"(?P<num>\d+(?:\.\d+)?e[+-]?\d+|(?:\d+(?:\.\d+)?·)?10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?![\w·⁰¹²³⁴⁵⁶⁷⁸⁹]|\.\d)"
)


def delta(x: float, digits: int = 3) -> str:
    """δ as a reader reads it: "negligible" for 0 < δ < 10⁻¹⁵ (:data:`NEGLIGIBLE_DELTA`), else :func:`number`."""
    x = float(x)
    return NEGLIGIBLE if 0 < x < NEGLIGIBLE_DELTA else number(x, digits)


def _value(num: str) -> float:
    if "e" in num:
        return float(num)
    mantissa, _, power = num.rpartition("·")
    exponent = -int("".join(_SQ[c] for c in power[3:]))
    return float(mantissa or 1) * 10.0**exponent


def deltas_in(text: str) -> str:
    """Every "δ … = <number>" in ``text`` whose number is below 10⁻¹⁵ written "δ … = negligible": the one rule of
    :func:`delta` for sentences built elsewhere (dpcore's notes) or with :func:`number`."""

    def word(m: re.Match[str]) -> str:
        return m["head"] + NEGLIGIBLE if 0 < _value(m["num"]) < NEGLIGIBLE_DELTA else m[0]

    return _DELTA_IN_TEXT.sub(word, text)


def numbers_in(text: str) -> str:
    """Every number in ``text`` written the programmer's way (``1e-05``, ``7.53e-06``) rewritten by
    :func:`number`, keeping its significant figures: for sentences built outside the app (the ledger's reasons)."""

    def readable(m: re.Match[str]) -> str:
        figures = len(m["m"].replace(".", "").lstrip("0")) or 1
        return number(float(m[0]), figures)

    return _E_NUMBER.sub(readable, text)
