"""Sparse vector technique with exponential noise and the optimal threshold correction (layout in app/views/svt/)."""

from app.views import svt as view

view.render(view.sidebar())
