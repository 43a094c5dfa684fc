"""dpcore: the differential-privacy maths behind DP Explorer (pure numpy/scipy, no drawing)."""
