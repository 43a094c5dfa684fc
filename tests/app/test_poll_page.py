"""AppTest: the class poll page — starting a poll, the projector's view (QR code read back to the join link, the count
and the estimate), a phone answering once through the coin, closed and unknown polls, Stop and the replays — and what
the page keeps: never the true answer."""

from __future__ import annotations

import base64
import io
import math
import re
from datetime import timedelta

import numpy as np
import pytest
import zxingcpp
from PIL import Image

from app import classroom, poll_voter
from app import poll_store as ps
from app.catalogue.poll import QUESTIONS
from app.compute import poll as C
from app.figures import poll as F
from app.views.poll import _common
from dpcore.ldp import rr_survey as rr
from tests.app.conftest import open_boxes, open_page, shown_metrics
from tests.app.test_on_screen_text import _problems

PUBLIC = "https://dp.example.edu/course"


@pytest.fixture
def polls() -> ps.PollStore:
    return ps.get_poll_store()


@pytest.fixture
def clock(polls, monkeypatch):
    """The store's clock, moved by hand (a time limit passes without waiting)."""
    real = polls.clock
    offset = {"by": timedelta(0)}
    monkeypatch.setattr(polls, "clock", lambda: real() + offset["by"])
    return offset


NBSP = "\u00a0"


def _texts(at) -> str:
    """The page's text as a reader reads it (a no-break space is a space)."""
    return " ".join(
        str(e.value)
        for kind in ("title", "markdown", "caption", "info", "success", "error", "warning")
        for e in getattr(at, kind)
    ).replace(NBSP, " ")


def _qr_link(at) -> str:
    """The link in the QR code the projector shows: the PNG read back by zxing-cpp, a decoder independent of the
    segno encoder."""
    (img,) = [m.value for m in at.markdown if "dpx-poll-qr" in m.value]
    png = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", img)[1])
    (found,) = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert found.format == zxingcpp.BarcodeFormat.QRCode
    return found.text


def test_start_a_poll_opens_the_projector_view(polls):
    at = open_page("poll.py")
    assert not at.exception and at.title[0].value.startswith("Class poll")
    assert at.radio(key="pq").value == "cheat" and at.select_slider(key="eps").value == 1.0
    at.select_slider(key="eps").set_value(2.0).run()
    at.button(key="_dpx_poll_start").click().run()
    assert not at.exception, at.exception
    poll_id = at.query_params["poll"][0] if isinstance(at.query_params["poll"], list) else at.query_params["poll"]
    poll = polls.by_id(poll_id)
    assert poll.question == QUESTIONS["cheat"] and poll.epsilon == 2.0 and poll.answers == 0
    assert at.title[0].value == QUESTIONS["cheat"]
    assert shown_metrics(at)["So far"] == "0 answers"
    assert set(at.query_params) <= {"poll", "present"}  # the form's settings leave the projector's address


def test_own_question_is_required_and_kept(polls):
    at = open_page("poll.py", {"pq": "own"})
    at.button(key="_dpx_poll_start").click().run()
    assert any("Write your question first" in e.value for e in at.error) and "poll" not in at.query_params
    at.text_input(key="_dpx_poll_own").input("Did you vote in the last student election?").run()
    at.button(key="_dpx_poll_start").click().run()
    assert at.title[0].value == "Did you vote in the last student election?"


def test_a_student_who_came_to_the_start_page_types_the_code(polls):
    poll = polls.create(QUESTIONS["sleep"], 1.0, 10)
    at = open_page("poll.py")
    at.text_input(key="_dpx_poll_code").input(f" {poll.code.lower()} ")  # in a form: sent with its button
    at.button(key="_dpx_poll_join").click().run()
    assert not at.exception and at.title[0].value == QUESTIONS["sleep"]
    assert [b.label for b in at.button if b.key in ("_dpx_poll_yes", "_dpx_poll_no")] == ["Yes", "No"]


def test_the_qr_code_reads_back_to_the_public_join_link(polls, monkeypatch):
    monkeypatch.setenv(classroom.PUBLIC_URL_ENV, PUBLIC + "/")
    poll = polls.create(QUESTIONS["sleep"], 1.0, 10)
    at = open_page("poll.py", {"poll": poll.id})
    assert not at.exception
    assert _qr_link(at) == f"{PUBLIC}/poll?join={poll.code}"
    assert f"dp.example.edu/course/poll?join={poll.code}" in _texts(at)  # the short link the projector writes
    assert not any("DPX_PUBLIC_URL" in c.value for c in at.caption)  # a public address: no warning
    open_boxes(at, classroom.SHARE_KEY)  # the strip's share link never carries the teacher's capability
    shared = " ".join(c.value for c in at.code)
    assert "/poll" in shared and poll.id not in shared


