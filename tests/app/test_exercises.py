"""The one answer checker every exercise uses (app/exercises/check.py) and every exercise of the app's pages and of
the first course: the right answer at the precision shown passes, in the forms people write it; typical wrong
answers get a hint that does not give the value away, then a stronger one, then the worked solution."""

from __future__ import annotations

import re

import pytest

from app import course, registry
from app.exercises.check import CLOSE, EMPTY, HINT, RIGHT, SOLVED, STRONGER, UNREADABLE, Check, Tries, read_number

HINTS = ("Look at the picture.", "Read the number under it.")


# ------------------------------------------------------------------------------------------------ the rule


@pytest.mark.parametrize("typed", ["0.9", "0.905", "0.94", "0,9", "0.85", " 0.9 "])
def test_a_number_is_right_when_it_rounds_to_the_shown_answer(typed):
    assert Check("0.9", HINTS).is_right(typed) is True  # the chart's 0.9 for the exact 0.905


@pytest.mark.parametrize("typed", ["0.96", "0.84", "1", "9", "0.09"])
def test_a_number_that_rounds_elsewhere_is_wrong(typed):
    assert Check("0.9", HINTS).is_right(typed) is False


@pytest.mark.parametrize("typed", ["90%", "90 %", "0.9", "90", "0.904", "90.4 %", "89.5"])
def test_a_share_is_read_in_every_form_people_write_it(typed):
    assert Check("90 %", HINTS).is_right(typed) is True


@pytest.mark.parametrize("typed", ["52", "52.5", "52 %", "0.52", "0.525", "52.4979"])
def test_52_counts_for_a_share_shown_to_whole_percent(typed):
    assert Check("52 %", HINTS).is_right(typed) is True


@pytest.mark.parametrize("typed", ["53", "51.4", "0.53", "5.2"])
def test_whole_percent_answers_off_by_one_are_wrong(typed):
    assert Check("52 %", HINTS).is_right(typed) is False


def test_a_decimal_share_also_takes_its_percentage():
    share = Check("0.3935", HINTS, share=True)
    assert share.is_right("39.35 %") and share.is_right("0.3935") and share.is_right("39.35")
    assert share.is_right("0.39") is False
    not_a_share = Check("0.9", HINTS)  # an ε, not a share: "0.9 %" is readable but wrong
    assert not_a_share.is_right("0.9 %") is False and not_a_share.is_right("90 %") is False


@pytest.mark.parametrize("typed", ["7.53e-6", "7.53·10⁻⁶", "7.53 × 10⁻⁶", "7.534e-06", "0.00000753", "7.53*10^-6"])
def test_powers_of_ten_are_read(typed):
    assert Check("7.53·10⁻⁶", HINTS).is_right(typed) is True


def test_read_number_reads_what_people_type():
    assert read_number("1,490") == 1490 and read_number("1 490") == 1490 and read_number("0,25") == 0.25
    assert read_number("−0.5") == -0.5 and read_number("753×") == 753 and read_number("10⁻⁵") == 1e-5
    assert read_number("abc") is None and read_number("") is None and read_number("1e999") is None
    # a decimal comma with three decimals: no count of thousands starts with 0
    assert read_number("0,622") == 0.622 and read_number("−0,125") == -0.125 and read_number("10,622") == 10622
    assert Check("62.2 %", HINTS).is_right("0,622") is True


@pytest.mark.parametrize(
    ("shown", "typed", "precision"),
    [
        ("62.2 %", "62", "one decimal"),  # the first course's chapter 1, at ε = 0.5
        ("62.2 %", "0.62", "one decimal"),
        ("39.6 %", "40", "one decimal"),
        ("14.06", "14", "two decimals"),
        ("1.151", "1.2", "three decimals"),  # the negotiate lesson's answer, rounded up as the page recommends it
        ("7.53·10⁻⁶", "7.5e-6", "two decimals before the power of ten"),
    ],
)
def test_an_answer_right_to_fewer_digits_is_asked_for_the_pages_digits(shown, typed, precision):
    """Not "too low" (which sends the reader the wrong way) and not a wrong try: the shown answer rounds to what was
    typed, at the typed precision."""
    check = Check(shown, HINTS)
    tries = Tries()
    reply = tries.answer(check, typed)
    assert reply.state == CLOSE and reply.right is None and precision in reply.text, reply.text
    assert "too" not in reply.text and not tries.wrong
    assert tries.answer(check, shown.replace("·10⁻⁶", "e-6")).state == RIGHT


@pytest.mark.parametrize(("shown", "typed"), [("62.2 %", "61"), ("1.151", "1.1"), ("14.06", "15"), ("1,490", "1500")])
def test_an_answer_wrong_at_its_own_digits_is_wrong(shown, typed):
    assert Check(shown, HINTS).reply(typed).state == HINT


