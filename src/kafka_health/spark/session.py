"""The one SparkSession factory, used by the job, the offline commands and the tests.

It resolves Spark's Kafka connector matching the installed PySpark with Maven into the
project's cache (``spark.connector: ivy`` uses Spark's own ``spark.jars.packages`` instead;
jars named in ``spark.jars`` are used as they are, for offline machines), adds the parser's
jar built from this package's sources (:mod:`kafka_health.spark.parser_jar`), points Python
workers at the running interpreter, binds to loopback in local mode, selects the RocksDB
state store with changelog checkpointing, keeps Spark's own logging quiet and starts the JVM
with SIGTERM ignored (:mod:`kafka_health.spark.jvm_signals`).
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_health.jdk import jdk_tool
from kafka_health.spark.config import SparkConfig
from kafka_health.spark.connector import ensure_kafka_connector_jars
from kafka_health.spark.jvm_signals import gateway_ignores_sigterm
from kafka_health.spark.parser_jar import ensure_parser_jar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

ROCKSDB_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def kafka_connector_coordinates() -> str:
    """Maven coordinates of the Kafka connector built for the installed PySpark."""
    import pyspark

    return f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}"


def prepare_environment() -> None:
    """Set the variables Spark reads before its JVM starts (only those not set already)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


CODEGEN_CACHE_ENTRIES = 1000
"""Spark's cache of compiled generated classes (``spark.sql.codegen.cache.maxEntries``; 100
by default). Every batch of a streaming query generates its code again and compiles what the
cache does not hold. The cache is Guava's, in 4 segments that evict on their own, so at 100 a
segment holds 25; the job compiles 85 classes (both queries, measured), and whenever more than
25 of them hash to one segment each batch evicts and compiles again what the next one needs.
Which ones do depends on the generated source, different in each run: one idle run of the job
spent 28 % of its CPU samples compiling, the next none (:mod:`kafka_health.job.codegen`,
BENCHMARKS.md). At 1000 each segment holds 250. The cache only holds classes the job
generated, so a larger bound costs nothing until they exist."""

JIT_OPTIONS = "-XX:-DontCompileHugeMethods"
"""HotSpot's JIT compiles a method of any size. By default it leaves one over 8,000 bytes of
bytecode interpreted (``DontCompileHugeMethods``), and a whole-stage codegen stage's
``processNext`` runs once per row: the built-in parse plan (before the Java UDF) was cut into
33 small stages to stay under that limit, each boundary copying every row (25-30 % of the
executor's CPU, JFR; BENCHMARKS.md). Kept for the plans still generated: the dead letters' parse,
the canary's, the offline parse's (the batch's tally is plain Java: ``BatchTally``); with or
without it the job's pass measured the same (0.401 / 0.400 of the read, P9, commit of the tally).
Set on the driver's JVM (which runs the tasks in local mode) and on the executors'."""

REDACTION_REGEX = r"(?i)secret|password|token|access[.]?key|jaas"
"""Spark's default (``secret|password|token|access[.]?key``) plus ``jaas``."""
OPTIONS_REDACTION_REGEX = r"(?i)url|jaas|password|secret|token"
"""Spark SQL's default for data source options (``url``) plus the secrets' names."""


LISTED_GROUPS_MAX = 65_536
"""Groups an object aggregation keeps hashed before it sorts (see :func:`spark_conf`)."""


