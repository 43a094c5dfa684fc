"""Lesson sequences (app/sequences.py): every ready-made view opens a real page with valid settings, and a teacher's
own sequence survives the round trip through its link; damaged links give a message naming the bad value."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

import app.catalogue.brdp  # noqa: F401
import app.catalogue.svt  # noqa: F401
from app import catalogue, params, sequences
from app.sequences import Step
from app.views.brdp import explore as brdp_explore
from app.views.brdp import reproduce as brdp_reproduce
from app.views.svt import explore as svt_explore
from app.views.svt import reproduce as svt_reproduce

PARTS = {
    ("brdp", "explore"): list(brdp_explore.EXPLORE_TABS),
    ("brdp", "reproduce"): list(brdp_reproduce.PARTS),
    ("svt", "explore"): list(svt_explore.PARTS),
    ("svt", "reproduce"): list(svt_reproduce.PARTS),
}


@pytest.mark.parametrize("lesson", list(sequences.LESSONS.values()), ids=list(sequences.LESSONS))
def test_ready_made_lessons_open_valid_views(lesson):
    assert 3 <= len(lesson.steps) <= (10 if lesson.id == "start" else 8)  # the first course has ten chapters
    for step in lesson.steps:
        assert step.page in sequences.PAGES and step.say
        for key, raw in step.query.items():
            if key == "part":
                view = step.query.get("view", "explore")
                assert raw in PARTS[(step.page, view)], (step, raw)
                continue
            p = catalogue.get(key)  # raises on a key the catalogue does not define
            _, problem, note = params.judge(p, raw, p.default)
            assert problem is None and note is None, (key, raw, problem, note)


def test_custom_sequence_round_trips_through_its_link():
    steps = [
        Step("baselines", {"eps": "0.5", "sens": "2"}, "noise grows as ε shrinks"),
        Step("", {"eps": "1"}),
        Step("svt", {"part": "Run", "eps": "0.1"}, "é ≈ ü — unicode survives"),
    ]
    code = sequences.encode(steps)
    assert code.startswith("~") and all(c.isalnum() or c in "-_~" for c in code)
    lesson, i = sequences.parse(code, "3")
    assert i == 2 and lesson.steps == tuple(steps)
    # independent decoding of the documented format: base64url(zlib(JSON rows))
    rows = json.loads(zlib.decompress(base64.urlsafe_b64decode(code[1:] + "=" * (-len(code[1:]) % 4))))
    assert rows[0] == ["baselines", {"eps": "0.5", "sens": "2"}, "noise grows as ε shrinks"]
    assert rows[1] == ["", {"eps": "1"}]


def test_view_query_carries_lesson_step_and_presentation():
    lesson = sequences.LESSONS["svt"]
    q = sequences.view_query(lesson, 1, present=True)
    assert q["seq"] == "svt" and q["step"] == "2" and q["present"] == "true" and q["part"] == "Correction"
    assert "present" not in sequences.view_query(lesson, 1)


def test_classroom_keys_are_not_stored_in_a_step():
    assert sequences.strip_classroom_keys({"eps": "1", "seq": "x", "step": "2", "present": "true"}) == {"eps": "1"}
    with pytest.raises(ValueError, match="setting"):
        sequences.encode([Step("baselines", {"seq": "x"})])


def test_a_lesson_never_carries_a_ledger_id():
    """A ledger's id lets whoever holds it add releases: a teacher's lesson link must not hand it to the class."""
    assert sequences.strip_classroom_keys({"eps": "1", "ledger": "abc"}) == {"eps": "1"}
    with pytest.raises(ValueError, match="setting"):
        sequences.encode([Step("baselines", {"ledger": "abc"})])
    # a link built before the id was left out still opens, without it
    old = [["baselines", {"eps": "2", "ledger": "a" * 22}, "note"]]
    code = "~" + base64.urlsafe_b64encode(zlib.compress(json.dumps(old).encode())).decode().rstrip("=")
    lesson = sequences.decode(code)
    assert lesson.steps[0].query == {"eps": "2"} and lesson.steps[0].say == "note"


@pytest.mark.parametrize(
    "seq,step,match",
    [
        ("nope", None, "ready-made lessons are “A first course"),
        ("~not-base64!!", None, "damaged"),
        ("~" + base64.urlsafe_b64encode(zlib.compress(b'[["nowhere",{}]]')).decode(), None, "not one of the app"),
        ("~" + base64.urlsafe_b64encode(zlib.compress(b'{"a":1}')).decode(), None, "damaged"),
        ("~" + base64.urlsafe_b64encode(zlib.compress(b'[["",{"eps":1}]]')).decode(), None, "unreadable value"),
        ("eps", "0", "views 1 to 6"),
        ("eps", "7", "views 1 to 6"),
        ("eps", "two", "views 1 to 6"),
        ("~" + "A" * 5000, None, "damaged"),
        # a step's setting is a number, an option or a part's name, never markup or a link (a lesson's next-view link
        # carries it)
        (
            "~"
            + base64.urlsafe_b64encode(
                zlib.compress(b'[["baselines",{"eps":"[click](javascript:alert(4))"}]]')
            ).decode(),
            None,
            "unreadable value",
        ),
        (
            "~" + base64.urlsafe_b64encode(zlib.compress(b'[["brdp",{"part":"<img src=x>"}]]')).decode(),
            None,
            "unreadable value",
        ),
    ],
)
def test_bad_links_raise_a_message_naming_the_value(seq, step, match):
    with pytest.raises(ValueError, match=match):
        sequences.parse(seq, step)


def test_encode_rejects_empty_and_overlong_lessons():
    with pytest.raises(ValueError, match="between 1 and"):
        sequences.encode([])
    with pytest.raises(ValueError, match="between 1 and"):
        sequences.encode([Step("")] * (sequences.MAX_STEPS + 1))
    with pytest.raises(ValueError, match="not one of the app"):
        sequences.encode([Step("elsewhere")])


def test_default_step_is_the_first():
    assert sequences.parse("brdp", None)[1] == 0 and sequences.parse("brdp", " ")[1] == 0


def test_in_app_links_name_the_tabs_saved_ledger():
    """Once the tab's ledger is saved, every in-app link names it: a lesson's Next link opens the next view's page with
    that view's settings in the address, and a page switch must not leave the address without the ledger even for a
    moment (a server restarted at that moment would otherwise reconnect the tab to a new, empty ledger)."""
    from urllib.parse import parse_qsl

    from app import ledger_store
    from tests.app.conftest import open_page

    def next_links(at):
        return [dict(parse_qsl(p.proto.query_string)) for p in at.get("page_link") if p.proto.label == "Next"]

    at = open_page("baselines.py", {"seq": "eps", "step": "4", "eps": "1", "sens": "1"})
    assert not at.exception
    before = next_links(at)
    assert len(before) == 2 and all("ledger" not in q for q in before)  # at the top and under the step's panel
    next(b for b in at.button if b.key.startswith("ledger_add_baselines")).click().run()
    saved = at.query_params.get("ledger")
    saved = saved[0] if isinstance(saved, list) else saved
    assert ledger_store.is_ledger_id(saved)
    at.run()
    after = next_links(at)
    assert after and all(q.get("ledger") == saved and q["step"] == "5" and q["seq"] == "eps" for q in after), after
    menu = [
        dict(parse_qsl(p.proto.query_string)) for p in at.get("page_link") if p.proto.label not in ("Next", "Previous")
    ]
    assert menu and all(q.get("ledger") == saved for q in menu), [q for q in menu if q.get("ledger") != saved]
