"""A live class poll in Debian chromium: a teacher's projector (1280×720, presentation mode) and twelve phones
(390×844) answering at once. The projector's QR code reads back to the join link; its count and estimate follow the
answers without the teacher touching anything; a phone answers once (a reload is refused politely); the page a phone
shows afterwards is the same for Yes and No; the server's database holds counts of reports after the coin and
digests of browser tokens, nothing else; Stop closes the poll and brings the replays. axe-core finds no critical or
serious violation on the projector's and the phones' views."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
import zxingcpp
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from app import ledger_store as ls
from app import poll_store as ps
from dpcore.ldp import rr_survey as rr
from tests.e2e.conftest import ARTIFACTS, serve
from tests.e2e.test_accessibility import _serious, _settle
from tests.e2e.test_browser import metric

PHONES = 12
TIMEOUT = 60_000
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
TRUTHS = [i % 3 != 0 for i in range(PHONES)]  # 8 Yes and 4 No, as the phones press them


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("poll-data")


@pytest.fixture(scope="module")
def poll_url(data_dir: Path) -> Iterator[str]:
    """A server of its own, so that its database can be read after the poll (and holds nothing else)."""
    yield from serve({ls.DATA_DIR_ENV: str(data_dir)})


def _start(page: Page, url: str, eps: str = "1") -> tuple[str, str]:
    """The teacher starts a poll; returns (the join link as the page writes it, the join code)."""
    page.goto(f"{url}/poll?present=true&eps={eps}", timeout=TIMEOUT)
    page.get_by_role("button", name="Start a poll").click()
    page.wait_for_selector("img.dpx-poll-qr", timeout=TIMEOUT)
    code = page.locator(".dpx-poll-code").inner_text().strip()
    assert re.fullmatch(f"[{ps.CODE_ALPHABET}]{{6}}", code)
    return f"{url}/poll?join={code}", code


def _main_text(page: Page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def _dump(data_dir: Path) -> dict[str, list[dict]]:
    """Every row of every table of the server's database."""
    engine = sa.create_engine(ls.database_url({ls.DATA_DIR_ENV: str(data_dir)}))
    try:
        tables = sa.MetaData()
        tables.reflect(engine)
        with engine.connect() as conn:
            return {t.name: [dict(r._mapping) for r in conn.execute(sa.select(t))] for t in tables.sorted_tables}
    finally:
        engine.dispose()


