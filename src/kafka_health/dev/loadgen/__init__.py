"""Load generation for the scale benchmarks (``kafka-health bench load``)."""
