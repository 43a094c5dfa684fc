"""The one answer checker of every exercise: the app's "Try this", the first course's checks and the lessons.

An answer is judged at the precision the page shows it. ``Check.shown`` is the answer exactly as the reader sees it
on the page ("0.9", "52 %", "14.06", "7.53·10⁻⁶", "Gaussian"); a typed number is right when it **rounds to the shown
answer at the shown precision**, i.e. it lies within half a unit of the shown answer's last digit (0.905 and 0.94
both count for "0.9"; 52.5 counts for "52 %"). A share may be written in any of the forms people use: "90 %", "90%",
"90" or "0.9" for a shown "90 %", and "39.35 %" for a shown "0.3935" when the check is a share. A decimal comma, a
Unicode minus, a trailing "×" and powers of ten (10⁻⁵, 7.5·10⁻⁶, 7.5e-6) are read too.

A number given to fewer digits than the page shows but right to those digits (62 for "62.2 %") is asked for the
page's digits: not counted as a wrong try, and not told "too low".

Tries teach before they tell: the first wrong answer gets ``hints[0]`` (where to look, never the value), the second
``hints[1]`` (a stronger pointer, still no value), and the third the worked solution, which the reader may also ask
for at any time. Nothing here draws: :mod:`app.classroom` (Streamlit) and :mod:`app.lessons` (marimo) show the
:class:`Reply` this module returns.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

#: Replies, in the order a reader meets them.
EMPTY, RIGHT, HINT, STRONGER, SOLVED, UNREADABLE = "empty", "right", "hint", "stronger", "solution", "unreadable"
#: A number right to the fewer digits it gives (62 for a shown 62.2 %): asked for the page's digits, not a wrong try.
CLOSE = "close"

_SUPER = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-", strict=True))
_POWER = re.compile(r"^(?:(?P<m>[0-9]*\.?[0-9]+)\s*[·×x*]\s*)?10(?P<e>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")
_CARET = re.compile(r"^(?:(?P<m>[0-9]*\.?[0-9]+)\s*[·×x*]\s*)?10\^\(?(?P<e>-?[0-9]+)\)?$")


#: 1,490 or 1 490: thousands (a first group of 0 is not one: 0,622 is a decimal comma)
_THOUSANDS = re.compile(r"[1-9][0-9]{0,2}(?:[ ,][0-9]{3})+(?:\.[0-9]+)?")


def read_number(text: str) -> float | None:
    """What a reader's typed number means, or None when it is not a number.

    ``0.9``, ``0,9``, ``−0.5``, ``1,490``, ``1 490``, ``753×``, ``10⁻⁵``, ``7.53·10⁻⁶``, ``7.53e-6``, ``10^-5``.
    """
    s = str(text).strip().replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
    s = s.rstrip("×").strip()
    sign = 1.0
    if s.startswith(("-", "+")):
        sign, s = (-1.0 if s[0] == "-" else 1.0), s[1:].strip()
    for pattern, digits in ((_POWER, _SUPER), (_CARET, None)):
        m = pattern.match(s)
        if m:
            exp = "".join(digits[c] for c in m["e"]) if digits else m["e"]
            try:
                return sign * float(m["m"] or 1.0) * 10.0 ** int(exp)
            except (ValueError, OverflowError):
                return None
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "").replace(" ", "")
    elif s.count(",") == 1 and "." not in s:  # 0,9: a decimal comma
        s = s.replace(",", ".")
    if not re.fullmatch(r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", s):
        return None
    x = sign * float(s)
    return x if math.isfinite(x) else None


def _decimals_and_scale(shown: str) -> tuple[float, float]:
    """(value, half a unit of the last shown digit) of a shown number: "0.9" → (0.9, 0.05), "7.53·10⁻⁶" →
    (7.53e-6, 0.005e-6), "10⁻⁸" → (1e-8, 0.5e-8), "1,490" → (1490, 0.5)."""
    body = shown.strip().removesuffix("%").strip().removesuffix("×").strip().replace("\u2212", "-")
    value = read_number(body)
    if value is None:
        raise ValueError(f"shown: {shown!r} is not a number as a page shows it")
    m = _POWER.match(body.lstrip("-")) or _CARET.match(body.lstrip("-"))
    if m:
        mantissa = m["m"] or "1"
        scale = abs(value) / float(mantissa)
    else:
        mantissa, scale = body.lstrip("-").replace(",", "").replace(" ", ""), 1.0
    decimals = len(mantissa.partition(".")[2])
    return value, 0.5 * 10.0 ** (-decimals) * scale


def _typed_half_unit(text: str) -> float | None:
    """Half a unit of the last digit of a typed number, in its own unit ("62" → 0.5, "0,62" → 0.005, "7.5e-6" →
    0.05e-6), or None when it is not a number."""
    body = text.strip().replace("\u2212", "-").lstrip("+-").strip()
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)[eE]([-+]?[0-9]+)", body)
    if m:
        return 0.5 * 10.0 ** (-len(m[1].partition(".")[2]) + int(m[2]))
    if body.count(",") == 1 and "." not in body and not _THOUSANDS.fullmatch(body):
        body = body.replace(",", ".")
    try:
        return _decimals_and_scale(body)[1]
    except ValueError:
        return None


@dataclass(frozen=True)
class Reply:
    """What the reader is told: ``state`` is one of EMPTY, RIGHT, HINT, STRONGER, SOLVED, UNREADABLE, CLOSE; ``text``
    the words; ``solution`` is True when the worked solution is to be shown open."""

    state: str
    text: str
    solution: bool = False

    @property
    def right(self) -> bool | None:
        """True / False once answered; None when there is nothing to judge yet."""
        return None if self.state in (EMPTY, UNREADABLE, CLOSE) else self.state == RIGHT


def _precision(shown: str) -> str:
    """How precisely a shown answer is written, in words: "one decimal", "three decimals", "a whole number"."""
    body = shown.strip().removesuffix("%").strip().removesuffix("×").strip()
    m = _POWER.match(body.lstrip("-\u2212")) or _CARET.match(body.lstrip("-\u2212"))
    mantissa = (m["m"] or "1") if m else body
    n = len(mantissa.partition(".")[2])
    words = {0: "a whole number", 1: "one decimal", 2: "two decimals", 3: "three decimals", 4: "four decimals"}
    return words.get(n, f"{n} decimals") + (" before the power of ten" if m and n else "")


@dataclass(frozen=True)
class Check:
    """One exercise's answer: ``shown`` exactly as the page shows it, the two hints, and (for a choice) the options.

    ``share`` marks a proportion shown as a decimal ("0.3935"): then "39.35 %" counts too. A shown answer ending in
    "%" is always a share.
    """

    shown: str
    hints: tuple[str, str]
    options: tuple[str, ...] = ()
    share: bool = False
    why: str = ""  # one or two sentences said with a right answer (and after the solution)

    def __post_init__(self) -> None:
        if len(self.hints) != 2 or not all(h.strip() for h in self.hints):
            raise ValueError("hints: an exercise needs two hints (a first pointer and a stronger one)")
        if self.options:
            if self.shown not in self.options:
                raise ValueError(f"shown: {self.shown!r} is not one of the options {self.options}")
        else:
            _decimals_and_scale(self.shown)

    @property
    def percent(self) -> bool:
        return self.shown.strip().endswith("%")

    @property
    def value(self) -> float | str:
        """The shown answer as a number (a percentage for a shown "52 %"), or the right option."""
        return self.shown if self.options else _decimals_and_scale(self.shown)[0]

    @property
    def half_unit(self) -> float:
        """Half a unit of the shown answer's last digit: how far a typed number may be from it."""
        return _decimals_and_scale(self.shown)[1]

    def candidates(self, raw: str) -> list[float]:
        """Every reading of a typed answer in the shown answer's unit (a share: as a percentage and as a fraction)."""
        text = str(raw).strip()
        has_percent = text.endswith("%")
        x = read_number(text.removesuffix("%").strip())
        if x is None:
            return []
        if self.percent:  # shown "52 %": 52, 52 %, 0.52 all mean the same share
            return [x] if has_percent else [x, 100.0 * x]
        if self.share:  # shown "0.3935": 0.3935, 39.35 %, 39.35
            return [x / 100.0] if has_percent else [x, x / 100.0]
        return [math.nan] if has_percent else [x]  # a percentage where none is asked for: readable, but wrong

    def is_right(self, raw: str) -> bool | None:
        """Right at the shown precision? None when ``raw`` is empty or cannot be read."""
        if raw is None or not str(raw).strip():
            return None
        if self.options:
            return str(raw).strip() == self.shown
        found = self.candidates(raw)
        if not found:
            return None
        target, half = _decimals_and_scale(self.shown)
        return any(abs(x - target) <= half * (1 + 1e-9) + 1e-15 for x in found)

    def is_close(self, raw: str) -> bool:
        """A number given to fewer digits than the page shows, and right to those digits: the shown answer rounds to
        it (62 or 0.62 for a shown "62.2 %", 1.2 for a shown "1.151")."""
        text = str(raw).strip()
        half = _typed_half_unit(text.removesuffix("%").strip()) if not self.options else None
        if half is None:
            return False
        target, shown_half = _decimals_and_scale(self.shown)
        x = read_number(text.removesuffix("%").strip())
        if x is None:
            return False
        if self.percent:
            pairs = [(x, half)] if text.endswith("%") else [(x, half), (100.0 * x, 100.0 * half)]
        elif self.share:
            pairs = [(x / 100.0, half / 100.0)] if text.endswith("%") else [(x, half), (x / 100.0, half / 100.0)]
        else:
            pairs = [] if text.endswith("%") else [(x, half)]
        return any(h > shown_half * (1 + 1e-9) and abs(v - target) <= h * (1 + 1e-9) for v, h in pairs)

    def direction(self, raw: str) -> str:
        """ "too high" / "too low" for a wrong number (compared in the shown unit), "" otherwise."""
        found = [x for x in self.candidates(raw) if not math.isnan(x)]
        if self.options or not found:
            return ""
        target = _decimals_and_scale(self.shown)[0]
        x = min(found, key=lambda v: abs(v - target))
        return "too high" if x > target else "too low"

    def reply(self, raw: str | None, wrong_before: int = 0) -> Reply:
        """The reply to ``raw`` after ``wrong_before`` wrong answers (unreadable ones do not count)."""
        if raw is None or not str(raw).strip():
            return Reply(EMPTY, "Type your answer, then press Enter." if not self.options else "Pick an answer.")
        ok = self.is_right(raw)
        if ok is None:
            return Reply(
                UNREADABLE,
                f"“{str(raw).strip()[:40]}” is not a number I can read. Answer with a number, "
                "for example 0.25" + (" or 25 %." if self.percent or self.share else "."),
            )
        if ok:
            return Reply(RIGHT, "Right. " + self.why if self.why else "Right.")
        if self.is_close(raw):
            return Reply(
                CLOSE,
                f"Close: that is right to the digits you gave. Give it as precisely as the page shows it "
                f"({_precision(self.shown)}).",
            )
        tries = wrong_before + 1
        where = self.direction(raw)
        said = f"Not yet: that is {where}. " if where else "Not yet. "
        if tries == 1:
            return Reply(HINT, said + self.hints[0])
        if tries == 2:
            return Reply(STRONGER, said + "A stronger hint: " + self.hints[1])
        return Reply(SOLVED, said + "Here is the worked solution.", solution=True)


@dataclass
class Tries:
    """The wrong answers one reader has given to one exercise (a Streamlit session or a marimo input keeps one)."""

    wrong: list[str] = field(default_factory=list)
    last: str | None = None
    reply: Reply | None = None

    def answer(self, check: Check, raw: str | None) -> Reply:
        """Judge ``raw``; a new wrong answer counts once (the same answer judged again, e.g. on a rerun, does not)."""
        text = None if raw is None else str(raw).strip()
        if text == self.last and self.reply is not None:
            return self.reply
        reply = check.reply(text, len(self.wrong))
        if reply.right is False:
            self.wrong.append(text or "")
        self.last, self.reply = text, reply
        return reply
