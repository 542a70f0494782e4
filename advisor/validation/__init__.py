"""Predictions checked against published measurements (benchmarks/data/measurements.csv), and the fit
of the realistic-speed terms in advisor.core.calibration. See docs/accuracy.md."""
