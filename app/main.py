"""DP Explorer entry point: ``streamlit run app/main.py``."""

from __future__ import annotations

import streamlit as st

from app import registry, ui

st.set_page_config(page_title="DP Explorer", page_icon=":material/shield_lock:", layout="wide")

pages = [
    st.Page(p.path, title=p.title, icon=p.icon, url_path=p.url_path or None, default=p is registry.HOME)
    for p in registry.available_pages()
]
page = st.navigation(pages)
if st.session_state.get("_page") != page.url_path:  # a new page visit: its URL values are judged afresh
    st.session_state["_page"] = page.url_path
    st.session_state.pop("_url_checked", None)
url_problems = st.container()  # top of the page, filled after the page's widgets judged their URL values
page.run()
with url_problems:
    ui.show_url_problems()
