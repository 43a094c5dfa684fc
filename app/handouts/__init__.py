"""Handouts: each topic (the first course, each paper) as one self-contained HTML file that opens from ``file://``
with no server and no network, its pictures moving with their in-figure sliders (``make handouts``)."""
