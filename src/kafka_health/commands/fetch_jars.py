"""``kafka-health fetch-jars``: fetch Kafka's and Spark's jars into the cache ahead of time,
and build the parser's jar from this package's sources (a JDK and Maven needed).

Run once on a machine with access to Maven Central; afterwards the dev cluster and the Spark
session start without network access (copy the cache, or point ``spark.jars`` at its files).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.dev.devcluster.runtime import ensure_kafka_runtime
from kafka_health.spark.connector import ensure_kafka_connector_jars
from kafka_health.spark.parser_jar import ensure_parser_jar

NAME = "fetch-jars"
HELP = (
    "fetch Apache Kafka's and Spark's Kafka connector jars from Maven Central into the cache,"
    " and build the parser's jar"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--with-zookeeper", action="store_true", help="also fetch Kafka 3.9 for --mode zookeeper"
    )


def run(args: argparse.Namespace) -> int:
    import pyspark

    config = config_from_args(args)
    dev = config.devcluster
    cache = Path(dev.cache_dir)
    print(f"kafka {dev.kafka_version}: {ensure_kafka_runtime(cache, dev.kafka_version, 'kraft')}")
    if args.with_zookeeper:
        libs = ensure_kafka_runtime(cache, dev.zookeeper_kafka_version, "zookeeper")
        print(f"kafka {dev.zookeeper_kafka_version} (zookeeper): {libs}")
    if config.spark.jars:
        print(f"spark: using configured jars {config.spark.jars}")
    elif config.spark.connector == "maven":
        jars = ensure_kafka_connector_jars(Path(config.spark.cache_dir), pyspark.__version__)
        print(f"spark {pyspark.__version__} kafka connector: {len(jars)} jars in {jars[0].parent}")
    print(f"parser: {ensure_parser_jar(Path(config.spark.cache_dir))}")
    return 0