def test_tries_teach_before_they_tell():
    check = Check("0.9", HINTS, why="Because.")
    tries = Tries()
    assert tries.answer(check, "").state == EMPTY
    assert tries.answer(check, "abc").state == UNREADABLE  # not a number: does not count as a try
    first = tries.answer(check, "2")
    assert first.state == HINT and HINTS[0] in first.text and "too high" in first.text and not first.solution
    assert tries.answer(check, "2").state == HINT  # the same answer judged again (a rerun) counts once
    second = tries.answer(check, "0.1")
    assert second.state == STRONGER and HINTS[1] in second.text and "too low" in second.text
    third = tries.answer(check, "0.5")
    assert third.state == SOLVED and third.solution
    assert tries.answer(check, "0.9").state == RIGHT


def test_a_check_needs_two_hints_and_a_readable_answer():
    with pytest.raises(ValueError, match="hints"):
        Check("0.9", ("only one",))
    with pytest.raises(ValueError, match="shown"):
        Check("about a half", HINTS)
    with pytest.raises(ValueError, match="shown"):
        Check("maybe", HINTS, options=("yes", "no"))


# --------------------------------------------------------------------------- every exercise of app and course

PAGE_CHECKS = [(ex.id, ex.check, ex.answer) for page in registry.PAGES for ex in page.exercises]
COURSE_CHECKS = [(f"course-{ch.slug}", ch.check, ch.solution) for ch in course.CHAPTERS]
ALL = PAGE_CHECKS + COURSE_CHECKS


def test_every_exercise_has_an_answer_box():
    missing = [i for i, check, _ in PAGE_CHECKS if check is None]
    assert not missing, missing


def _right_forms(check: Check) -> list[str]:
    """What a reader may type for the shown answer: as shown, and the other forms of a share."""
    if check.options:
        return [check.shown]
    shown = check.shown.replace("·10", "e").replace("⁻", "-")
    forms = [check.shown, check.shown.replace(" %", "%")]
    value = check.value
    if check.percent:
        forms += [check.shown.removesuffix("%").strip(), f"{value / 100:.{_decimals(check) + 2}f}"]
    elif check.share:
        forms += [f"{100 * value:.{max(_decimals(check) - 2, 0)}f} %"]
    if "e" in shown:
        forms.append(f"{value:.6e}")
    return forms


def _decimals(check: Check) -> int:
    body = check.shown.removesuffix("%").strip().partition("·")[0]
    return len(body.partition(".")[2])


def _wrong_forms(check: Check) -> list[str]:
    """Typical wrong answers: off by a factor (a slip of the decimal point), the neighbour, an unrelated number."""
    if check.options:
        return [o for o in check.options if o != check.shown]
    value, unit = check.value, " %" if check.percent else ""
    if value == 0:
        return ["1", "2.5", "4.2"]
    out = [f"{value * 10:g}{unit}", f"{value * 1.5 + 1:g}{unit}"]
    return out + ([f"{value / 2 - 0.3:g}{unit}"] if value / 2 - 0.3 > 0 else [])


def _value_forms(check: Check) -> list[str]:
    """The shown answer as it could appear in a hint: as shown, without its unit, its whole part, its other form."""
    if check.options:
        return [check.shown]
    body = check.shown.removesuffix("%").removesuffix("×").strip()
    forms = [body]
    if "." in body and "·" not in body:
        whole = body.split(".")[0]
        if len(whole.lstrip("0")) >= 2:
            forms.append(whole)
    if check.percent:
        forms.append(f"{check.value / 100:g}")
    return forms


@pytest.mark.parametrize("name,check,solution", ALL, ids=[a[0] for a in ALL])
def test_the_right_answer_passes_in_every_form(name, check, solution):
    for typed in _right_forms(check):
        assert check.is_right(typed) is True, (name, typed)
        assert check.reply(typed).state == RIGHT


@pytest.mark.parametrize("name,check,solution", ALL, ids=[a[0] for a in ALL])
def test_wrong_answers_get_hints_that_do_not_give_the_value_away(name, check, solution):
    wrong = _wrong_forms(check)
    assert wrong, name
    for typed in wrong:
        assert check.is_right(typed) is False, (name, typed)
    tries = Tries()
    replies = (
        [tries.answer(check, typed) for typed in (wrong * 3)[:3]]
        if len(set(wrong)) >= 3
        else [check.reply(wrong[0], n) for n in range(3)]
    )
    assert [r.state for r in replies] == [HINT, STRONGER, SOLVED], name
    for reply, hint in zip(replies[:2], check.hints, strict=True):
        assert hint in reply.text and not reply.solution
        for form in _value_forms(check):
            pattern = rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)"
            assert not re.search(pattern, hint), (name, form, hint)
    assert replies[2].solution
    if not check.options:  # the worked solution does state the answer
        assert _value_forms(check)[0] in solution.replace("**", ""), (name, solution)
