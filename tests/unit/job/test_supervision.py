"""How a terminated query is seen: Kafka's errors are ClusterUnreachable, a bug in a batch is
MonitorFailed with the exception's class (supervisor + JobHealth, fake queries, no Spark)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kafka_health.config import JobConfig
from kafka_health.job.health import JobHealth, classify_error
from kafka_health.job.supervisor import QueryDefinition, Supervisor
from kafka_health.model import labels

# As PySpark 4.2 reports a foreachBatch function that raised (captured from a real run).
FOREACH_BATCH_BUG = """An exception was raised by the Python Proxy. Return Message: Traceback \
(most recent call last):
  File "/venv/lib/python3.11/site-packages/py4j/clientserver.py", line 644, in _call_proxy
    return_value = getattr(self.pool[obj_id], method)(*params)
  File "/venv/lib/python3.11/site-packages/pyspark/sql/utils.py", line 163, in call
    self.func(DataFrame(jdf, wrapped_session_jdf), batch_id)
  File "/tmp/job.py", line 7, in bad
    return {}["missing"]
KeyError: 'missing'

=== Streaming Query ===
Identifier: write_path [id = 38fc0038, runId = c7b661b2]
Current Committed Offsets: {KafkaV2[Subscribe[canary-results]]: {"canary-results":{"0":5}}}
"""
KAFKA_DOWN = (
    "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment."
    " Call: describeTopics"
)
PLAN_ERROR = (
    "[UNRESOLVED_COLUMN.WITH_SUGGESTION] org.apache.spark.sql.AnalysisException: A column "
    "`x` cannot be resolved"
)


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (FOREACH_BATCH_BUG, "KeyError"),
        (KAFKA_DOWN, None),
        (PLAN_ERROR, "AnalysisException"),
        ("Failed to construct kafka consumer", None),
    ],
    ids=["foreachBatch bug", "kafka timeout", "analysis error", "consumer"],
)
def test_classify_error(error: str, expected: str | None) -> None:
    assert classify_error(error) == expected


@dataclass
class FakeQuery:
    error: str | None
    isActive: bool = False

    def exception(self) -> str | None:
        return self.error


class GoneQuery:
    """A query whose JVM is gone: every call is refused (a stop signal to the group)."""

    @property
    def isActive(self) -> bool:  # PySpark's name
        raise ConnectionRefusedError(111, "Connection refused")

    def stop(self) -> None:
        raise ConnectionRefusedError(111, "Connection refused")


def test_stopping_queries_whose_jvm_is_gone_is_logged_not_raised() -> None:
    queries = iter([GoneQuery(), GoneQuery()])
    supervisor = Supervisor(
        [QueryDefinition(name, lambda: next(queries)) for name in ("monitor", "canary")],
        JobConfig(), JobHealth(clock=lambda: 100.0), lambda: 0.0,
    )  # fmt: skip
    supervisor.check_once()  # starts both
    assert all(isinstance(q, GoneQuery) for q in supervisor.queries.values())
    supervisor.stop_all()
    assert supervisor.queries == {"monitor": None, "canary": None}


def _terminate_once(error: str) -> JobHealth:
    health = JobHealth(clock=lambda: 100.0)
    queries = iter([FakeQuery(error)])
    supervisor = Supervisor(
        [QueryDefinition("write_path", lambda: next(queries))], JobConfig(), health, lambda: 0.0
    )
    supervisor.check_once()  # starts it
    supervisor.check_once()  # sees it terminated
    return health


def test_a_bug_in_a_batch_is_a_failed_query_not_an_unreachable_cluster() -> None:
    signals = {(s.name, s.labels): s for s in _terminate_once(FOREACH_BATCH_BUG).signals()}
    failed = signals[("job_query_failed", labels(query="write_path", exception="KeyError"))]
    assert failed.value == 1.0
    unreachable = signals[("job_kafka_unreachable", labels(query="write_path"))]
    assert unreachable.value == 0.0


def test_a_kafka_error_is_an_unreachable_cluster() -> None:
    signals = {(s.name, s.labels): s for s in _terminate_once(KAFKA_DOWN).signals()}
    assert signals[("job_kafka_unreachable", labels(query="write_path"))].value == 1.0
    assert not [k for k in signals if k[0] == "job_query_failed"]
    assert "node assignment" in signals[("job_kafka_unreachable", labels(query="write_path"))
                                        ].details["error"]  # fmt: skip


CHECKPOINT_DISK_FULL = (
    "[STREAM_FAILED] Query [id = 1, runId = 2] terminated with exception: "
    "java.io.IOException: No space left on device\n"
    "\tat java.base/java.io.FileOutputStream.writeBytes(Native Method)\n"
    "\tat org.apache.spark.sql.kafka010.KafkaSourceInitialOffsetWriter.add(...)\n"
)


def test_a_full_checkpoint_disk_is_neither_a_bug_nor_kafka() -> None:
    """The query died writing its checkpoint (the Kafka source's own offset file in the
    stack): MonitorStateNotWritable names the disk, not MonitorFailed or ClusterUnreachable."""
    health = _terminate_once(CHECKPOINT_DISK_FULL)
    signals = {(s.name, s.labels): s for s in health.signals()}
    full = signals[("state_write_failing", labels(store="checkpoint"))]
    assert full.value == 1.0
    assert "No space left on device" in full.details["error"]
    assert full.details["error"].startswith("query write_path: ")
    assert signals[("job_kafka_unreachable", labels(query="write_path"))].value == 0.0
    assert not [k for k in signals if k[0] == "job_query_failed"]
    health.on_idle("write_path")  # a trigger ran: the disk took the checkpoint again
    again = {(s.name, s.labels): s for s in health.signals()}
    assert again[("state_write_failing", labels(store="checkpoint"))].value == 0.0


def test_a_batch_s_phases_are_exported_in_seconds() -> None:
    """Where a batch's time goes (StreamingQueryProgress.durationMs), per query and phase."""
    from types import SimpleNamespace

    from prometheus_client import CollectorRegistry, generate_latest

    health = JobHealth(clock=lambda: 100.0)
    progress = SimpleNamespace(
        name="monitor", id="x", batchDuration=1500, inputRowsPerSecond=2.0,
        processedRowsPerSecond=3.0, numInputRows=4, eventTime={}, stateOperators=[], sources=[],
        durationMs={"latestOffset": 40, "addBatch": 1200, "triggerExecution": 1500, "other": 9},
    )  # fmt: skip
    health.on_progress(progress)
    health.on_steps("monitor", {"plan": 0.25, "collect": 1.0})
    registry = CollectorRegistry()
    registry.register(health)
    text = generate_latest(registry).decode()
    assert 'kafka_health_job_batch_phase_seconds{phase="addBatch",query="monitor"} 1.2' in text
    assert 'phase="latestOffset",query="monitor"} 0.04' in text
    assert 'phase="other"' not in text, "only the known phases: a bounded label set"
    assert 'kafka_health_job_batch_step_seconds{query="monitor",step="collect"} 1.0' in text


