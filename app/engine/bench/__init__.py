"""Measuring speed on this machine: the benchmark runner, its probes, pre-flight, and the overhead probe."""
