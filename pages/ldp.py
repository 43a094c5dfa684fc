"""Local DP: realized privacy loss and the Bayesian privacy filter (layout in app/views/ldp/)."""

from app.views import ldp as view

view.render(view.sidebar())