def test_a_phone_answers_once_through_the_coin(polls, monkeypatch):
    """The report stored is the coin's output, not the button pressed: a coin forced to flip turns a Yes into a No
    report. The coin's generator is seeded from 128 cryptographic bits, and nothing of the answer stays in the
    session."""
    poll = polls.create(QUESTIONS["phone"], 1.0, 10)
    calls = []

    def flipping(truth, epsilon, rng):
        calls.append((truth, epsilon, type(rng)))
        return not truth

    monkeypatch.setattr(rr, "randomize", flipping)
    seeds = []
    real_bits = _common.secrets.randbits
    monkeypatch.setattr(_common.secrets, "randbits", lambda k: seeds.append(k) or real_bits(k))
    at = open_page("poll.py", {"join": poll.code.lower()})
    assert not at.exception and at.title[0].value == QUESTIONS["phone"]
    assert "73 %" in _texts(at)  # the one line on the coin, at ε = 1
    assert not at.get("popover") and not any(h.value == "Try this" for h in at.header)  # no classroom strip
    at.button(key="_dpx_poll_yes").click().run()
    assert not at.exception, at.exception
    assert calls == [(True, 1.0, np.random.Generator)] and seeds == [128]
    stored = polls.by_code(poll.code)
    assert (stored.answers, stored.yes) == (1, 0)  # the flipped report, never the Yes pressed
    assert any("your answer is in" in s.value for s in at.success)
    assert not [b for b in at.button if b.key in ("_dpx_poll_yes", "_dpx_poll_no")]
    for button in ("_dpx_poll_yes", "_dpx_poll_no"):  # the pressed button's trigger is gone with its run
        assert button not in at.session_state or at.session_state[button] is False
    kept = {k: at.session_state[k] for k in ("_dpx_poll_thanked", poll_voter._SESSION_KEY)}
    assert kept["_dpx_poll_thanked"] == {poll.code} and poll_voter.is_token(kept[poll_voter._SESSION_KEY])
    # a reload of the page in the same browser: answered already, politely, and still one answer
    again = open_page("poll.py", {"join": poll.code})
    again.session_state[poll_voter._SESSION_KEY] = kept[poll_voter._SESSION_KEY]
    again.run()
    assert any("answered this poll already" in i.value for i in again.info)
    assert not [b for b in again.button if b.key in ("_dpx_poll_yes", "_dpx_poll_no")]
    assert polls.by_code(poll.code).answers == 1


def test_a_second_answer_from_another_tab_is_refused_politely(polls):
    poll = polls.create(QUESTIONS["stream"], 0.5, 10)
    at = open_page("poll.py", {"join": poll.code})
    token = at.session_state[poll_voter._SESSION_KEY]
    polls.answer(poll.code, token, True)  # the same browser answered in another tab meanwhile
    at.button(key="_dpx_poll_no").click().run()
    assert not at.exception and not at.error
    assert any("answered this poll already" in i.value for i in at.info)
    assert polls.by_code(poll.code).answers == 1


def test_a_code_typed_spaced_out_as_the_projector_writes_it_opens_the_poll(polls):
    poll = polls.create(QUESTIONS["sleep"], 1.0, 10)
    spaced = " ".join(poll.code[:3].lower()) + "  " + " ".join(poll.code[3:])  # "a c e  3 4 7"
    at = open_page("poll.py")
    at.text_input(key="_dpx_poll_code").input(spaced)
    at.button(key="_dpx_poll_join").click().run()
    assert not at.exception and at.title[0].value == QUESTIONS["sleep"]


def test_a_mistyped_code_offers_the_box_again(polls):
    poll = polls.create(QUESTIONS["sleep"], 1.0, 10)
    at = open_page("poll.py", {"join": "QQQQQQ"})
    assert any("There is no poll with the code" in e.value for e in at.error)
    at.text_input(key="_dpx_poll_code").input(poll.code)
    at.button(key="_dpx_poll_join").click().run()
    assert not at.exception and not at.error and at.title[0].value == QUESTIONS["sleep"]


