"""The job's own health: a StreamingQueryListener feeding per-query figures and signals.

Spark calls the listener on its listener bus thread; :class:`JobHealth` keeps the latest
figures per query under a lock, exports them to Prometheus (a custom collector, values built
at scrape time) and as Signals for the alert engine (``job_last_batch_timestamp``,
``job_kafka_unreachable``, ``job_query_failed``).

A termination is classified by :func:`classify_error`: an error of the Kafka client (the
transport cannot be read) is ``job_kafka_unreachable`` (ClusterUnreachable); anything else (a
bug in a batch) is ``job_query_failed`` with the exception's class (MonitorFailed); first, a
write the checkpoint's disk refused (:func:`disk_error`: full, read-only) is
``state_write_failing{store="checkpoint"}`` (MonitorStateNotWritable).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from kafka_health.model import Signal, labels


@dataclass
class QueryHealth:
    """Latest figures of one supervised query."""

    active: bool = False
    last_batch_s: float | None = None
    batch_duration_s: float = 0.0
    input_rows_per_s: float = 0.0
    processed_rows_per_s: float = 0.0
    watermark_delay_s: float | None = None
    state_rows: int = 0
    state_bytes: int = 0
    offsets_behind: float = 0.0
    late_rows_total: int = 0
    input_rows_total: int = 0
    restarts_total: int = 0
    terminations_total: int = 0
    quarantined_batches_total: int = 0
    """Batches that failed in a Spark task and were re-read without the failing records."""
    quarantined_records_total: int = 0
    last_error: str | None = None
    failed_with: str | None = None
    """The exception class of a termination that was not Kafka's; None once a batch runs."""
    disk_error: str | None = None
    """Set while the query is down because its checkpoint's disk refused a write (full or
    read-only): not a bug, not Kafka; None once a batch runs."""
    read_to_s: float | None = None
    """Wall-clock start of its newest completed trigger (a batch, or a look that found nothing
    new): whatever its topics held before then has been read."""
    sources: tuple[str, ...] = ()
    """What the query reads, from its progress (e.g. ``KafkaV2[SubscribePattern[\\Qtopic\\E]]``)."""
    phases_s: dict[str, float] = field(default_factory=dict)
    """Where the last batch's time went (``durationMs``: latestOffset, addBatch, ...)."""
    steps_s: dict[str, float] = field(default_factory=dict)
    """Where the last batch's ``foreachBatch`` body went (plan, collect, fold, save, ...)."""


BATCH_PHASES = (
    "latestOffset", "walCommit", "getBatch", "queryPlanning", "addBatch", "commitOffsets",
    "triggerExecution",
)  # fmt: skip
"""The phases of ``StreamingQueryProgress.durationMs`` exported (a bounded label set)."""


