"""Home: differential privacy in plain words, a "start here" path and a card per page (layout in app/views/home.py)."""

from app.views import home as view

view.render(view.sidebar())