def test_unknown_and_closed_codes_get_a_clear_message(polls, clock):
    at = open_page("poll.py", {"join": "QQQQQQ"})
    assert any("There is no poll with the code" in e.value and "QQQQQQ" in e.value for e in at.error)
    at = open_page("poll.py", {"join": "<b>nope</b>"})
    assert any("There is no poll with the code" in e.value and "<b>" not in e.value for e in at.error)
    poll = polls.create(QUESTIONS["cheat"], 1.0, 5)
    polls.answer(poll.code, "someone", True)
    clock["by"] = timedelta(minutes=5, seconds=1)  # the time limit has passed
    at = open_page("poll.py", {"join": poll.code})
    assert any("This poll has closed (1 answer)" in i.value for i in at.info)
    assert not [b for b in at.button if b.key in ("_dpx_poll_yes", "_dpx_poll_no")]
    projector = open_page("poll.py", {"poll": poll.id})
    assert "Closed" in _texts(projector) and "What if ε had been different?" in [h.value for h in projector.header]
    unknown = open_page("poll.py", {"poll": "x" * 22})
    assert any("names no poll" in e.value for e in unknown.error)


def test_the_projector_shows_the_count_and_the_estimate(polls):
    poll = polls.create(QUESTIONS["sleep"], 1.0, 10)
    reports = [True] * 11 + [False] * 9
    for i, r in enumerate(reports):
        polls.answer(poll.code, f"phone-{i}", r)
    at = open_page("poll.py", {"poll": poll.id})
    shown = shown_metrics(at)
    p = math.e / (1 + math.e)
    share = (11 / 20 - (1 - p)) / (2 * p - 1)  # Warner's estimate by hand
    # a share on the projector keeps its sign on its line: a no-break space before the %
    assert shown["So far"] == "20 answers" and shown["Yes reports"] == f"55{NBSP}%"
    assert shown["Estimated true share of Yes"] == f"{100 * share:.0f}{NBSP}%"
    delta = next(m for m in at.metric if m.label == "Estimated true share of Yes").proto.delta
    e = rr.estimate(11, 20, 1.0)
    assert delta == f"95 % interval: {100 * e.low:.0f}{NBSP}% to {100 * e.high:.0f}{NBSP}%"
    assert "ℓ(Yes) = 1 for a Yes and ℓ(No) = 1 for a No" in _texts(at)


def test_stop_closes_the_poll_and_the_replays_follow(polls):
    poll = polls.create(QUESTIONS["phone"], 1.0, 10)
    for i in range(30):
        polls.answer(poll.code, f"phone-{i}", i % 3 != 0)  # 20 Yes reports of 30
    at = open_page("poll.py", {"poll": poll.id})
    at.button(key="_dpx_poll_stop").click().run()
    assert not at.exception, at.exception
    assert polls.by_id(poll.id).stopped_at is not None
    with pytest.raises(ps.PollClosed):
        polls.answer(poll.code, "late", True)
    shown = shown_metrics(at)
    e = rr.estimate(20, 30, 1.0)
    assert f"30 students, {100 * e.share:.0f} % of them truly Yes" in _texts(at)
    for eps in (1.0, 0.5):  # the spread of the estimate over replays of this class: √(p(1 − p)/n)/(2p − 1), by hand
        p = math.exp(eps) / (1 + math.exp(eps))
        sd = math.sqrt(p * (1 - p) / 30) / (2 * p - 1)
        label = next(k for k in shown if k.startswith(f"Spread of the estimate at ε = {eps:g} "))
        assert shown[label] == f"± {100 * sd:.0f} points"
    at.select_slider(key="reps").set_value(2.0).run()
    assert any(k.startswith("Spread of the estimate at ε = 2 ") for k in shown_metrics(at))
    assert at.query_params["reps"] in ("2", ["2"])  # the replay is a link: seeded, reproducible


def test_a_class_of_one_replays_in_words_and_every_estimate_in_a_bin(polls):
    """One answer at ε = 1: the estimate of a replay is (λ − q)/(2p − 1) with λ ∈ {0, 1}, i.e. −0.58 or 1.58 (and
    −1.54 or 2.54 at ε = 0.5), outside 0–100 %; the histogram's bins reach them and the page says why."""
    poll = polls.create(QUESTIONS["phone"], 1.0, 10)
    polls.answer(poll.code, "only-phone", True)
    at = open_page("poll.py", {"poll": poll.id})
    at.button(key="_dpx_poll_stop").click().run()
    assert not at.exception
    text = _texts(at)
    assert "1 student," in text and "1 students" not in text
    assert "less than 0 % or more than 100 %" in text
    deltas = [m.proto.delta for m in at.metric if m.label.startswith("Spread of the estimate")]
    assert len(deltas) == 2 and all(d == "typical 95 % interval: all of 0–100 %" for d in deltas), deltas
    r = C.replays(1, 1.0, 1.0, 0.5, 0)
    for trace in F.replays(r.frame, share=1.0).data:
        bins = trace.xbins
        assert min(trace.x) >= bins.start and max(trace.x) < bins.end, (trace.name, min(trace.x), max(trace.x))
    for eps in (1.0, 0.5):  # the two possible estimates, by hand
        p = math.exp(eps) / (1 + math.exp(eps))
        values = sorted(r.frame.loc[r.frame["epsilon"] == eps, "estimate"].unique())
        assert values == pytest.approx([(0 - (1 - p)) / (2 * p - 1), (1 - (1 - p)) / (2 * p - 1)])


