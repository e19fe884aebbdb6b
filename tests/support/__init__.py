"""Helpers shared by more than one test directory (``from tests.support.waiting import ...``).

- ``alerting_harness``: a pre-wired alert service on a fake clock, paging a real receiver.
- ``canary_fakes``: the canary's and the cluster-state prober's clock and producer fakes.
- ``detector_support``: builders of detector timelines (records, batches, signals by name).
- ``job_support``: the streaming job's tests: a per-test config, topics, fuzz runs.
- ``loopback``: a real socket server on 127.0.0.1 for the clients' wire code.
- ``processes``, ``small_disk``, ``system_tools``, ``waiting``: /proc, a tmpfs that fills, the
  system's Prometheus and openssl, polling until something happens.

Helpers used by one directory only stay beside its tests (``tests/unit/shipper/shipper_fakes.py``,
``tests/integration/*_support.py``). What the benchmarks share with the tests (the parser's test
table, the webhook receiver, the job's fuzz, log lines) is in :mod:`kafka_health.dev`: neither
``tests`` nor ``benchmarks`` imports the other.
"""
