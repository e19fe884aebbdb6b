"""``kafka-health bench throughput``: the job's records per second against the machine's limit
and a plain-Python monitor, on the same data, in one run.

1. **Backlog**: ``seconds`` of a simulated cluster's traffic (:class:`Traffic`: broker logs at
   ``rate``, a canary round a second, a cluster-state snapshot every ``snapshot_interval_s``)
   is written as fast as possible to the transport topics of a local 1-broker Kafka.
2. **Limit**: Spark's Kafka source reads the same topics with no work (``noop`` sink,
   ``availableNow``, the job's ``maxOffsetsPerTrigger``).
3. **Job**: :meth:`MonitorJob.run_available_now` over the same topics: everything it does.
   Both Spark reads run :data:`WARM_UP_PASSES` times before the measured pass, and report
   the measured one (the first, cold, beside it: :func:`warm_up_config`).
4. **Plain Python**: :mod:`~kafka_health.dev.loadgen.plain_monitor` (kafka-python, ``json``,
   ``re``).
5. **Sustained**: the job on its processing-time trigger while ``kafka-health bench load``
   (a separate process) sends ``sustained_rate`` log records per second for
   ``sustained_seconds``: the batch durations' p50 and p95 after the first third. With
   ``groups`` (``--groups``), the job's consumer-group poller reads that many simulated groups
   meanwhile (:mod:`~kafka_health.dev.loadgen.groups`: its own poller, source, lag table and
   board, only the admin client a fake, answered with kafka-python's own responses by a
   process of its own; ``bench load --groups`` writes real ones, too few for this); the
   rounds' interval, duration, and how many reached the board (a publish of the job showed
   them) are reported beside the batches.

Rates of Spark queries are the records of their batches over the batches' durations
(``StreamingQueryProgress``), so the query's start-up is not counted against it; the plain
monitor's is its records over the time from its first record to its last.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_health.config import MonitorConfig
from kafka_health.detectors.config import JobConfig
from kafka_health.dev.loadgen import plain_monitor
from kafka_health.dev.loadgen.groups import GroupsLoad, spread
from kafka_health.dev.loadgen.traffic import ClusterShape, Record, Traffic
from kafka_health.dev.shipper_devcluster import write_config
from kafka_health.kafka_clients import python_client_options
from kafka_health.kafka_config import TopicsConfig
from kafka_health.spark.config import SparkConfig


@dataclass(frozen=True)
class ThroughputPlan:
    shape: ClusterShape = dataclasses.field(
        default_factory=lambda: ClusterShape(brokers=200, partitions=10_000, topics=100)
    )
    rate: float = 20_000.0
    seconds: float = 15.0
    snapshot_interval_s: float = 10.0
    sustained_rate: float = 1000.0
    sustained_seconds: float = 90.0
    seed: int = 1
    storm: bool = False
    """The backlog's log lines in the election storm's mix (:data:`~.traffic.STORM`, 39 % of
    them events) instead of a healthy cluster's (:data:`~.traffic.STEADY`, 4.5 %)."""
    groups: int = 0
    """Consumer groups simulated during the sustained part (0: none, the job's poller reads
    the local Kafka's), each reading ``partitions_per_group`` partitions of its own."""
    partitions_per_group: int = 10


def backlog(
    traffic: Traffic, plan: ThroughputPlan, start_ms: int
) -> Iterator[tuple[int, list[Record]]]:
    """The backlog second by second from ``start_ms``: each second's time and records (its
    log records at ``rate`` in the plan's mix, a canary round, and a snapshot every
    ``snapshot_interval_s``)."""
    for second in range(int(plan.seconds)):
        at = start_ms + second * 1000
        batch = traffic.log_records(at, int(plan.rate), plan.storm) + traffic.canary_results(at)
        if plan.snapshot_interval_s > 0 and second % int(plan.snapshot_interval_s) == 0:
            batch += list(traffic.cluster_snapshot(at))
        yield at, batch


