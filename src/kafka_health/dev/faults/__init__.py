"""The fault suite: scenarios injected into a local dev cluster under the whole monitor,
with the latency of each page measured (``kafka-health bench faults``, ``kafka-health demo``)."""
