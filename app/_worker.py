"""What the background workers (app.background) import once, in the forkserver they fork from.

The compute modules decorate functions with ``st.cache_data`` at import; outside a Streamlit server that logs a
"No runtime found" warning per function, which says nothing useful in a worker (jobs call the plain functions).
"""

import streamlit.logger

streamlit.logger.set_log_level("error")

import dpcore  # noqa: E402,F401 — imported for the workers
from app.compute import brdp, ldp, r2dp  # noqa: E402,F401
