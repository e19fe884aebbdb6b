"""The cluster-state prober: snapshots of every partition's leader, replicas and ISR
(:mod:`.prober`, record schemas in :mod:`.records`). Its process is
:mod:`kafka_health.services.cluster_state`."""
