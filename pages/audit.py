"""Privacy audit: Monte-Carlo lower bounds on ε and δ for every mechanism the app calibrates."""

from app.views import audit as view

view.render(view.sidebar())
