"""Spark's compilations of generated code in the driver's JVM (the tasks' too in local mode),
exported as ``kafka_health_job_codegen_compiles_total``.

A streaming query plans its batch again each time and generates the code of every stage
again; Spark compiles a generated class only when its source is not in its code cache. With
Spark's default cache the job's 85 classes did not always fit (see
:data:`kafka_health.spark.session.CODEGEN_CACHE_ENTRIES`), and then every batch compiled again
what the one before had evicted, in the driver and in every task. A steady job compiles
nothing per batch; this counter rising at a steady load means the cache thrashes again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def driver_compiles(spark: SparkSession) -> Callable[[], int]:
    """A reader of how many generated classes the driver's JVM has compiled so far."""

    def read() -> int:
        metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics  # type: ignore[union-attr]
        return int(metrics.METRIC_COMPILATION_TIME().getCount())

    return read


class CodegenCompiles(Collector):
    """``kafka_health_job_codegen_compiles_total``, read from the JVM at each scrape."""

    def __init__(self, read: Callable[[], int]) -> None:
        self._read = read

    def collect(self) -> Iterator[CounterMetricFamily]:
        try:
            compiles = self._read()
        except Exception as exc:  # the JVM is gone or stopping: no sample, not a failed scrape
            log.debug("codegen compile count unavailable: %s", exc)
            return
        yield CounterMetricFamily(
            "kafka_health_job_codegen_compiles",
            "classes of generated code the driver compiled (rises per batch when Spark's "
            "code cache is too small for the job's plans)",
            value=float(compiles),
        )
