"""A fuzz run through the streaming job itself (and, with ``--flood``, the label flood): the
code is :mod:`kafka_health.dev.fuzz_job`, where the Spark tests run it scaled down.

    .venv/bin/python benchmarks/fuzz_job.py [--records 1000000] [--seed 13] [--json OUT] [--flood]
"""

from __future__ import annotations

from kafka_health.dev.fuzz_job import main

if __name__ == "__main__":
    main()