def test_records_read_count_each_record_once_when_the_plan_reads_it_twice() -> None:
    """The monitor query's plan reads its source in two branches (parsed logs, own records):
    Spark's numInputRows counts both reads, the exported rows figures count records."""
    from types import SimpleNamespace

    health = JobHealth(clock=lambda: 100.0)
    health.set_source_reads("monitor", 2)
    for name in ("monitor", "canary"):
        health.on_progress(SimpleNamespace(
            name=name, id=name, batchDuration=1000, inputRowsPerSecond=20.0,
            processedRowsPerSecond=40.0, numInputRows=40, eventTime={}, stateOperators=[],
            sources=[], durationMs={},
        ))  # fmt: skip
    monitor, canary = health.query("monitor"), health.query("canary")
    assert (monitor.input_rows_total, monitor.input_rows_per_s) == (20, 10.0)
    assert monitor.processed_rows_per_s == 20.0
    assert (canary.input_rows_total, canary.input_rows_per_s) == (40, 20.0)


def test_an_idle_query_is_live_not_stalled() -> None:
    """A trigger that finds no new data (Spark 4: onQueryIdle, no progress) is a sign of
    life: the query's last-batch time moves on and its input rate is zero, so a topic gone
    quiet pages as that source's blindness, not as a stalled job."""
    now = [100.0]
    health = JobHealth(clock=lambda: now[0])
    health.on_started("monitor")
    now[0] = 130.0
    health.on_idle("monitor")
    [signal] = [s for s in health.signals() if s.name == "job_last_batch_timestamp"]
    assert signal.value == 130.0 and signal.label("query") == "monitor"
    assert health.query("monitor").input_rows_per_s == 0.0


def test_how_far_a_query_has_read_is_the_start_of_its_newest_trigger() -> None:
    """A batch's progress and an idle look both carry the trigger's start (Spark's ISO text):
    records written before it are read. It never goes back, nor past the wall clock, and each
    trigger calls the progress hooks (the job publishes then, for the alert service's wait)."""
    from types import SimpleNamespace

    health = JobHealth(clock=lambda: 1_795_630_000.0)
    seen: list[str] = []
    health.add_progress_hook(seen.append)
    assert health.read_to("monitor") is None
    progress = SimpleNamespace(
        name="monitor", id="x", batchDuration=900, inputRowsPerSecond=1.0,
        processedRowsPerSecond=1.0, numInputRows=4, eventTime={}, stateOperators=[], sources=[],
        durationMs={}, timestamp="2026-11-25T17:26:38.500Z",
    )  # fmt: skip
    health.on_progress(progress)
    assert health.read_to("monitor") == 1_795_627_598.5
    health.on_idle("monitor", "2026-11-25T17:26:40.000Z")
    assert health.read_to("monitor") == 1_795_627_600.0
    health.on_idle("monitor", "2026-11-25T17:26:39.000Z")  # delivered late: kept the newest
    assert health.read_to("monitor") == 1_795_627_600.0
    health.on_idle("monitor", "2026-11-25T18:10:00.000Z")  # ahead of this clock
    assert health.read_to("monitor") == 1_795_630_000.0
    assert seen == ["monitor"] * 4