def spark_conf(config: SparkConfig) -> dict[str, str]:
    """Every Spark setting the factory applies, as plain strings (testable without Spark)."""
    log_config = resources.files("kafka_health.spark").joinpath("log4j2.properties")
    java_options = f"-Dlog4j2.configurationFile={log_config} {JIT_OPTIONS}"
    conf = {
        "spark.master": config.master,
        "spark.app.name": config.app_name,
        "spark.sql.shuffle.partitions": str(config.shuffle_partitions),
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB_PROVIDER,
        "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
        "spark.ui.enabled": "false",
        "spark.sql.codegen.cache.maxEntries": str(CODEGEN_CACHE_ENTRIES),
        "spark.ui.showConsoleProgress": "false",
        # lower()/upper() of the parse (a shipper's log kind, a JSON layout's level) by the JVM,
        # not ICU: ICU's case mapping was 5 % of the job's CPU on a backlog (JFR); the values
        # are ASCII names, which both map alike.
        "spark.sql.icu.caseMappings.enabled": "false",
        # Set when the batch's aggregation listed its records per group (more than Spark's 128
        # at 200 brokers; past the threshold Spark sorts the rest of the input instead of
        # hashing it). The batch is tallied in Java now (job/batch.driver_rows); the offline
        # parse's entry assembly (parsing/offline) is the object aggregation left, not measured
        # without it.
        "spark.sql.objectHashAggregate.sortBased.fallbackThreshold": str(LISTED_GROUPS_MAX),
        "spark.driver.extraJavaOptions": java_options,
        "spark.executor.extraJavaOptions": java_options,
        "spark.executorEnv.PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
        # The Kafka sources' options carry the SASL password inside kafka.sasl.jaas.config:
        # redacted wherever Spark prints options (plans, the event log, the environment).
        "spark.redaction.regex": REDACTION_REGEX,
        "spark.sql.redaction.options.regex": OPTIONS_REDACTION_REGEX,
    }
    if config.master.startswith("local"):
        conf["spark.driver.host"] = "127.0.0.1"
        conf["spark.driver.bindAddress"] = "127.0.0.1"
    if config.jars:
        missing = [j for j in config.jars if not Path(j).expanduser().exists()]
        if missing:
            from kafka_health.errors import ConfigError, ConfigProblem

            raise ConfigError([ConfigProblem("spark.jars", f"{m} does not exist") for m in missing])
    conf["spark.jars"] = ",".join(str(j) for j in session_jars(config))
    if not config.jars and config.connector == "ivy":
        conf["spark.jars.packages"] = kafka_connector_coordinates()
        conf["spark.jars.ivy"] = str(Path(config.cache_dir).expanduser() / "ivy")
    conf["spark.driver.extraJavaOptions"] += "".join(f" {o}" for o in local_driver_options(config))
    for key, value in config.conf.items():
        if key in JAVA_OPTIONS and key in conf:
            conf[key] = f"{conf[key]} {value}"  # the user's JVM options beside the log config
        else:
            conf[key] = value
    return conf


def session_jars(config: SparkConfig) -> list[Path]:
    """The jars the session and its executors need: the Kafka connector's (``spark.jars`` as
    configured, else Maven's unless ``connector: ivy``), then the parser's, built here from
    source (:mod:`kafka_health.spark.parser_jar`). ``kafka-health connector-jars`` prints them
    for spark-submit."""
    if config.jars:
        jars = [Path(j).expanduser() for j in config.jars]
    elif config.connector == "ivy":
        jars = []
    else:
        import pyspark

        jars = ensure_kafka_connector_jars(Path(config.cache_dir), pyspark.__version__)
    return [*jars, ensure_parser_jar(Path(config.cache_dir))]


def local_driver_options(config: SparkConfig) -> list[str]:
    """JVM options for a driver that pyspark starts here (spark-submit starts its own first):
    the heap touched whole at start, and the C heap trimmed on a schedule where the JVM can."""
    if not config.master.startswith("local"):
        return []
    options = []
    heap = config.driver_memory_mib()
    if config.pretouch_heap and heap:
        options += [f"-Xms{heap}m", "-XX:+AlwaysPreTouch"]
    if config.native_heap_trim_s > 0:
        trim = f"-XX:TrimNativeHeapInterval={max(1, round(config.native_heap_trim_s * 1000))}"
        if java_accepts(trim):
            options.append(trim)
        else:
            log.warning("this JVM cannot trim its native heap (%s, JDK 17.0.9+): skipped", trim)
    return options


@functools.cache
def java_accepts(option: str) -> bool:
    """Whether the ``java`` that pyspark starts (``JAVA_HOME``'s, or the one on the PATH) takes
    ``option``: an option it does not know stops it at start."""
    java = jdk_tool("java")
    if java is None:
        return False
    try:
        run = subprocess.run(
            [java, option, "-version"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return run.returncode == 0


JAVA_OPTIONS = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")
"""Settings whose value in ``spark.conf`` is added to the project's, not put in its place."""


def build_spark_session(config: SparkConfig) -> SparkSession:
    """Return the process's SparkSession configured for kafka-health (created on first call)."""
    prepare_environment()
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    for key, value in spark_conf(config).items():
        builder = builder.config(key, value)
    with gateway_ignores_sigterm():
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel(config.log_level)
    return session
