"""Catalogue entries of the noise_reduction page and lesson (see app/catalogue/__init__.py for what an entry holds)."""

from __future__ import annotations
