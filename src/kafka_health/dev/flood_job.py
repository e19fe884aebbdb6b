"""The label flood (issue 55) through the streaming job and the real alert service, on real Kafka.

Two runs of the job (:class:`~kafka_health.job.app.MonitorJob`, on the wall clock) with the
alert service paging over HTTP to a receiver, each on topics of its own: a **clean** one on
the good timeline of :mod:`kafka_health.dev.fuzz_job` alone, and a **flood** one on the same
timeline followed, once it is folded, by ``--records`` records (100,000 by default) with
random broker ids, topics and error strings: ids that are not Kafka's in keys and envelopes,
legal forged ids (streams of their own), events of topics Kafka would refuse, canary outcomes
with values out of range, failed sends with random error strings, cluster-state records with
random topics, partitions and broker ids.

It checks, and prints: no query restarted; every log record counted; every untrusted value
rejected at the door with the reason it was built with; series per signal within the cap,
and the cap met and counted; one page says input is rejected, none for anything the flood
made up; error classes from the vocabulary; detector state bounded; the good signals the same
as in the clean run.

    .venv/bin/python benchmarks/fuzz_job.py --flood [--records 100000] [--seed 13] [--json OUT]

(``tests/spark/test_job_flood.py`` runs :func:`flood` scaled down.)
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kafka_health.config import ExporterConfig, MonitorConfig, ReceiverConfig, TopicsConfig
from kafka_health.dev.fuzz_job import (
    GOOD_BROKERS,
    PARTITIONS,
    SIGNALS_ON_THE_CLOCK,
    Record,
    good_records,
    produce,
    two_runs,
    wait_counted,
)
from kafka_health.dev.log_lines import stamp
from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID

RULES_FILE = Path(__file__).resolve().parents[3] / "conf" / "alerts.yaml"
"""The shipped rules, in the checkout (src/kafka_health/dev/ is three levels down)."""

FLOOD_CAP = 100
"""``alerting.exporter.max_series_per_signal`` in the flood: below the legal random broker
ids' streams, so the store's cap is met."""
LEGAL_NOISE_BROKERS = 400
"""Distinct broker ids in Kafka's range (legal, forged) among the flood's log records."""
NOISE_PARTITIONS = 40
"""Canary partitions (legal) of the flood's failed outcomes with random error strings."""
JOB_HEALTH_RULES = ("MonitorStalled", "MonitorFailed", "MonitorBlind", "ClusterUnreachable",
                    "TransportUnreachable", "MonitorStateNotWritable")  # fmt: skip
"""Rules about the job and its host (a batch of 100,000 records on a loaded CI machine),
not about what the records say."""
REJECTION_RULE = "MonitorInputRejected"
FORGED_FAILING = ("CanaryWriteFailure", "9")
"""The flood's legal failed sends (random error strings) name leader 9: a canary failure of
broker 9, one page, as a dead broker 9 would give."""
STATE_BYTES_PER_LEGAL_RECORD = 64
"""The detectors' state may grow with the flood's legal records (kept for their windows),
not with its rejected ones."""


def _garbage(rng: random.Random, longest: int) -> str:
    """A random text that holds a character no topic name or broker id may hold."""
    alphabet = "abcXYZ019._-!<>@#|{}\u00fc\u0661 \t"
    body = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, longest)))
    return body + rng.choice("!<>@#|{}\u00fc")


def _bad_key_id(rng: random.Random) -> bytes:
    """Digits in a record key (``record_key: auto`` takes them for a broker id) that are not
    Kafka's: beyond int32, or a leading zero."""
    if rng.random() < 0.5:
        return str(rng.randrange(2_147_483_648, 10**20)).encode()
    return b"0" + str(rng.randrange(1, 10**6)).encode()


