"""Privacy ledger: releases from every page, accounted for side by side and enforced by one budget
(app/views/ledger.py)."""

from app.views import ledger as view

view.render(view.sidebar())
