"""Benchmarks of the app's own machinery, beside ``python -m explorer bench`` (which times
kernels): :mod:`explorer.benchmarks.trace` times recording, decoding and analysing a trace;
:mod:`explorer.benchmarks.ui` times the animation's repaints. Their figures are in
docs/benchmarks.md.
"""
