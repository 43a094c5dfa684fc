"""Accuracy first: noise reduction and privacy filters (layout in app/views/noise_reduction/)."""

from app.views import noise_reduction as view

view.render(view.sidebar())
