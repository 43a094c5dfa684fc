"""Home: differential privacy in plain words, and a card per paper topic."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import compute, params, registry, ui

ui.header(
    "DP Explorer",
    "An interactive companion to five recent papers on **differential privacy** (DP). Move the sliders and watch "
    "noise, accuracy and privacy loss respond. Built for students, teachers in front of a class, and anyone "
    "negotiating *how much privacy to give up for how much accuracy*.",
)

st.header("Differential privacy in plain words")
left, right = st.columns([3, 2], gap="large")
with left:
    st.markdown(
        """
A DP mechanism answers a question about a data set — *how many patients have diabetes?* — after adding carefully
calibrated random noise. The promise is about **you**: whether or not your record is in the data, every possible
answer is almost equally likely.

* **ε (epsilon)** bounds *how much* any single record can change the chance of any answer: by a factor of at most
  **e^ε**. Smaller ε means more noise and stronger privacy.
* **δ (delta)** is a small probability with which that promise is allowed to fail. It should be far smaller than
  one over the number of people in the data.

Because the chance of every output moves by at most e^ε, an observer's **odds** that you are in the data (or have
some property) can move by at most a factor e^ε, whatever they knew beforehand and whatever answer they see.
"""
    )
with right:
    with st.container(border=True):
        st.markdown("**Try it: how far can one answer move an observer's belief?**")
        eps = params.epsilon(container=st.container())
        try:
            table, factor = compute.belief_table(eps)
            shown = pd.DataFrame(
                {"observer's belief before": [f"{p:.0%}" for p in table["prior"]],
                 f"at most, after one ε = {eps:g} answer": [f"{q:.1%}" for q in table["largest_posterior"]]}
            )
            st.dataframe(shown, hide_index=True, width="stretch")
            st.metric("largest factor on the odds, e^ε", f"{factor:.3g}×")
            half = table.loc[table["prior"] == 0.5, "largest_posterior"].item()
            ui.notice(
                f"a sceptic who gave 50 % to “Alice is in the data” can be pushed to at most {half:.1%} by any "
                f"single answer at ε = {eps:g}."
            )
        except ValueError as exc:
            ui.show_error(exc)

def _cards(pages: list[registry.PageInfo]) -> None:
    cols = st.columns(3, gap="medium")
    for i, page in enumerate(pages):
        with cols[i % 3].container(border=True, height="stretch"):
            st.markdown(f"#### {page.title}")
            if page.paper:
                st.caption(page.paper)
            st.markdown(page.blurb)
            if page.exists:
                st.page_link(str(page.path), label=f"Open {page.title}", icon=":material/arrow_forward:")
            else:
                st.caption(":material/construction: This explorer is not built yet.")


st.header("Explore")
_cards([registry.BASELINES, *registry.TOPICS])
tools = [p for p in registry.TOOLS if p.exists]
if tools:
    st.header("Decide")
    st.markdown("Agree on a budget, keep track of what has been spent, and check the claims.")
    _cards(tools)
