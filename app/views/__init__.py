"""Panel layout for pages too large to keep in one thin page script (Streamlit allowed here, no maths)."""
