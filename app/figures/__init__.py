"""Pure Plotly figure builders: data in, ``go.Figure`` out (no Streamlit, no maths beyond layout)."""
