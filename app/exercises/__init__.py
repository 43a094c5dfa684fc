"""The "Try this" exercises of every page, one module per page (``app/exercises/<page>.py``); each page's record in
``app.registry`` names its own."""

from __future__ import annotations

from app.exercises._base import Exercise, query_string

__all__ = ["Exercise", "query_string"]
