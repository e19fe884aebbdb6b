"""A fuzz run through the streaming job itself: hostile records among good ones, on real Kafka.

The fuzz run is :mod:`kafka_health.dev.fuzz_job`; ``--flood`` runs the label flood instead
(issue 55, :mod:`kafka_health.dev.flood_job`; ``--records`` 100,000 by default there). Each
runs on a local 1-broker Kafka, prints its figures and exits 1 if a check failed; the Spark
tests run them scaled down.

    .venv/bin/python benchmarks/fuzz_job.py [--records 1000000] [--seed 13] [--json OUT] [--flood]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from kafka_health.dev.flood_job import flood
from kafka_health.dev.fuzz_job import fuzz


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--flood", action="store_true", help="the label flood (issue 55)")
    args = parser.parse_args()

    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster

    run = flood if args.flood else fuzz
    records = args.records or (100_000 if args.flood else 1_000_000)
    with tempfile.TemporaryDirectory(prefix="fuzz-job-") as tmp:
        cluster = LocalCluster.create(ClusterSpec(dir=Path(tmp) / "kafka", brokers=1)).up()
        try:
            result = run(cluster.bootstrap_servers, records, args.seed, Path(tmp))
        finally:
            cluster.down()
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    sys.exit(0 if all(result["checks"].values()) else 1)


if __name__ == "__main__":
    main()