class JobHealth(Collector):
    """Per-query health, fed by the listener and the supervisor."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._queries: dict[str, QueryHealth] = {}
        self._start_hooks: list[Callable[[str], None]] = []
        self._progress_hooks: list[Callable[[str], None]] = []
        self._reads: dict[str, int] = {}

    def set_source_reads(self, name: str, reads: int) -> None:
        """Query ``name``'s plan reads each record of its source ``reads`` times (a union of
        branches of one source): Spark's ``numInputRows`` counts every read, the rows figures
        count records."""
        self._reads[name] = max(1, reads)

    def add_start_hook(self, hook: Callable[[str], None]) -> None:
        """Call ``hook(query name)`` whenever a query (re)starts."""
        self._start_hooks.append(hook)

    def add_progress_hook(self, hook: Callable[[str], None]) -> None:
        """Call ``hook(query name)`` after each trigger of a query was recorded."""
        self._progress_hooks.append(hook)

    def read_to(self, name: str) -> float | None:
        """:attr:`QueryHealth.read_to_s` of ``name`` (None before its first trigger)."""
        with self._lock:
            health = self._queries.get(name)
            return None if health is None else health.read_to_s

    def query(self, name: str) -> QueryHealth:
        with self._lock:
            return self._queries.setdefault(name, QueryHealth())

    def on_started(self, name: str) -> None:
        with self._lock:
            self._queries.setdefault(name, QueryHealth()).active = True
        for hook in self._start_hooks:
            hook(name)

    def on_progress(self, progress: Any) -> None:
        """Take a ``StreamingQueryProgress`` (from ``onQueryProgress``)."""
        name = progress.name or str(progress.id)
        now = self._clock()
        with self._lock:
            health = self._triggered(name, now, _epoch(getattr(progress, "timestamp", None)))
            health.batch_duration_s = float(progress.batchDuration) / 1000.0
            durations = getattr(progress, "durationMs", None) or {}
            health.phases_s = {
                phase: float(durations[phase]) / 1000.0
                for phase in BATCH_PHASES
                if durations.get(phase) is not None
            }
            reads = self._reads.get(name, 1)
            health.input_rows_per_s = float(progress.inputRowsPerSecond or 0.0) / reads
            health.processed_rows_per_s = float(progress.processedRowsPerSecond or 0.0) / reads
            health.input_rows_total += int(progress.numInputRows or 0) // reads
            watermark = (progress.eventTime or {}).get("watermark")
            health.watermark_delay_s = _age(watermark, now)
            operators = progress.stateOperators or []
            health.state_rows = sum(int(op.numRowsTotal) for op in operators)
            health.state_bytes = sum(int(op.memoryUsedBytes) for op in operators)
            health.late_rows_total += sum(int(op.numRowsDroppedByWatermark) for op in operators)
            behind = 0.0
            for source in progress.sources or []:
                metrics = source.metrics or {}
                behind += float(metrics.get("maxOffsetsBehindLatest", 0) or 0)
            health.offsets_behind = behind
            described = tuple(
                str(getattr(source, "description", "") or "") for source in progress.sources or []
            )
            if any(described):
                health.sources = described
        self._after_trigger(name)

    def on_idle(self, name: str, timestamp: str | None = None) -> None:
        """The query found no new data at a trigger (``onQueryIdle``): it is up to date, not
        stalled. Spark 4 posts no progress for such triggers, only this event (every
        ``spark.sql.streaming.noDataProgressEventInterval``): without it a query whose topics
        went quiet (the canary stopped) looked stalled and paged MonitorStalled, not the
        MonitorBlind of the source that went quiet."""
        now = self._clock()
        with self._lock:
            health = self._triggered(name, now, _epoch(timestamp))
            health.input_rows_per_s = 0.0
            health.processed_rows_per_s = 0.0
            health.offsets_behind = 0.0
        self._after_trigger(name)

    def _after_trigger(self, name: str) -> None:
        for hook in self._progress_hooks:
            hook(name)

    def _triggered(self, name: str, now: float, started: float | None) -> QueryHealth:
        """The query ran a trigger (a batch, or a look with nothing new) that started at
        ``started`` and is recorded at ``now``: it is alive and no longer failed. The caller
        holds the lock."""
        health = self._queries.setdefault(name, QueryHealth())
        if started is not None:
            health.read_to_s = max(health.read_to_s or 0.0, min(started, now))
        health.active = True
        health.failed_with = None
        health.disk_error = None
        health.last_batch_s = now
        return health

    def on_steps(self, name: str, steps_s: dict[str, float]) -> None:
        """The seconds each step of the last ``foreachBatch`` body of ``name`` took."""
        with self._lock:
            self._queries.setdefault(name, QueryHealth()).steps_s = dict(steps_s)

    def on_terminated(self, name: str, error: str | None, failed_with: str | None = None) -> None:
        """The query stopped with ``error`` (text); ``failed_with``: the exception class when
        it was not Kafka's (a bug), else None (Kafka could not be read)."""
        with self._lock:
            health = self._queries.setdefault(name, QueryHealth())
            health.active = False
            health.terminations_total += 1
            health.last_error = error
            health.disk_error = disk_error(error)
            health.failed_with = None if health.disk_error else failed_with

    def on_quarantine(self, name: str, records: int) -> None:
        """A batch of ``name`` failed in a task and ``records`` records that fail the parse
        were set aside (:mod:`kafka_health.job.quarantine`)."""
        with self._lock:
            health = self._queries.setdefault(name, QueryHealth())
            health.quarantined_batches_total += 1
            health.quarantined_records_total += records

    def on_restart(self, name: str) -> None:
        with self._lock:
            self._queries.setdefault(name, QueryHealth()).restarts_total += 1

    def signals(self) -> list[Signal]:
        """Job-health signals for the alert engine."""
        now = self._clock()
        out = []
        with self._lock:
            for name, health in sorted(self._queries.items()):
                scope = labels(query=name)
                reads = {"sources": list(health.sources)}
                if health.last_batch_s is not None:
                    out.append(
                        Signal("job_last_batch_timestamp", scope, health.last_batch_s, now, reads)
                    )
                unreachable = (
                    not health.active and health.failed_with is None and health.disk_error is None
                )
                out.append(
                    Signal(
                        "job_kafka_unreachable",
                        scope,
                        1.0 if unreachable else 0.0,
                        now,
                        {"error": health.last_error or "", **reads},
                    )
                )
                if health.failed_with is not None:
                    out.append(
                        Signal(
                            "job_query_failed",
                            labels(query=name, exception=health.failed_with),
                            1.0,
                            now,
                            {"error": health.last_error or "", **reads},
                        )
                    )
            full = sorted(
                f"query {name}: {h.disk_error}" for name, h in self._queries.items() if h.disk_error
            )
        out.append(
            Signal("state_write_failing", labels(store="checkpoint"), float(bool(full)), now,
                   {"error": "; ".join(full)} if full else {})
        )  # fmt: skip
        return out

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        """Prometheus families, built at scrape time."""
        getter = Callable[[QueryHealth], float | None]
        gauges: dict[str, tuple[str, getter]] = {
            "up": ("1 while the query runs", lambda h: 1.0 if h.active else 0.0),
            "last_batch_timestamp_seconds": (
                "wall-clock time of the last completed batch",
                lambda h: h.last_batch_s,
            ),
            "batch_duration_seconds": ("duration of the last batch", lambda h: h.batch_duration_s),
            "input_rows_per_second": ("input rate of the last batch", lambda h: h.input_rows_per_s),
            "processed_rows_per_second": (
                "processing rate of the last batch",
                lambda h: h.processed_rows_per_s,
            ),
            "watermark_delay_seconds": (
                "wall-clock time minus the event-time watermark",
                lambda h: h.watermark_delay_s,
            ),
            "state_rows": ("rows in the query's state stores", lambda h: h.state_rows),
            "state_bytes": ("memory used by the query's state stores", lambda h: h.state_bytes),
            "offsets_behind_latest": (
                "records between the query's position and the end of its topics",
                lambda h: h.offsets_behind,
            ),
        }
        counters: dict[str, tuple[str, getter]] = {
            "late_rows": ("rows dropped as later than the watermark", lambda h: h.late_rows_total),
            "input_rows": ("records read", lambda h: h.input_rows_total),
            "restarts": ("restarts of the query by the supervisor", lambda h: h.restarts_total),
            "terminations": ("times the query terminated", lambda h: h.terminations_total),
            "quarantined_batches": (
                "batches that failed in a task, re-read without the records failing the parse",
                lambda h: h.quarantined_batches_total,
            ),
            "quarantined_records": (
                "records that failed the parse on their own (dead-lettered, parse_failed)",
                lambda h: h.quarantined_records_total,
            ),
        }
        with self._lock:
            queries = dict(self._queries)
        for suffix, (text, get) in gauges.items():
            family = GaugeMetricFamily(f"kafka_health_job_{suffix}", text, labels=["query"])
            for name, health in sorted(queries.items()):
                value = get(health)
                if value is not None:
                    family.add_metric([name], float(value))
            yield family
        yield _per_query_seconds(
            "kafka_health_job_batch_phase_seconds",
            "time the last batch spent in each phase of StreamingQueryProgress.durationMs",
            "phase", {name: h.phases_s for name, h in queries.items()},
        )  # fmt: skip
        yield _per_query_seconds(
            "kafka_health_job_batch_step_seconds",
            "time the last batch's foreachBatch body spent in each of its steps",
            "step", {name: h.steps_s for name, h in queries.items()},
        )  # fmt: skip
        for suffix, (text, get) in counters.items():
            counter = CounterMetricFamily(f"kafka_health_job_{suffix}", text, labels=["query"])
            for name, health in sorted(queries.items()):
                counter.add_metric([name], float(get(health) or 0.0))
            yield counter


