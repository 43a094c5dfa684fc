"""Gaussian & Laplace: the baseline mechanisms every paper compares against (layout in app/views/baselines.py)."""

from app.views import baselines as view

view.render(view.sidebar())