def _bad_envelope_id(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return -rng.randrange(1, 10**9)
    if kind == 1:
        return rng.randrange(2_147_483_648, 10**30)
    if kind == 2:
        return rng.choice(["1.5", "+3", "1 2", "0x1f", "\u0661", "<!channel>", "NaN"])
    if kind == 3:
        return "9" * rng.randrange(11, 5000)
    return "x" + _garbage(rng, 300)  # not "{...}": an object there is no broker id at all


def flood_records(
    topics: TopicsConfig, count: int, seed: int, now_ms: int
) -> Iterator[tuple[Record, tuple[str, str] | None]]:
    """``count`` records with random broker ids, topics and error strings, each with the
    (source, reason) it must be rejected for, or None: a legal forged broker id (its own
    stream), an error class out of the vocabulary (``other``: not a rejection)."""
    rng = random.Random(seed)
    line = ("[{stamp}] INFO [ReplicaFetcher replicaId=9, leaderId=2, fetcherId=0] Node 2 was "
            "unable to process the fetch request (kafka.server.ReplicaFetcherThread)")  # fmt: skip
    legal = [str(rng.randrange(100, 2_147_483_647)) for _ in range(LEGAL_NOISE_BROKERS)]
    for i in range(count):
        roll = rng.random()
        at = now_ms - rng.randrange(1000, 50_000)
        text = line.format(stamp=stamp(at))
        if roll < 0.20:  # a broker id in the key that is not Kafka's
            yield (
                (topics.broker_logs, _bad_key_id(rng), text.encode(), 0),
                ("broker_logs", "bad_broker_id"),
            )
        elif roll < 0.40:  # ... or in the envelope
            doc = {"broker_id": _bad_envelope_id(rng), "kind": "server", "message": text}
            yield (
                (topics.broker_logs, None, json.dumps(doc).encode(), 0),
                ("broker_logs", "bad_broker_id"),
            )
        elif roll < 0.45:  # legal, forged: a stream of its own, kinds random
            kind = rng.choice(["server", "gc", "controller", _garbage(rng, 40)])
            doc = {"broker_id": rng.choice(legal), "kind": kind, "message": text}
            yield (topics.broker_logs, None, json.dumps(doc).encode(), 0), None
        elif roll < 0.55:  # an event of a topic Kafka would refuse
            topic = _garbage(rng, 400).replace(" ", "_").replace("]", "").replace("\t", "_")
            event = (f"[{stamp(at)}] INFO [Partition {topic}-{rng.randrange(100)} broker=9] "
                     "Shrinking ISR from 9,1 to 9 (kafka.cluster.Partition)")  # fmt: skip
            yield (topics.broker_logs, b"9", event.encode(), 0), ("broker_logs", "bad_topic")
        elif roll < 0.70:  # a canary outcome with a value out of its range
            value, reason = _hostile_outcome(rng, at, i)
            yield (
                (topics.canary_results, b"flood", value, rng.randrange(PARTITIONS)),
                ("canary_results", reason),
            )
        elif roll < 0.80:  # a failed send with a random error string: class "other"
            doc = {"schema": RESULT_SCHEMA_ID, "canary_id": "flood", "topic": "c",
                   "partition": 100 + rng.randrange(NOISE_PARTITIONS), "seq": i, "acks": "all",
                   "send_ms": at, "done_ms": at + 5, "outcome": "failed", "latency_s": 0.005,
                   "leader": 9, "error": _garbage(rng, 2000)}  # fmt: skip
            yield (topics.canary_results, b"flood", json.dumps(doc).encode(), 0), None
        else:  # a cluster-state record with a random topic, partition or broker id
            value, reason = _hostile_cluster(rng, at)
            yield (topics.cluster_state, b"partition", value, 0), ("cluster_state", reason)


def _hostile_outcome(rng: random.Random, at: int, i: int) -> tuple[bytes, str]:
    ok: dict[str, Any] = {
        "schema": RESULT_SCHEMA_ID, "canary_id": "flood", "topic": "c", "partition": 0,
        "seq": i, "acks": "all", "send_ms": at, "done_ms": at + 5, "outcome": "ok",
        "latency_s": 0.005, "leader": 9,
    }  # fmt: skip
    kind = rng.randrange(4)
    if kind == 0:
        return json.dumps({**ok, "acks": _garbage(rng, 50)}).encode(), "bad_acks"
    if kind == 1:
        bad = rng.choice([-rng.randrange(1, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "partition": bad}).encode(), "bad_partition"
    if kind == 2:
        bad = rng.choice([-rng.randrange(1, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "leader": bad}).encode(), "bad_broker_id"
    return json.dumps({**ok, "canary_id": _garbage(rng, 3000) + "x" * 257}).encode(), "too_long"


def _hostile_cluster(rng: random.Random, at: int) -> tuple[bytes, str]:
    ok: dict[str, Any] = {
        "schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition", "snapshot_ms": at,
        "topic": "orders", "partition": 0, "leader": 1, "leader_epoch": 3,
        "replicas": [1, 2, 3], "isr": [1, 2, 3], "min_isr": 2,
    }  # fmt: skip
    kind = rng.randrange(4)
    if kind == 0:
        topic = rng.choice([_garbage(rng, 300), "t" * rng.randrange(250, 5000), ".", ".."])
        return json.dumps({**ok, "topic": topic}).encode(), "bad_topic"
    if kind == 1:
        return json.dumps({**ok, "partition": -rng.randrange(1, 10**6)}).encode(), "bad_partition"
    if kind == 2:
        bad = rng.choice([-rng.randrange(2, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "leader": bad}).encode(), "bad_broker_id"
    bad = rng.choice([-1, rng.randrange(2**31, 2**62)])
    return json.dumps({**ok, "replicas": [1, 2, bad]}).encode(), "bad_broker_id"


def rss_kb(pid: int) -> int:
    """Resident memory of process ``pid`` (kB, /proc)."""
    for text in Path(f"/proc/{pid}/status").read_text().splitlines():
        if text.startswith("VmRSS:"):
            return int(text.split()[1])
    return 0


def jvm_pid(spark: Any) -> int | None:
    """The pid of the session's JVM (launched by PySpark), if this process started it."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    return None if proc is None else int(proc.pid)


@dataclasses.dataclass
class FloodRun:
    signals: dict[str, float]
    rejected: dict[tuple[str, str], int]
    entries: int
    series: dict[str, int]
    series_dropped: dict[str, int]
    alerts_dropped: dict[str, int]
    active: set[tuple[str, tuple[tuple[str, str], ...]]]
    pages: list[list[tuple[str, str]]]
    """Per notification that told of new firing alerts: its firing alerts' (name, broker)."""
    page_groups: list[str]
    """Each of :attr:`pages`' incident (its group key): an update in place keeps it."""
    state_bytes: int
    restarts: int
    rss_kb: dict[str, int]
    error_classes: set[str]
    produce_s: float


def _compared(signals: list[Any]) -> dict[str, float]:
    """The good brokers' series (1-3), and the cluster's but the canary's (the flood's
    failed sends count in those, by design), less the values on the clock."""
    from kafka_health.model import SOURCE_SIGNALS

    out = {}
    for s in signals:
        broker = dict(s.labels).get("broker_id")
        if broker not in (None, *GOOD_BROKERS) or any(w in s.name for w in SIGNALS_ON_THE_CLOCK):
            continue
        if broker is None and s.name in SOURCE_SIGNALS["canary"]:
            continue
        out[f"{s.name}{dict(s.labels)}"] = float(s.value)
    return out


def flood_run(
    spark: Any, config: MonitorConfig, good: list[Record],
    noise: Iterator[tuple[Record, Any]] | None, timeout_s: float, settle_s: float = 4.0,
) -> tuple[FloodRun, Counter[tuple[str, str]], int]:  # fmt: skip
    """The job with the real alert service (pages over HTTP to a receiver) on the good
    timeline, then, once it is folded, ``noise``; its figures when all is counted."""
    from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
    from kafka_health.job.app import MonitorJob
    from kafka_health.job.sinks import build_sinks

    receiver = ReceiverState()
    expected: Counter[tuple[str, str]] = Counter()
    with webhook_receiver(receiver) as url:
        alerting = dataclasses.replace(
            config.alerting,
            rules_file=str(RULES_FILE),
            state_dir=str(Path(config.spark.checkpoint_dir).parent / "alerting"),
            receivers=[ReceiverConfig(name="pager", url=f"{url}/pager", timeout_s=5.0)],
            exporter=ExporterConfig(port=None, max_series_per_signal=FLOOD_CAP),
        )
        config = dataclasses.replace(config, alerting=alerting)
        logs, _ = produce(config, ((r, None) for r in good), spark)
        job = MonitorJob(spark, config)
        sinks = build_sinks(config, job)
        job.sinks.extend(sinks)
        stop = threading.Event()
        runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
        for sink in sinks:
            sink.start()
        runner.start()
        jvm = jvm_pid(spark)
        rss: dict[str, int] = {}
        try:
            wait_counted(job, logs, timeout_s, runner)
            _measure_rss(rss, "before", jvm)
            produce_began = time.monotonic()
            if noise is not None:
                more, expected = produce(config, noise, spark)
                logs += more
            produce_s = round(time.monotonic() - produce_began, 1)
            wait_counted(job, logs, timeout_s, runner)
            time.sleep(settle_s)  # the last publish, evaluation and pages
            if noise is not None:
                _wait_rejection_page(receiver, config.alerting.group_interval_s + settle_s)
            _measure_rss(rss, "after", jvm)
            run = _figures(job, sinks[0], rss, produce_s)
        finally:
            stop.set()
            runner.join(timeout=120)
            for sink in reversed(sinks):
                sink.stop()
        for body in receiver.bodies("/pager"):
            firing = [(a["labels"]["alertname"], a["labels"].get("broker_id", ""))
                      for a in body.get("alerts", []) if a.get("status") == "firing"]  # fmt: skip
            if body.get("status") == "firing" and firing:
                run.pages.append(firing)
                run.page_groups.append(str(body.get("groupKey", "")))
    return run, expected, logs


def _wait_rejection_page(receiver: Any, timeout_s: float) -> None:
    """Until a page names the rejection, at most ``timeout_s``: when a job-health alert (a
    stalled batch of the flood) opened the incident first, the rejection joins it as an update
    in place, sent a group interval after the first page."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for body in receiver.bodies("/pager"):
            if any(a["labels"]["alertname"] == REJECTION_RULE for a in body.get("alerts", [])):
                return
        time.sleep(0.2)


def _measure_rss(rss: dict[str, int], when: str, jvm: int | None) -> None:
    """The driver's resident memory (and the JVM's, if known) into ``rss``, named ``when``."""
    rss[f"driver_{when}_kb"] = rss_kb(os.getpid())
    if jvm is not None:
        rss[f"jvm_{when}_kb"] = rss_kb(jvm)


def _figures(job: Any, service: Any, rss: dict[str, int], produce_s: float) -> FloodRun:
    """The figures of ``job`` and its alert ``service`` now (no pages yet)."""
    import orjson

    from kafka_health.job.app import QUERY

    signals = job.board.signals()
    store, engine = service.store, service.engine
    names = {s.name for s in store.signals()}
    return FloodRun(
        signals=_compared(signals),
        rejected=job.rejected_counts.totals(),
        entries=sum(job.parse_counts.totals().values()),
        series={n: store.count(n) for n in sorted(names)},
        series_dropped=store.dropped(),
        alerts_dropped=engine.dropped(),
        active={
            (a.rule, tuple(sorted((k, v) for k, v in a.labels.items()))) for a in engine.active()
        },
        pages=[],
        page_groups=[],
        state_bytes=len(orjson.dumps(job.board.state())),
        restarts=job.health.query(QUERY).restarts_total,
        rss_kb=rss,
        error_classes={s.label("error_class") for s in signals if s.name == "canary_send_failures"},
        produce_s=produce_s,
    )


def _unexplained(run: FloodRun, clean: FloodRun) -> list[list[tuple[str, str]]]:
    """``run``'s pages with an alert that neither the clean run, the forged failing broker nor
    the job's own health explains."""
    known = {(rule, dict(lbl).get("broker_id", "")) for rule, lbl in clean.active}
    return [
        page
        for page in run.pages
        if any(
            a not in known
            and a != FORGED_FAILING
            and a[0] not in (*JOB_HEALTH_RULES, REJECTION_RULE)
            for a in page
        )
    ]


def _rejection_pages(run: FloodRun) -> int:
    """Incidents whose pages say input is rejected: a job-health alert (a batch of the flood
    falling behind on a loaded machine) joining that incident updates it in place."""
    return len({
        group
        for page, group in zip(run.pages, run.page_groups, strict=True)
        if any(name == REJECTION_RULE for name, _ in page)
    })  # fmt: skip


def _checks(
    clean: FloodRun, noisy: FloodRun, expected: Counter[tuple[str, str]], logs: int, records: int,
    differ: dict[str, Any],
) -> dict[str, bool]:  # fmt: skip
    """The flood's verdicts, by name."""
    from kafka_health.job.own_records import ERROR_CLASSES, OTHER_ERROR

    legal = records - sum(expected.values())
    return {
        "no_restart": noisy.restarts == 0,
        "every_log_record_counted": noisy.entries == logs,
        "rejected_by_reason_as_built": noisy.rejected == dict(expected),
        "series_within_the_cap": max(noisy.series.values()) <= FLOOD_CAP,
        "the_cap_was_met_and_counted": noisy.series_dropped.get("log_stream_age_seconds", 0) > 0,
        "one_page_says_input_is_rejected": _rejection_pages(noisy) == 1
        and _rejection_pages(clean) == 0,
        "no_page_for_anything_the_flood_made_up": not _unexplained(noisy, clean),
        "error_classes_from_the_vocabulary": noisy.error_classes <= ERROR_CLASSES | {OTHER_ERROR}
        and OTHER_ERROR in noisy.error_classes,
        "detector_state_bounded": noisy.state_bytes
        <= clean.state_bytes + STATE_BYTES_PER_LEGAL_RECORD * legal,
        "good_signals_unchanged": not differ and len(clean.signals) >= 10,
    }


def flood(
    bootstrap: list[str], records: int, seed: int, tmp: Path, spark: Any = None
) -> dict[str, Any]:
    """A good timeline alone, then the same among ``records`` records with random broker
    ids, topics and error strings; the figures and the checks' verdicts."""
    clean_config, flood_config, spark = two_runs(
        bootstrap, tmp, f"flood-clean-{seed}", f"flood-{seed}", spark
    )
    now_ms = int(time.time() * 1000)
    clean, _, _ = flood_run(spark, clean_config, good_records(clean_config.topics, now_ms, seed),
                            None, 300)  # fmt: skip
    began = time.monotonic()
    noisy, expected, logs = flood_run(
        spark, flood_config, good_records(flood_config.topics, now_ms, seed),
        flood_records(flood_config.topics, records, seed, now_ms), 600,
    )  # fmt: skip
    seconds = time.monotonic() - began
    differ = {
        k: (clean.signals.get(k), noisy.signals.get(k))
        for k in set(clean.signals) | set(noisy.signals)
        if clean.signals.get(k) != noisy.signals.get(k)
    }
    return {
        "records": records,
        "good_records": len(good_records(flood_config.topics, now_ms, seed)),
        "log_records": logs,
        "flood_run_s": round(seconds, 1),
        "rejected": {f"{s}/{r}": n for (s, r), n in sorted(noisy.rejected.items())},
        "expected_rejected": {f"{s}/{r}": n for (s, r), n in sorted(expected.items())},
        "produce_s": noisy.produce_s,
        "unexplained_pages": _unexplained(noisy, clean),
        "rejected_total": sum(noisy.rejected.values()),
        "series_max_per_signal": max(noisy.series.values()),
        "series_total": sum(noisy.series.values()),
        "series_total_clean": sum(clean.series.values()),
        "series_cap": FLOOD_CAP,
        "series_dropped": noisy.series_dropped,
        "alerts_dropped": noisy.alerts_dropped,
        "pages": [sorted(set(p)) for p in noisy.pages],
        "pages_clean": [sorted(set(p)) for p in clean.pages],
        "rejection_pages": _rejection_pages(noisy),
        "detector_state_bytes": {"clean": clean.state_bytes, "flood": noisy.state_bytes},
        "rss_kb": {"clean": clean.rss_kb, "flood": noisy.rss_kb},
        "signals_compared": len(clean.signals),
        "signals_that_differ": {k: list(v) for k, v in sorted(differ.items())},
        "checks": _checks(clean, noisy, expected, logs, records, differ),
    }
