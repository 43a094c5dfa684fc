"""A first course: ten short chapters for someone who has never heard of differential privacy, one on screen at a
time (``/course?chapter=noise``).

Page shape: :class:`Settings` holds the chapter (the sidebar's table of contents), :func:`sidebar` draws it,
:func:`render` draws the chapter: its idea in a short paragraph beside its one picture and one control, the sentence
that says what the picture's numbers mean, a check answerable from the chapter alone, a link to the paper page and
lesson that go deeper, and the way on. The words and checks are in :mod:`app.course.chapters` and the pictures in
:mod:`app.course.pictures`, shared with the course lessons (``notebooks/course_*.py``); nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app import catalogue, classroom, course, instant, params, registry, ui
from app.course import pictures

TITLE = "A first course in differential privacy"


@dataclass(frozen=True)
class Settings:
    chapter: str


def sidebar() -> Settings:
    """The course's table of contents: the chapter on screen (its own control is drawn beside its picture)."""
    with st.sidebar:
        st.header("Chapters")
        slug = str(params.control("chapter"))
    return Settings(slug)


def render(s: Settings) -> None:
    ch = course.chapter(s.chapter)
    n = len(course.CHAPTERS)
    st.title(TITLE)
    st.caption(f"Chapter {ch.number} of {n}: move the control, watch the picture")
    # the chapter's own title heads its panel: a lesson step lands on the panel, and the projector shows the title
    with ui.panel(f"{ch.number}. {ch.title}", key="course-chapter"):
        text, shown = st.columns([2, 3], gap="large")
        with text:
            st.markdown(ch.text)
            with st.container(border=True):
                value = params.control(ch.control, container=st.container())
        with shown:
            try:
                pic = ui.memo_figure(pictures.picture, ch.slug, value)
                ui.chart(
                    instant.figure(
                        pictures.figure_at,
                        ch.control,
                        value,
                        ch.slug,
                        slot="course-chapter",
                        play=True,
                        stops=pictures.STOPS.get(ch.slug),
                    ),
                    pic.data,
                    name=f"chapter {ch.number}",
                    alt=pic.alt,
                )
                st.markdown(pic.reading)
                ui.notice(ch.notice)
            except Exception as exc:  # noqa: BLE001 — the rest of the chapter still works
                ui.show_error(exc)
    check(ch)
    deeper(ch, value)
    way_on(ch)


def check(ch: course.Chapter) -> None:
    """The chapter's check: its question, an answer box (hints before the solution) and the worked solution."""
    st.header("Check what you saw", anchor=False)
    with st.container(border=True):
        st.markdown(ch.question)
        classroom.answer_box(ch.check, ch.solution, f"_dpx_course_{ch.slug}")


def deeper(ch: course.Chapter, value: object) -> None:
    """Go deeper: the paper page (with this chapter's setting) and its lesson, and this chapter as a lesson."""
    st.header(ch.deeper.heading, anchor=False)
    setting = ch.deeper_settings(catalogue.get(ch.control).fmt(value))
    st.page_link(
        _script(ch.deeper.page),
        label=f"Open {ch.deeper.title} with this setting",
        icon=":material/arrow_forward:",
        query_params=setting | (classroom.in_app_query() or {}),
    )
    paper_lesson = ui.lesson_url(ch.deeper.lesson, setting)
    own = ui.lesson_url(ch.lesson, {ch.control: setting[ch.control]})
    if paper_lesson and own:
        st.markdown(f":material/menu_book: [Its lesson]({paper_lesson}) · [This chapter as a lesson]({own})")


def _script(url_path: str) -> str:
    """The page script of an app page (``st.page_link`` wants it by its path)."""
    return str(registry.PAGES_DIR / (f"{url_path}.py" if url_path else "home.py"))


def way_on(ch: course.Chapter) -> None:
    """Previous and next chapter (a lesson link's strip does this when the course is played as a lesson)."""
    if st.query_params.get(classroom.SEQ_KEY):
        return
    keep = classroom.in_app_query() or {}
    row = st.container(horizontal=True, gap="medium")
    i = ch.number - 1
    with row:
        if i > 0:
            prev = course.CHAPTERS[i - 1]
            st.page_link(
                str(registry.COURSE.path),
                label=f"Previous: {prev.number}. {prev.title}",
                icon=":material/arrow_back:",
                query_params={"chapter": prev.slug} | keep,
            )
        if i + 1 < len(course.CHAPTERS):
            nxt = course.CHAPTERS[i + 1]
            st.page_link(
                str(registry.COURSE.path),
                label=f"Next: {nxt.number}. {nxt.title}",
                icon=":material/arrow_forward:",
                query_params={"chapter": nxt.slug} | keep,
            )
        else:
            st.markdown(":material/flag: The end of the first course. The paper pages take each idea further.")
