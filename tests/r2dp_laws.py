"""The laws of u that the R²DP reference and Monte-Carlo checks both run over: every family, at ordinary settings
and at the edges of their support (a point mass, u reaching 0, a normal truncated far from its centre)."""

from __future__ import annotations

from dpcore import r2dp

LAWS = {
    "Dirac(2)": r2dp.Dirac(2.0),
    "TwoPoint(.2,.8,.5)": r2dp.TwoPoint(0.2, 0.8, 0.5),
    "Gamma(3,.5)": r2dp.Gamma(3.0, 0.5),
    "Gamma(.7,2)": r2dp.Gamma(0.7, 2.0),
    "U(.5,9)": r2dp.Uniform(0.5, 9.0),
    "U(0,4)": r2dp.Uniform(0.0, 4.0),
    "TN(.5223,1.5454,.5223)": r2dp.TruncatedNormal(0.5223, 1.5454, 0.5223),
    "TN(-1,2,.1)": r2dp.TruncatedNormal(-1.0, 2.0, 0.1),
}
