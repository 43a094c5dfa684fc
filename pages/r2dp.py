"""R²DP: draw the Laplace noise scale at random (layout in app/views/r2dp/)."""

from app.views import r2dp as view

view.render(view.sidebar())
