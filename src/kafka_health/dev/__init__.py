"""Dev tooling, apart from the product: the local Kafka cluster (``devcluster``), the fault
suite (``faults``), the load generator and its benches (``loadgen``), the demo's configuration
(``demo``) and the shipper's dev-cluster wiring (``shipper_devcluster``); the job's fuzz
(``fuzz_job``) and label flood (``flood_job``), and what the tests and ``benchmarks/`` share, so
neither imports the other: the parser's table of real lines (``parsing_cases``), a webhook
receiver (``webhook_receiver``), broker log lines in the shipper's envelope (``log_lines``) and
a fake admin client answering the consumer-group source (``fake_group_admin``).
No module of the monitor imports this package (``lint-imports``: the forbidden contract in
``pyproject.toml``)."""
