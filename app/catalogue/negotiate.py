"""Catalogue entries of the negotiate page and lesson (see app/catalogue/__init__.py for what an entry holds)."""

from __future__ import annotations
