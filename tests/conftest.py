"""Shared test configuration: a bounded hypothesis profile so property tests stay fast on 2 cores."""

import os
import tempfile

from hypothesis import HealthCheck, settings

# Heavy panels (app.background) are computed inline in tests, so every AppTest run and every test server draws every
# panel in one run, as a user sees it once the job is done; tests/app/test_background.py covers the worker path.
os.environ.setdefault("DPX_BACKGROUND", "inline")
# Plotly checks every figure property in tests (the app skips the check for speed: app.figures.style).
os.environ.setdefault("DPX_VALIDATE_FIGURES", "1")
# Ledgers written by AppTest runs and test servers go to a throw-away data directory, never into the checkout.
os.environ.setdefault("DPX_DATA_DIR", tempfile.mkdtemp(prefix="dpx-test-data-"))

settings.register_profile(
    "dp", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("dp")