def test_replays_are_seeded_and_centred_on_the_class():
    r = C.replays(40, 0.6, 1.0, 0.5, 7)
    assert r.true_yes == 24 and len(r.frame) == 2 * C.RUNS
    again = C.replays(40, 0.6, 1.0, 0.5, 7)
    assert again.frame.equals(r.frame)
    for eps, part in r.frame.groupby("epsilon"):
        sd = math.sqrt(math.exp(eps) / 40) / math.expm1(eps)  # only the coins vary: e^ε/(n(e^ε − 1)²)
        assert abs(part["estimate"].mean() - 0.6) < 4 * sd / math.sqrt(C.RUNS)
        assert part["estimate"].std() == pytest.approx(sd, rel=0.08)
    assert r.runs[1].typical_width > r.runs[0].typical_width  # ε = 0.5: wider than at ε = 1


@pytest.mark.parametrize("view", ["setup", "open", "answering", "answered", "closed", "unknown"])
def test_every_view_reads_as_words_and_typeset_maths(polls, view):
    poll = polls.create(QUESTIONS["cheat"], 1.0, 10)
    for i in range(8):
        polls.answer(poll.code, f"p{i}", i % 2 == 0)
    query = {
        "setup": {},
        "open": {"poll": poll.id},
        "answering": {"join": poll.code},
        "answered": {"join": poll.code},
        "closed": {"poll": poll.id},
        "unknown": {"join": "ZZZZZZ"},
    }[view]
    if view == "closed":
        polls.stop(poll.id)
    at = open_page("poll.py", query)
    if view == "answered":
        at.button(key="_dpx_poll_yes").click().run()
    assert not at.exception, at.exception
    assert not _problems(at), _problems(at)


def test_the_browser_token_cookie_is_read_when_sent(monkeypatch):
    """A browser that sent the poll cookie is known by it in every tab (the cookie is a session cookie)."""
    import streamlit as st

    token = poll_voter.new_token()

    class Context:
        cookies = {poll_voter.COOKIE: token}

    monkeypatch.setattr(st, "context", Context())
    assert poll_voter.token() == token
    Context.cookies = {poll_voter.COOKIE: "not a token'; --"}
    monkeypatch.setattr(st, "session_state", {})
    own = poll_voter.token()
    assert own != token and poll_voter.is_token(own) and poll_voter.token() == own  # the session's own, kept


def test_the_projector_and_replay_charts_equal_plotlys_checked_ones(polls, monkeypatch):
    """The live chart (with a poll's numbers on it) and the replays' histograms, built unchecked as in the app, are
    the figures Plotly's checked constructor builds (tests/app/test_figures.py does this for every page's default
    view; these two appear only with a poll)."""
    from tests.app.test_figures import _figures_of, _same_as_checked

    poll = polls.create(QUESTIONS["cheat"], 1.0, 10)
    for i in range(9):
        polls.answer(poll.code, f"p{i}", i % 3 == 0)
    built = _figures_of("poll.py", {"poll": poll.id}, monkeypatch)
    polls.stop(poll.id)
    built += _figures_of("poll.py", {"poll": poll.id}, monkeypatch)
    titles = {str((g["layout"] or {}).get("title", {}).get("text")) for g, _ in built}
    assert any("estimate undoes it" in t for t in titles) and any("again and again" in t for t in titles)
    _same_as_checked(built)


def test_the_set_up_warning_for_a_local_address_is_the_teachers_not_the_projected_pages(polls):
    """On a loopback address the teacher is told phones cannot reach it; in presentation mode the class is not."""
    at = open_page("poll.py")
    at.button(key="_dpx_poll_start").click().run()
    poll_id = dict(at.query_params)["poll"]
    assert "Phones cannot open this address" in _texts(at)
    projected = open_page("poll.py", {"poll": poll_id, "present": "true"})
    assert not projected.exception
    assert shown_metrics(projected)["So far"] == "0 answers"
    assert "Phones cannot open this address" not in _texts(projected)
