"""The address bar always carries the values the page shows: normalised values are written back, a repeated key
counts once with its last value, keys no control uses are dropped, lenient spellings are normalised or refused with a
message, and the share link carries the same values."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from app import classroom
from tests.app.conftest import open_page


def _query(at) -> dict[str, str]:
    return dict(at.query_params)


def test_off_grid_values_are_written_back_and_explained():
    at = open_page("baselines.py", {"eps": "1.9", "delta": "3e-6"})
    q = _query(at)
    assert q["eps"] == "2" and q["delta"] == "2e-06"  # what the sliders show, not what the link said
    assert at.select_slider(key="eps").value == 2.0
    notes = [i.value for i in at.info]
    assert any("1.9" in n and "nearest step, 2" in n for n in notes), notes
    assert any("to 3·10⁻⁶;" in n and "nearest step, 2·10⁻⁶" in n for n in notes), notes  # 3e-6 as people write it
    assert "10⁻⁵" in at.select_slider(key="delta").options and "1e-05" not in at.select_slider(key="delta").options
    assert not at.error


def test_every_control_is_named_so_a_link_keeps_its_meaning():
    at = open_page("baselines.py")
    assert {"eps", "delta", "sens", "theta", "T", "calib", "seed"} <= set(_query(at))


def test_repeated_key_counts_once_with_its_last_value():
    at = open_page("baselines.py", {"eps": ["0.5", "8"]})
    assert at.select_slider(key="eps").value == 8.0
    assert _query(at)["eps"] == "8"


def test_unknown_keys_are_dropped():
    at = open_page("baselines.py", {"eps": "2", "junk": "1", "utm_source": "mail"})
    q = _query(at)
    assert "junk" not in q and "utm_source" not in q and q["eps"] == "2"


@pytest.mark.parametrize("raw,shown", [("2.0", "2"), ("２", "2"), (" 2 ", "2"), ("2e0", "2")])
def test_lenient_spellings_are_normalised(raw, shown):
    at = open_page("baselines.py", {"eps": raw})
    assert _query(at)["eps"] == shown and at.select_slider(key="eps").value == 2.0
    assert not at.error


@pytest.mark.parametrize("raw", ["1_0", "0x10", "1,5", "inf", "nan", "abc", ""])
def test_unreadable_spellings_are_refused_with_a_message(raw):
    at = open_page("baselines.py", {"eps": raw})
    assert any("`eps=" in e.value and "ε" in e.value for e in at.error), [e.value for e in at.error]
    assert at.select_slider(key="eps").value == 1.0 and _query(at)["eps"] == "1"


def test_choice_links_use_ids_and_show_words():
    at = open_page("baselines.py", {"calib": "classic"})
    assert at.radio(key="calib").value == "classic" and _query(at)["calib"] == "classic"
    bad = open_page("baselines.py", {"calib": "classic (textbook)"})
    assert any("`calib=" in e.value for e in bad.error)


def test_share_link_carries_what_the_page_shows(monkeypatch):
    """The strip builds the link from the same values the address is written from (app.params.current_values)."""
    at = open_page("baselines.py", {"eps": "1.9", "junk": "x"})
    url = classroom.share_url("http://127.0.0.1:8501/baselines", "baselines", _query(at))
    assert "eps=2" in url and "junk" not in url
    monkeypatch.setenv(classroom.PUBLIC_URL_ENV, "https://dp.example.edu/")
    assert classroom.share_url("http://127.0.0.1:8501/baselines", "baselines", {"eps": "2"}) == (
        "https://dp.example.edu/baselines?eps=2"
    )


def test_lesson_link_only_where_the_lessons_are_served(monkeypatch):
    """With the lessons' address set, the page links to its lesson; without it, no line at all (never a command
    a visitor cannot run)."""
    from app import ui

    monkeypatch.setenv(ui.LESSONS_URL_ENV, "http://lessons.example:2718/")
    at = open_page("brdp.py", {"eps": "2", "delta": "1e-06", "present": "false"})
    shown = " ".join(c.value for c in at.caption)
    link = re.search(r"\[Open the lesson for this page\]\(([^)]*)\)", shown)
    assert link, shown
    parts = urlsplit(link[1])
    assert parts.netloc == "lessons.example:2718" and parts.path == "/"
    query = dict(parse_qsl(parts.query))
    # the page's settings travel to the lesson, which starts its controls there; the classroom's keys do not
    assert query["file"] == "brdp.py" and query["eps"] == "2" and query["delta"] == "1e-06"
    assert not {"present", "view", "part", "seq", "step", "ledger"} & set(query)
    monkeypatch.delenv(ui.LESSONS_URL_ENV)
    at = open_page("brdp.py")
    shown = " ".join(c.value for c in at.caption)
    assert "lesson" not in shown.lower() and "make " not in shown


def test_a_moved_slider_stands_when_the_browser_still_shows_an_older_address():
    """Three quick presses on ε: the browser sends the third move while the address of the second run is still on its
    way, so the move arrives with the first run's address (eps=1.2). It is the reader's move, not a link: ε stays at
    2 and the address follows it (it used to snap back to 1.2, as a browser test saw once under load)."""
    at = open_page("baselines.py")
    at.select_slider(key="eps").set_value(1.5).run()
    assert at.query_params["eps"] == "1.5"
    at.query_params["eps"] = "1.2"  # the address the browser still shows
    at.select_slider(key="eps").set_value(2.0).run()
    assert at.select_slider(key="eps").value == 2.0
    assert at.query_params["eps"] == "2"
    assert not at.exception and not at.error


def test_a_same_page_link_with_other_settings_still_sets_them():
    """A link to this page with other settings (an exercise, a lesson's next view), no control moved: its values
    win over the controls' current ones."""
    at = open_page("baselines.py")
    at.select_slider(key="eps").set_value(1.5).run()
    at.query_params["eps"] = "5"
    at.run()
    assert at.select_slider(key="eps").value == 5.0
    assert at.query_params["eps"] == "5"


def test_the_address_lists_its_keys_in_the_same_order_in_every_server_process():
    # Python salts string hashes per process: a key order taken from a set would change from one server start (or
    # replica) to the next. Seeds 0 and 1 put a lesson's seq and step in opposite orders under such a set.
    script = (
        "from tests.app.conftest import open_page\n"
        "at = open_page('baselines.py', {'step': '1', 'ledger': 'x', 'seq': 'brdp', 'eps': '2'})\n"
        "print(','.join(at.query_params))\n"
    )
    root = Path(__file__).resolve().parents[2]
    orders = set()
    for seed in ("0", "1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True, check=True
        ).stdout
        orders.add(out.strip().splitlines()[-1])
    assert len(orders) == 1, orders
    keys = orders.pop().split(",")
    assert keys.index("seq") < keys.index("step") and keys[0] == "eps", keys