def _per_query_seconds(
    name: str, text: str, part: str, seconds: dict[str, dict[str, float]]
) -> GaugeMetricFamily:
    """A gauge of seconds per (query, ``part``) of each query's last batch."""
    family = GaugeMetricFamily(name, text, labels=["query", part])
    for query, parts in sorted(seconds.items()):
        for key, value in parts.items():
            family.add_metric([query, key], value)
    return family


# Kafka's client exceptions (and Spark's wrappers of them) mean the transport cannot be read.
_KAFKA_ERRORS = re.compile(
    r"org\.apache\.kafka\.|KafkaException|Failed to construct kafka consumer|"
    r"Timed out waiting for a node assignment|TopicAuthorizationException|"
    r"Timeout of \d+ms expired before|Cannot fetch offset|UNKNOWN_TOPIC_OR_PARTITION|"
    r"sql\.kafka010\.|failOnDataLoss"
)
# A Python traceback's last line ("KeyError: 'x'") or a qualified JVM exception class.
_PY_ERROR = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)):", re.M)
_JVM_ERROR = re.compile(r"\b((?:[a-z_]\w*\.)+[A-Z]\w*(?:Error|Exception))\b")


_DISK_ERRORS = re.compile(
    r"No space left on device|Read-only file system|Disk quota exceeded|"
    r"Not enough space|DiskChecker\$DiskErrorException"
)


