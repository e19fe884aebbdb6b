"""The plain-Python Kafka health monitor, the yardstick of ``kafka-health bench throughput``, on
its own: the code is :mod:`kafka_health.dev.loadgen.plain_monitor`, where the bench and its
test import it.

    .venv/bin/python benchmarks/plain_monitor.py --bootstrap 127.0.0.1:9092 --records N
"""

from __future__ import annotations

from kafka_health.dev.loadgen.plain_monitor import main

if __name__ == "__main__":
    main()