def test_a_class_of_twelve_phones(browser: Browser, poll_url: str, data_dir: Path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    teacher = browser.new_context(viewport=PROJECTOR)
    projector = teacher.new_page()
    link, code = _start(projector, poll_url)
    expect(projector.get_by_text("Scan, or open")).to_contain_text(link.removeprefix("http://"))
    # the QR code, as the projector draws it, read back by zxing-cpp (an independent decoder)
    shot = projector.locator("img.dpx-poll-qr").screenshot()
    (found,) = zxingcpp.read_barcodes(Image.open(io.BytesIO(shot)))
    assert found.text == link
    # the essentials of the projected screen are on its first screen, no scrolling (the element's screenshot above
    # scrolled it into view: back to the top as the page opens)
    projector.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    for where in (
        projector.locator("img.dpx-poll-qr"),
        projector.locator(".dpx-poll-code"),
        projector.locator("[data-testid='stMetric']").filter(has_text="Estimated true share of Yes"),
        projector.get_by_text("What one answer reveals"),
    ):
        box = where.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"], box

    phones = [browser.new_context(**PHONE) for _ in range(PHONES)]
    pages = [c.new_page() for c in phones]
    for page in pages:
        page.goto(link, timeout=TIMEOUT)
    buttons = [
        page.get_by_role("button", name="Yes" if truth else "No", exact=True)
        for page, truth in zip(pages, TRUTHS, strict=True)
    ]
    for b in buttons:
        b.wait_for(timeout=TIMEOUT)
    expect(pages[0].get_by_text("Your answer goes through a coin first")).to_contain_text("73 %")
    pages[0].screenshot(path=str(ARTIFACTS / "poll-phone-question.png"))
    # the question opens right under the top bar, with both buttons on the phone's first screen
    question = pages[0].locator("[data-testid='stMain'] h1").bounding_box()
    no = pages[0].get_by_role("button", name="No", exact=True).bounding_box()
    assert question["y"] < 120 and no["y"] + no["height"] <= PHONE["viewport"]["height"], (question, no)
    for b in buttons:  # all twelve at once: each click returns as soon as it is dispatched
        b.click(no_wait_after=True)
    for page in pages:
        expect(page.get_by_text("your answer is in")).to_be_visible(timeout=TIMEOUT)
    pages[0].screenshot(path=str(ARTIFACTS / "poll-phone-thanks.png"))
    # what a phone shows afterwards does not depend on its answer
    yes_page = pages[TRUTHS.index(True)]
    no_page = pages[TRUTHS.index(False)]
    assert _main_text(yes_page) == _main_text(no_page)

    # the projector follows by itself (a fragment rerun every two seconds)
    expect(projector.get_by_text(f"{PHONES} answers")).to_be_visible(timeout=TIMEOUT)
    rows = _dump(data_dir)
    (poll,) = rows["dpx_polls"]
    assert poll["code"] == code and poll["answers"] == PHONES
    e = rr.estimate(poll["yes"], PHONES, 1.0)
    expect(
        projector.locator("[data-testid='stMetric']")
        .filter(has_text="Yes reports")
        .locator("[data-testid='stMetricValue']")
    ).to_have_text(f"{100 * e.observed:.0f} %", timeout=TIMEOUT)
    assert metric(projector, "Estimated true share of Yes") == f"{100 * e.share:.0f}\u00a0%"  # no-break space
    expect(projector.get_by_text(f"95 % interval: {100 * e.low:.0f} % to {100 * e.high:.0f} %")).to_be_visible()
    projector.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    projector.screenshot(path=str(ARTIFACTS / "poll-projector.png"))

    # the store: counts of reports after the coin, and a digest per browser; no true answer anywhere
    assert {name for name, kept in rows.items() if kept} == {"dpx_polls", "dpx_poll_voters"}  # nothing else kept
    assert set(poll) == {"id", "code", "question", "epsilon", "created_at", "closes_at", "stopped_at", "answers", "yes"}
    assert len(rows["dpx_poll_voters"]) == PHONES
    assert all(re.fullmatch("[0-9a-f]{64}", v["voter"]) for v in rows["dpx_poll_voters"])
    log = (ARTIFACTS / f"server-{poll_url.rsplit(':', 1)[1]}.log").read_text()
    assert code not in log and not re.search(r"\b(Yes|No|True|False)\b", log), log[-2000:]

    # one answer per browser: a reload, and a new tab of the same phone, are refused politely
    pages[1].reload()
    expect(pages[1].get_by_text("You have answered this poll already")).to_be_visible(timeout=TIMEOUT)
    again = phones[2].new_page()
    again.goto(link, timeout=TIMEOUT)
    expect(again.get_by_text("You have answered this poll already")).to_be_visible(timeout=TIMEOUT)
    assert _dump(data_dir)["dpx_polls"][0]["answers"] == PHONES

    projector.get_by_role("button", name="Stop the poll").click()
    expect(projector.get_by_role("heading", name="What if ε had been different?")).to_be_visible(timeout=TIMEOUT)
    expect(projector.get_by_text("Spread of the estimate at ε = 0.5")).to_be_visible()
    pages[3].reload()
    expect(pages[3].get_by_text("This poll has closed (12 answers)")).to_be_visible(timeout=TIMEOUT)
    late = browser.new_context(**PHONE).new_page()
    late.goto(f"{poll_url}/poll?join=QQQQQQ", timeout=TIMEOUT)
    expect(late.get_by_text("There is no poll with the code")).to_be_visible(timeout=TIMEOUT)
    for c in (teacher, *phones, late.context):
        c.close()


@pytest.mark.slow
def test_a_phone_types_the_code_and_presses_go(browser: Browser, poll_url: str):
    """A student who came to /poll types the code spaced out as the projector writes it and presses the keyboard's
    Go (Enter); a mistyped code leaves the box on the page to try again."""
    teacher = browser.new_context(viewport={"width": 1280, "height": 720})
    _, code = _start(teacher.new_page(), poll_url)
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{poll_url}/poll", timeout=TIMEOUT)
    phone.get_by_text("Answering a poll? Type its code").click()
    box = phone.get_by_label("The code on the projector")
    box.fill("QQ QQQQ")
    box.press("Enter")
    expect(phone.get_by_text("There is no poll with the code")).to_be_visible(timeout=TIMEOUT)
    box = phone.get_by_label("The code on the projector")
    box.fill(" ".join(code.lower()))
    box.press("Enter")
    expect(phone.get_by_role("button", name="Yes")).to_be_visible(timeout=TIMEOUT)
    assert f"join={code}" in phone.url
    for c in (teacher, phone.context):
        c.close()


def test_axe_on_the_projector_and_the_phones(browser: Browser, poll_url: str):
    """No critical or serious axe-core finding on the projector (open and closed) and on a phone (the question, the
    thanks); headings start at h1."""
    teacher = browser.new_context(viewport=PROJECTOR)
    projector = teacher.new_page()
    link, _ = _start(projector, poll_url)
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(link, timeout=TIMEOUT)
    _settle(phone)
    assert not _serious(phone), ("phone, question", _serious(phone))
    phone.get_by_role("button", name="No", exact=True).click()
    expect(phone.get_by_text("your answer is in")).to_be_visible(timeout=TIMEOUT)
    _settle(phone)
    assert not _serious(phone), ("phone, thanks", _serious(phone))
    expect(projector.get_by_text("1 answer", exact=True)).to_be_visible(timeout=TIMEOUT)
    _settle(projector)
    assert not _serious(projector), ("projector, open", _serious(projector))
    projector.get_by_role("button", name="Stop the poll").click()
    expect(projector.get_by_role("heading", name="What if ε had been different?")).to_be_visible(timeout=TIMEOUT)
    _settle(projector)
    assert not _serious(projector), ("projector, closed", _serious(projector))
    for page in (projector, phone):
        levels = page.evaluate(
            "() => Array.from(document.querySelectorAll('[data-testid=stMain] h1, "
            "[data-testid=stMain] h2, [data-testid=stMain] h3')).filter(h => h.offsetParent)"
            ".map(h => +h.tagName[1])"
        )
        assert levels and levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    teacher.close()
    phone.context.close()
