"""Dev tooling, apart from the product: the local Kafka cluster (``devcluster``), the fault
suite (``faults``), the load generator and its benches (``loadgen``), the demo's configuration
(``demo``) and the shipper's dev-cluster wiring (``shipper_devcluster``). No module of the
monitor imports this package (``lint-imports``: the forbidden contract in ``pyproject.toml``)."""
