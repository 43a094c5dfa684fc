"""BR-DP: budget recycling differential privacy (layout in app/views/brdp/)."""

from app.views import brdp as view

view.render(view.sidebar())
