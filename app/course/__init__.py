"""The first course: its chapters (:mod:`app.course.chapters`, words and checks) and their pictures
(:mod:`app.course.pictures`, imported on its own: it loads every paper's compute layer), shared by the app's course
page and the course lessons."""

from app.course.chapters import BY_SLUG, CHAPTERS, SLUGS, Chapter, Deeper, chapter

__all__ = ["BY_SLUG", "CHAPTERS", "SLUGS", "Chapter", "Deeper", "chapter"]
