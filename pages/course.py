"""A first course: ten short chapters for a newcomer, one idea and one picture each (layout in app/views/course.py)."""

from app.views import course as view

view.render(view.sidebar())