def fill(config: MonitorConfig, traffic: Traffic, plan: ThroughputPlan) -> int:
    """Write the backlog as fast as the producer goes; returns the records written."""
    from kafka import KafkaProducer

    producer = KafkaProducer(
        acks=1, linger_ms=50, batch_size=524_288,
        **python_client_options(config.transport_kafka()),
    )  # fmt: skip
    written = 0
    start_ms = int(time.time() * 1000) - int(plan.seconds * 1000)
    for _at, batch in backlog(traffic, plan, start_ms):
        for topic, key, value in batch:
            producer.send(topic, key=key, value=value)
        written += len(batch)
    producer.flush()
    producer.close()
    return written


class ProgressLog:
    """Every ``StreamingQueryProgress`` of the session, by query name."""

    def __init__(self) -> None:
        self.by_query: dict[str, list[Any]] = {}

    def listener(self) -> Any:
        from pyspark.sql.streaming.listener import StreamingQueryListener

        log = self

        class _Listener(StreamingQueryListener):
            def onQueryStarted(self, event: Any) -> None:
                pass

            def onQueryProgress(self, event: Any) -> None:
                log.by_query.setdefault(event.progress.name or "?", []).append(event.progress)

            def onQueryIdle(self, event: Any) -> None:
                pass

            def onQueryTerminated(self, event: Any) -> None:
                pass

        return _Listener()

    def rate(self, name: str, reads: int = 1, since: int = 0) -> tuple[float, int]:
        """Records per second of the query's batches (from its ``since``-th progress on), and
        its records; ``reads``: how many times its plan reads each record (``numInputRows``
        counts each read)."""
        done = [p for p in self.by_query.get(name, [])[since:] if p.numInputRows > 0]
        rows = sum(p.numInputRows for p in done) // reads
        seconds = sum(p.batchDuration for p in done) / 1000
        return (rows / seconds if seconds else 0.0), rows


def _drain(progress: ProgressLog, name: str, quiet_s: float = 3.0) -> None:
    """Wait until no progress of ``name`` has arrived for ``quiet_s`` (at most 30 s)."""
    deadline = time.monotonic() + 30
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = len(progress.by_query.get(name, []))
        if count != seen:
            seen, since = count, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
        time.sleep(0.2)


def limit_rate(spark: Any, config: MonitorConfig, checkpoint: Path) -> float:
    """Spark's Kafka source over the job's topics, no work."""
    from kafka_health.job.app import SPLIT_RECORDS
    from kafka_health.job.sources import kafka_stream

    topics = config.topics
    source = kafka_stream(  # split as the job's source is
        spark,
        config,
        [topics.canary_results, topics.cluster_state, topics.broker_logs],
        SPLIT_RECORDS,
    )
    query = (
        source.writeStream.queryName("limit").format("noop").trigger(availableNow=True)
        .option("checkpointLocation", str(checkpoint)).start()
    )  # fmt: skip
    query.awaitTermination()
    done = [p for p in query.recentProgress if p.numInputRows > 0]
    rows = sum(p.numInputRows for p in done)
    seconds = sum(p.batchDuration for p in done) / 1000
    return rows / seconds if seconds else 0.0


def plain_rate(config: MonitorConfig, records: int) -> float:
    """The plain-Python monitor over the same topics."""
    topics = {"broker_logs": config.topics.broker_logs,
              "canary_results": config.topics.canary_results,
              "cluster_state": config.topics.cluster_state}  # fmt: skip
    servers = config.transport_kafka().bootstrap_servers
    _monitor, read, seconds = plain_monitor.consume(servers, topics, records)
    return float(read / seconds) if seconds else 0.0


@dataclass
class Sustained:
    """The sustained part's measures: the monitor query's batch durations after the first
    third, and with simulated groups their rounds' figures (:meth:`GroupsLoad.figures`)."""

    durations: list[float]
    groups: dict[str, Any] | None = None


