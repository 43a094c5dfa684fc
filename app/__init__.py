"""DP Explorer's Streamlit layer: shared widgets (params), cached dpcore calls (compute), pure figures, ui helpers."""