def disk_error(error: str | None) -> str | None:
    """What the disk refused, when a query's termination is a refused write (a full or
    read-only checkpoint disk): the line that says so, shortened; else None."""
    if not error:
        return None
    for line in str(error).splitlines():
        found = _DISK_ERRORS.search(line)
        if found:
            text = line.strip()
            return text if len(text) <= 240 else text[:237] + "..."
    return None


def classify_error(error: BaseException | str | None) -> str | None:
    """None when a query's termination error is Kafka's (cannot read), else the class of the
    exception that killed it: the innermost Python exception of a ``foreachBatch`` traceback,
    else the first JVM exception class named, else the error's own type."""
    if error is None:
        return None
    text = str(error)
    for attr in ("desc", "stackTrace"):
        extra = getattr(error, attr, None)
        if isinstance(extra, str):
            text += "\n" + extra
    text = text.split("\n=== Streaming Query ===", 1)[0]  # not the plan (it names sources)
    if _KAFKA_ERRORS.search(text):
        return None
    python: list[str] = _PY_ERROR.findall(text)
    if python:
        return python[-1].rsplit(".", 1)[-1]
    jvm: list[str] = _JVM_ERROR.findall(text)
    if jvm:
        return jvm[0].rsplit(".", 1)[-1]
    return "Exception" if isinstance(error, str) else type(error).__name__


def _epoch(timestamp: str | None) -> float | None:
    """Seconds since the epoch of Spark's ISO 8601 text ("2026-11-25T18:05:03.417Z")."""
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _age(timestamp: str | None, now: float) -> float | None:
    at = _epoch(timestamp)
    if at is None or at <= 0:  # no watermark yet
        return None
    return max(0.0, now - at)


def make_listener(health: JobHealth) -> Any:
    """A ``StreamingQueryListener`` forwarding progress to ``health``."""
    from pyspark.sql.streaming.listener import StreamingQueryListener

    names: dict[str, str] = {}  # query id -> name (an idle event carries the id only)

    class _Listener(StreamingQueryListener):
        def onQueryStarted(self, event: Any) -> None:
            name = event.name or str(event.id)
            names[str(event.id)] = name
            health.on_started(name)

        def onQueryProgress(self, event: Any) -> None:
            health.on_progress(event.progress)

        def onQueryIdle(self, event: Any) -> None:
            health.on_idle(
                names.get(str(event.id), str(event.id)), getattr(event, "timestamp", None)
            )

        def onQueryTerminated(self, event: Any) -> None:
            pass  # the supervisor records terminations with the query's name

    return _Listener()