def sustained(
    spark: Any, config: MonitorConfig, config_file: Path, plan: ThroughputPlan,
    progress: ProgressLog,
) -> Sustained:  # fmt: skip
    """Batch durations of the job's monitor query while ``bench load`` sends at the rate (and
    the job's poller reads ``plan.groups`` simulated groups)."""
    from kafka_health.job.app import MonitorJob

    groups = GroupsLoad(plan.groups, plan.partitions_per_group) if plan.groups else None
    if groups is None:
        job = MonitorJob(spark, config)
    else:  # their objectives and owners, so verdicts move
        watching = dataclasses.replace(config, consumer_groups=groups.config)
        job = MonitorJob(spark, watching, [groups.seen], groups_admin=groups.make_admin)
    stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
    runner.start()
    try:
        time.sleep(15)  # the queries' start
        before = len(progress.by_query.get("monitor", []))
        since = time.monotonic()
        load = subprocess.run(
            [sys.executable, "-m", "kafka_health.cli", "bench", "load", "--config",
             str(config_file), "--brokers", str(plan.shape.brokers), "--partitions",
             str(plan.shape.partitions), "--topics", str(plan.shape.topics), "--rate",
             str(plan.sustained_rate), "--seconds", str(plan.sustained_seconds),
             "--seed", str(plan.seed + 1), "--json"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        until = time.monotonic()
        if load.returncode != 0:
            raise RuntimeError(f"bench load failed: {load.stderr[-2000:]}")
        rounds = None
        if groups is not None:  # the last round begun under the load: published?
            groups.wait_published(until, 2 * groups.config.interval_s + 5)
            rounds = groups.figures(since, until)
    finally:
        stop.set()
        runner.join(timeout=120)
        if groups is not None:
            groups.close()
    batches = progress.by_query.get("monitor", [])[before:]
    durations = [p.batchDuration / 1000 for p in batches[len(batches) // 3 :]]
    return Sustained(durations, rounds)


WARM_UP_PASSES = 3
"""Passes of each Spark read over the whole backlog before the measured one. The JIT compiles
the parse's generated code (a hundred classes, methods up to 25 KB) on the same two cores
while the first passes run, tier by tier: the job's static batch plan over 171,801 records ran
10.3, 10.6, 6.2 and 4.5 s, then 2.6-3.0 s from its fifth run on (``batch_static.py``,
2026-11-27). With one warm-up pass the measured one was still compiling."""


def warm_up_config(config: MonitorConfig, tmp: Path, n: int = 0) -> MonitorConfig:
    """``config`` with checkpoints and alerting state of its own, for warm-up pass ``n`` of
    the job over the whole backlog before the measured one (which, and the sustained run
    after it, keep ``config``'s). A monitor runs for months: its rate is the warm one, at the
    JIT's steady state (:data:`WARM_UP_PASSES`). The plain-Python monitor has no JIT to
    warm."""
    folder = tmp / f"warm-up-{n}"
    return dataclasses.replace(
        config,
        spark=dataclasses.replace(config.spark, checkpoint_dir=str(folder / "checkpoints")),
        alerting=dataclasses.replace(config.alerting, state_dir=str(folder / "alerting")),
    )


def spark_config(checkpoints: Path, master: str | None) -> SparkConfig:
    """Local ``local[2]`` by default; on a cluster, executors of 1 GB (a worker's default) and
    checkpoints in a folder of this machine, which every worker here sees."""
    if master is None:
        return SparkConfig(checkpoint_dir=str(checkpoints))
    return SparkConfig(
        master=master, checkpoint_dir=str(checkpoints), conf={"spark.executor.memory": "1g"}
    )


def run_throughput(
    plan: ThroughputPlan,
    say: Callable[[str], None] = print,
    bootstrap: list[str] | None = None,
    master: str | None = None,
) -> dict[str, Any]:
    """The whole benchmark on a local 1-broker Kafka (or ``bootstrap``), Spark on ``local[2]``
    (or the cluster at ``master``: executors of 1 GB); the JSON figures."""
    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster

    with tempfile.TemporaryDirectory(prefix="kafka-health-throughput-") as name:
        tmp = Path(name)
        cluster = None
        if bootstrap is None:
            cluster = LocalCluster.create(ClusterSpec(dir=tmp / "kafka", brokers=1)).up()
            bootstrap = cluster.bootstrap_servers
        try:
            figures = measure_throughput(plan, throughput_config(tmp, bootstrap, master), tmp, say)
        finally:
            if cluster is not None:
                cluster.down()
    say(json.dumps(figures))
    return figures


def throughput_config(tmp: Path, bootstrap: list[str], master: str | None) -> MonitorConfig:
    """The monitor's configuration for the benchmark: its state and checkpoints in ``tmp``,
    reading from the earliest offsets."""
    return dataclasses.replace(
        MonitorConfig().with_bootstrap(bootstrap),
        topics=TopicsConfig(),
        spark=spark_config(tmp / "checkpoints", master),
        alerting=dataclasses.replace(MonitorConfig().alerting, state_dir=str(tmp / "alerting")),
        job=JobConfig(starting_offsets="earliest"),
    )


def measure_throughput(
    plan: ThroughputPlan, config: MonitorConfig, tmp: Path, say: Callable[[str], None]
) -> dict[str, Any]:
    """Fill the topics, then measure the limit, the job, plain Python and sustained batches."""
    from kafka_health.spark import build_spark_session

    config_file = write_config(config, tmp / "monitor.yaml")
    say(f"writing {plan.seconds:g} s of a {plan.shape.brokers}-broker, "
        f"{plan.shape.partitions}-partition cluster's traffic at {plan.rate:g} log "
        "records/s")  # fmt: skip
    records = fill(config, Traffic(plan.shape, config.topics, plan.seed), plan)
    spark = build_spark_session(config.spark)
    cores = int(spark.sparkContext.defaultParallelism)
    say(f"Spark at {config.spark.master}: {cores} cores")
    progress = ProgressLog()
    listener = progress.listener()
    spark.streams.addListener(listener)
    try:
        # Each read WARM_UP_PASSES times before the measured pass, the first in a cold JVM
        # (see warm_up_config): the last is the figure, the first is reported beside it.
        passes = WARM_UP_PASSES + 1
        limits = [limit_rate(spark, config, tmp / f"limit-{n}") for n in range(passes)]
        limit = limits[-1]
        say(f"limit (Kafka source, no work): {limit:,.0f} records/s (cold: {limits[0]:,.0f})")
        (job_cold, _), *_, (job, job_rows) = job_rates(spark, config, tmp, progress)
        say(f"job: {job:,.0f} records/s ({job_rows} records; cold: {job_cold:,.0f})")
        plain = plain_rate(config, records)
        say(f"plain Python: {plain:,.0f} records/s")
        if plan.groups:
            say(f"sustained: the job's poller on {plan.groups} simulated groups x "
                f"{plan.partitions_per_group} partitions")  # fmt: skip
        measured = sustained(spark, config, config_file, plan, progress)
    finally:
        spark.streams.removeListener(listener)
    batches = spread(measured.durations)
    figures = {
        "records": records,
        "spark_master": config.spark.master,
        "spark_cores": cores,
        "limit_records_per_s": round(limit),
        "job_records_per_s": round(job),
        "limit_cold_records_per_s": round(limits[0]),
        "job_cold_records_per_s": round(job_cold),
        "warm_up_passes": WARM_UP_PASSES,
        "plain_python_records_per_s": round(plain),
        "ratio_job_to_limit": round(job / limit, 3) if limit else None,
        "ratio_job_to_plain": round(job / plain, 3) if plain else None,
        "sustained_log_records_per_s": plan.sustained_rate,
        "batch_duration_s_p50": round(batches["p50"], 2),
        "batch_duration_s_p95": round(batches["p95"], 2),
        "batches_measured": len(measured.durations),
        "trigger_interval_s": config.job.trigger_interval_s,
    }
    if measured.groups is not None:
        figures["consumer_groups"] = measured.groups
    return figures


def job_rates(
    spark: Any, config: MonitorConfig, tmp: Path, progress: ProgressLog
) -> list[tuple[float, int]]:
    """The job's (records/s, records) over the same data: WARM_UP_PASSES fresh warm-up runs,
    then ``config``'s own."""
    from kafka_health.job.app import MonitorJob
    from kafka_health.job.batch import SOURCE_READS

    jobs = []
    warm_ups = [warm_up_config(config, tmp, n) for n in range(WARM_UP_PASSES)]
    for fresh in (*warm_ups, config):
        since = len(progress.by_query.get("monitor", []))
        MonitorJob(spark, fresh).run_available_now()
        _drain(progress, "monitor")  # the listener bus delivers progress later
        jobs.append(progress.rate("monitor", SOURCE_READS, since))
    return jobs
