"""Measuring: benchmarks beside their baselines, sweeps, and a cost finding timed beside
its fix."""
