"""The monitor's processes, wired from the whole configuration.

Each takes the assembled :class:`~kafka_health.config.MonitorConfig` and hands every part
the section it needs: :mod:`.canary` (``kafka-health canary``), :mod:`.cluster_state`
(``kafka-health cluster-state``), :mod:`.shipper` (``kafka-health ship-logs``), with
:mod:`.transport` for the monitor's own topics on a separate cluster. Dev tooling on top of
them: :mod:`.demo` (the demo's and fault suite's config) and :mod:`.shipper_devcluster`
(shippers for the local dev cluster).
"""
