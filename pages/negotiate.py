"""Negotiate a budget: the recommended ε for a stated accuracy first, then the alternatives (app/views/negotiate.py)."""

from app.views import negotiate as view

view.render(view.sidebar())
