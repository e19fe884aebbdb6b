"""spark-submit entry point of the kafka-health streaming job; no logic here.

    spark-submit --jars "$(kafka-health connector-jars)" streaming/monitor_job.py \
        --config conf/monitor.yaml

The package must be importable by the driver (``pip install kafka-health`` on the submitting
machine, or ``--py-files`` with a wheel of it).
"""

import sys

from kafka_health.job.main import main

if __name__ == "__main__":
    sys.exit(main())
