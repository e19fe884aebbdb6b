"""The consumer-side fault scenarios without Kafka: the ground truth each page is judged against
(when the true time lag passed the objective, the records deleted unread, the coordinator in a
FindCoordinator answer), the verdicts on timelines of pages, the throttled consumers' commit
bookkeeping, and a run failed by what its truth found wrong."""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_health.dev.faults.actions_consumer_faults import (
    COORDINATED_GROUP,
    DELETED_METRIC,
    PAGE_LATE_S,
    RETENTION_GROUP,
    SLOW_BOUND_S,
    SLOW_FRACTION,
    SLOW_GROUP,
    SLOW_TOPIC,
    ThrottledLoad,
)
from kafka_health.dev.faults.actions_consumers import GROUP, OBJECTIVE_S, TOPIC, ConsumerLoad
from kafka_health.dev.faults.consumer_truth import (
    Commit,
    config_value,
    coordinator_of,
    deleted_unread,
    first_crossing,
    first_firing,
    lag_at,
    listing_findings,
    metric,
    names_group,
    page_timing,
)
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.evaluate import judge
from kafka_health.dev.faults.receiver import Page, RecordingReceiver
from kafka_health.dev.faults.report import COLUMNS, summarize, table
from kafka_health.dev.faults.runner import BenchOptions, FaultBench, one_line
from kafka_health.dev.faults.scenarios import SCENARIOS, Scenario

# ------------------------------------------------------------------ the true time lag


def test_the_lag_passes_the_objective_inside_a_commit_interval_not_at_a_commit() -> None:
    """Partition 0, one record a second (offset n written at 100 + n). The commit of offset 5
    at 110 leaves 5 s of lag, growing to 7 s before the next commit (offset 6 at 112: 6 s,
    growing); with a 7.5 s objective the lag passes it at 106 + 7.5 = 113.5, before the commit
    at 115 brings it down."""
    written = {0: {n: 100.0 + n for n in range(0, 30)}}
    commits = [Commit(110.0, 0, 5), Commit(112.0, 0, 6), Commit(115.0, 0, 7)]
    truth = first_crossing(commits, written, 7.5, since=109.0, until=120.0)
    assert truth.unknown == ()
    assert truth.crossing is not None
    assert (truth.crossing.at, truth.crossing.partition, truth.crossing.offset) == (113.5, 0, 6)
    assert truth.crossing.written_at == 106.0
    assert lag_at(113.0, commits, written) == 7.0
    assert lag_at(115.5, commits, written) == 8.5
    assert lag_at(109.0, commits, written) is None, "no commit yet"


def test_the_first_partition_to_pass_the_objective_counts() -> None:
    written = {0: {n: 100.0 + n for n in range(30)}, 1: {n: 100.0 + n for n in range(30)}}
    commits = [Commit(110.0, 0, 5), Commit(115.0, 0, 14), Commit(110.0, 1, 3)]
    truth = first_crossing(commits, written, 8.0, since=110.0, until=130.0)
    assert truth.crossing is not None
    assert (truth.crossing.at, truth.crossing.partition) == (111.0, 1), "103 + 8 on partition 1"


def test_a_lag_already_over_the_objective_at_the_start_crosses_at_the_start() -> None:
    written = {0: {n: 100.0 + n for n in range(30)}}
    commits = [Commit(90.0, 0, 2)]
    truth = first_crossing(commits, written, 5.0, since=120.0, until=130.0)
    assert truth.crossing is not None and truth.crossing.at == 120.0


def test_nothing_unread_is_no_lag_and_an_unknown_record_is_said() -> None:
    written = {0: {n: 100.0 + n for n in range(10, 20)}}
    caught_up = first_crossing([Commit(110.0, 0, 20)], written, 1.0, since=100.0, until=200.0)
    assert caught_up.crossing is None and caught_up.unknown == ()
    assert lag_at(150.0, [Commit(110.0, 0, 20)], written) == 0.0
    before = first_crossing([Commit(110.0, 0, 4)], written, 1.0, since=100.0, until=200.0)
    assert before.crossing is None
    assert len(before.unknown) == 1 and "offset 4" in before.unknown[0]
    gap = dict(written[0])
    del gap[15]
    missing = first_crossing([Commit(110.0, 0, 15)], {0: gap}, 1.0, since=100.0, until=200.0)
    assert missing.unknown, "a write the producer did not see acknowledged"


def test_a_throttled_consumer_with_its_sawtooth() -> None:
    """Ten records a second written (offset i at 0.1 i), read at five a second and committed
    every 0.5 s (offset floor(2.5 k) at 0.5 k): the lag after commit k is 0.25 k, growing to
    0.25 k + 0.5 before the next. With a 10 s objective the first interval whose lag passes it
    is k = 39 (offset 97, written at 9.7): at 19.7 s, before the commit at 20 s drops it."""
    written = {0: {i: 0.1 * i for i in range(400)}}
    commits = [Commit(0.5 * k, 0, math.floor(2.5 * k)) for k in range(80)]
    truth = first_crossing(commits, written, 10.0, since=0.0, until=40.0)
    assert truth.crossing is not None
    assert truth.crossing.at == pytest.approx(19.7)
    assert truth.crossing.offset == 97


# ------------------------------------------------------------------ a page against the truth


def test_a_page_before_the_truth_or_too_long_after_is_wrong() -> None:
    assert page_timing(None, 100.0, PAGE_LATE_S) is None, "no page: the bench counts it missed"
    assert page_timing(104.0, 100.0, PAGE_LATE_S) is None
    assert page_timing(100.0, 100.0, PAGE_LATE_S) is None
    early = page_timing(98.5, 100.0, PAGE_LATE_S)
    assert early is not None and "1.5 s before" in early
    late = page_timing(111.0, 100.0, PAGE_LATE_S)
    assert late is not None and "11.0 s after" in late and "more than 10 s" in late
    assert page_timing(99.5, 100.0, PAGE_LATE_S, early_s=1.0) is None, "measurement slack"
    never = page_timing(99.5, None, PAGE_LATE_S)
    assert never is not None and "never" in never


# ------------------------------------------------------------------ records deleted unread


def test_the_records_deleted_unread_are_log_start_minus_committed() -> None:
    log_start = {0: 120, 1: 80, 2: 300}
    committed = {0: 100, 1: 95, 2: 250}
    assert deleted_unread(log_start, committed) == {0: 20, 2: 50}
    assert sum(deleted_unread(log_start, committed).values()) == 70
    assert deleted_unread({0: 10}, {}) == {}, "no committed offset: nothing the group lost"


def test_a_metric_and_a_config_read_from_their_answers() -> None:
    name = "kafka_health_consumergroup_deleted_unread_records_total"
    assert name == DELETED_METRIC
    metrics = {
        (name, (("group", "a"),)): 3.0,
        (name, (("group", RETENTION_GROUP),)): 42.0,
        ("kafka_health_consumergroup_status", (("group", "a"), ("verdict", "stopped"))): 1.0,
    }
    assert metric(metrics, name, group=RETENTION_GROUP) == 42.0
    assert metric(metrics, "kafka_health_consumergroup_status", group="a", verdict="ok") is None
    answer = {"broker": {"1": {"log.retention.check.interval.ms": {"value": "5000"}}}}
    assert config_value(answer, "broker", "1", "log.retention.check.interval.ms") == "5000"
    assert config_value(answer, "broker", "2", "log.retention.check.interval.ms") is None


# ------------------------------------------------------------------ the coordinator


def test_the_coordinator_from_a_find_coordinator_answer() -> None:
    """kafka-python's FindCoordinatorResponse.to_dict(): v4+ one row per key, v0-3 flat."""
    v4 = {"throttle_time_ms": 0, "coordinators": [
        {"key": "other", "node_id": 1, "host": "h", "port": 1, "error_code": 0},
        {"key": COORDINATED_GROUP, "node_id": 2, "host": "h", "port": 2, "error_code": 0,
         "error_message": None},
    ]}  # fmt: skip
    assert coordinator_of(v4, COORDINATED_GROUP) == 2
    assert coordinator_of(v4, "missing") is None
    loading = {"coordinators": [
        {"key": COORDINATED_GROUP, "node_id": -1, "host": "", "port": -1, "error_code": 15,
         "error_message": "The coordinator is not available."},
    ]}  # fmt: skip
    assert coordinator_of(loading, COORDINATED_GROUP) is None
    assert coordinator_of({"error_code": 0, "node_id": 3, "host": "h", "port": 1}, "g") == 3
    assert coordinator_of({"error_code": 15, "node_id": -1, "host": "", "port": -1}, "g") is None


# ------------------------------------------------------------------ pages


def alert(name: str, status: str = "firing", broker: str = "", group: str = "",
          summary: str = "", details: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    labels = {"alertname": name, **({"broker_id": broker} if broker else {}),
              **({"group": group} if group else {})}  # fmt: skip
    annotations: dict[str, Any] = {"summary": summary}
    if details is not None:
        annotations["details"] = json.dumps(details, sort_keys=True)
    return {"status": status, "labels": labels, "annotations": annotations,
            "fingerprint": f"{name}{broker}{group}"}  # fmt: skip


def page(at: float, key: str, group: str, *alerts: dict[str, Any]) -> Page:
    status = "firing" if any(a["status"] == "firing" for a in alerts) else "resolved"
    return Page(at=at, idempotency_key=key, group_key=group, status=status, alerts=list(alerts))


HELD = alert(
    "BrokerHoldsUpConsumerGroups", broker="2",
    summary=f"Broker 2 holds up consumer groups ['{COORDINATED_GROUP}'] (1 in all)",
)  # fmt: skip


def test_the_killed_coordinators_incident_lists_the_group_once() -> None:
    pages = [
        page(10.0, "k1", "b2", alert("BrokerNotAnswering", broker="2")),
        page(15.0, "k2", "b2", alert("BrokerNotAnswering", broker="2"), HELD),
        page(20.0, "k3", "b2", alert("BrokerFailed", broker="2"), HELD),
        page(90.0, "k4", "b2", alert("BrokerFailed", "resolved", broker="2"),
             {**HELD, "status": "resolved"}),
    ]  # fmt: skip
    notes, wrong = listing_findings(pages, 2, COORDINATED_GROUP)
    assert wrong == []
    assert notes["listed_at"] == 15.0 and notes["listed_after_first_page_s"] == 5.0
    assert notes["broker_incidents"] == 1 and notes["group_paged_on_its_own"] == []


def test_a_group_the_incident_never_listed_or_paged_on_its_own_is_wrong() -> None:
    pages = [
        page(10.0, "k1", "b2", alert("BrokerNotAnswering", broker="2")),
        page(30.0, "k2", "g", alert("ConsumerGroupLagging", group=COORDINATED_GROUP)),
    ]
    notes, wrong = listing_findings(pages, 2, COORDINATED_GROUP)
    assert notes["group_paged_on_its_own"] == ["ConsumerGroupLagging"]
    assert any("never listed" in w for w in wrong)
    assert any("paged on its own: ConsumerGroupLagging" in w for w in wrong)


def test_a_listing_after_the_broker_incident_resolved_is_a_second_incident() -> None:
    pages = [
        page(10.0, "k1", "b2", alert("BrokerNotAnswering", broker="2")),
        page(40.0, "k2", "b2", alert("BrokerNotAnswering", "resolved", broker="2")),
        page(50.0, "k3", "b2", HELD),
    ]
    _, wrong = listing_findings(pages, 2, COORDINATED_GROUP)
    assert wrong == [
        f"broker 2's incident was resolved before it listed group {COORDINATED_GROUP}: the "
        "listing opened a second incident"
    ]


def test_another_brokers_listing_or_another_group_does_not_count() -> None:
    other = alert(
        "BrokerHoldsUpConsumerGroups",
        broker="3",
        summary=f"Broker 3 holds up consumer groups ['{COORDINATED_GROUP}']",
    )
    longer = alert(
        "BrokerHoldsUpConsumerGroups",
        broker="2",
        summary=f"Broker 2 holds up consumer groups ['{COORDINATED_GROUP}-2']",
    )
    pages = [page(10.0, "k1", "b2", alert("BrokerFailed", broker="2"), longer),
             page(11.0, "k2", "b3", other)]  # fmt: skip
    _, wrong = listing_findings(pages, 2, COORDINATED_GROUP)
    assert any("never listed" in w for w in wrong)


def test_the_group_named_in_the_details_alone_is_listed() -> None:
    """The summary may be cut or templated otherwise: the details' groups_held says it."""
    held = alert(
        "BrokerHoldsUpConsumerGroups",
        broker="2",
        summary="Broker 2 holds up groups",
        details={"groups_held": [COORDINATED_GROUP], "held_by": {"broker_id": 2}},
    )
    assert names_group(held, COORDINATED_GROUP)
    assert not names_group(held, "faultsuite-coordinated")
    assert names_group(alert("ConsumerGroupLagging", group=GROUP), GROUP)


def test_the_first_firing_alert_of_a_group() -> None:
    pages = [
        page(5.0, "k1", "g", alert("ConsumerGroupLagging", group="other")),
        page(6.0, "k2", "g", alert("ConsumerGroupLagging", "resolved", group=SLOW_GROUP)),
        page(7.0, "k3", "g", alert("ConsumerGroupLagging", group=SLOW_GROUP)),
    ]
    found = first_firing(pages, "ConsumerGroupLagging", group=SLOW_GROUP)
    assert found is not None and found[0].at == 7.0
    assert first_firing(pages, "ConsumerGroupRecordsDeletedUnread") is None


# ------------------------------------------------------------------ the scenarios


def test_the_consumer_scenarios_follow_consumer_stop_each_on_its_own_topic_and_group() -> None:
    names = list(SCENARIOS)
    at = names.index("consumer-stop")
    assert names[at + 1 : at + 4] == ["consumer-slow", "coordinator-kill", "retention-loss"]
    assert len({GROUP, SLOW_GROUP, COORDINATED_GROUP, RETENTION_GROUP}) == 4
    assert all(g.startswith("faultsuite-") for g in (SLOW_GROUP, COORDINATED_GROUP,
                                                      RETENTION_GROUP))  # fmt: skip
    assert SLOW_TOPIC != TOPIC
    for name in ("consumer-slow", "coordinator-kill", "retention-loss"):
        s = SCENARIOS[name]
        assert s.modes == ("kraft", "zookeeper") and s.layouts == ("transport", "single")
        assert s.expects_page and s.description
    assert SLOW_BOUND_S >= OBJECTIVE_S / (1 - SLOW_FRACTION) + PAGE_LATE_S


def test_coordinator_kill_pages_about_the_coordinator_and_nothing_about_the_group() -> None:
    kill = SCENARIOS["coordinator-kill"]
    assert kill.targets == () and kill.targets_from == "the test group's coordinator"
    chosen = dataclasses.replace(kill, targets=(2,))  # what the injection chose
    pages = [
        page(10.0, "k1", "b2", alert("BrokerNotAnswering", broker="2")),
        page(15.0, "k2", "b2", alert("BrokerNotAnswering", broker="2"), HELD),
        page(40.0, "k3", "g", alert("ConsumerGroupLagging", group=COORDINATED_GROUP)),
    ]
    verdict = judge(chosen, pages)
    assert verdict.first_page_at == 10.0
    assert [a.alertname for a in verdict.unexpected] == ["ConsumerGroupLagging"]
    assert "the test group's coordinator" in kill.describe_expected()


def test_consumer_slow_allows_nothing_but_its_page_and_retention_loss_the_lag_too() -> None:
    slow = SCENARIOS["consumer-slow"]
    pages = [
        page(30.0, "k1", "g", alert("ConsumerGroupLagging", group=SLOW_GROUP)),
        page(31.0, "k2", "g2", alert("ConsumerGroupRewound", group=SLOW_GROUP)),
    ]
    verdict = judge(slow, pages)
    assert verdict.first_page_at == 30.0
    assert [a.alertname for a in verdict.unexpected] == ["ConsumerGroupRewound"]
    loss = SCENARIOS["retention-loss"]
    pages = [
        page(21.0, "k1", "g", alert("ConsumerGroupLagging", group=RETENTION_GROUP)),
        page(25.0, "k2", "g", alert("ConsumerGroupLagging", group=RETENTION_GROUP),
             alert("ConsumerGroupRecordsDeletedUnread", group=RETENTION_GROUP)),
    ]  # fmt: skip
    verdict = judge(loss, pages)
    assert verdict.first_page_at == 25.0 and verdict.unexpected == []


# ------------------------------------------------------------------ the throttled consumers


class FakeConsumer:
    """What ThrottledLoad._commit asks of a KafkaConsumer."""

    def __init__(self, owned: set[Any], fail: bool = False) -> None:
        self.owned = owned
        self.fail = fail
        self.committed: list[dict[Any, Any]] = []

    def assignment(self) -> set[Any]:
        return set(self.owned)

    def commit(self, offsets: dict[Any, Any]) -> None:
        if self.fail:
            raise RuntimeError("CommitFailedError: the group rebalanced")
        self.committed.append(offsets)


def test_throttled_consumers_commit_what_they_own_and_record_it() -> None:
    from kafka.structs import TopicPartition

    load = ThrottledLoad(["127.0.0.1:1"], topic=SLOW_TOPIC, group=SLOW_GROUP)
    assert load.on_written == load._written
    load._written(SimpleNamespace(partition=1, offset=7, timestamp=1_700_000_000_123))
    assert load.written == {1: {7: 1_700_000_000.123}}
    p0, p2 = TopicPartition(SLOW_TOPIC, 0), TopicPartition(SLOW_TOPIC, 2)
    consumed = {p0: 5, p2: 9}
    consumer = FakeConsumer({p0})
    load._commit(consumer, consumed, 0)
    assert consumed == {p0: 5}, "a revoked partition is forgotten (its next owner commits it)"
    assert [(tp.partition, m.offset) for tp, m in consumer.committed[0].items()] == [(0, 5)]
    assert [(c.partition, c.offset) for c in load.commits] == [(0, 5)]
    load._commit(FakeConsumer({p0}, fail=True), {p0: 6}, 1)
    assert len(load.commits) == 1 and "commit" in load.errors[0]


# ------------------------------------------------------------------ a run its truth fails


class NoCluster:
    def __init__(self) -> None:
        self.nodes: list[Any] = []


def test_what_the_truth_finds_wrong_fails_the_run_and_the_next_run_starts_clean(
    tmp_path: Path,
) -> None:
    receiver = RecordingReceiver().start()
    try:
        bench = FaultBench(BenchOptions(scenarios=[], workdir=tmp_path, calm_s=0.0),
                           say=lambda line: None)  # fmt: skip
        bench.healthy = lambda: None  # type: ignore[method-assign]
        ctx = FaultContext(cluster=NoCluster(), receiver=receiver, monitor=None,  # type: ignore[arg-type]
                           config_file=tmp_path / "monitor.yaml", workdir=tmp_path)  # fmt: skip

        def truth(ctx: FaultContext) -> None:
            ctx.wrong.append("ConsumerGroupLagging paged 2.0 s before the condition held")

        judged = Scenario("judged", "a truth that disagrees", (), (), lambda ctx: None,
                          verify=truth)  # fmt: skip
        clean = Scenario("clean", "nothing to say", (), (), lambda ctx: None)
        wrong = bench.run_one(ctx, judged)
        right = bench.run_one(ctx, clean)
    finally:
        receiver.stop()
    assert wrong.wrong == ["ConsumerGroupLagging paged 2.0 s before the condition held"]
    assert wrong.error is None
    assert right.wrong == []
    assert "WRONG: ConsumerGroupLagging paged 2.0 s before" in one_line(wrong)
    summary = summarize([wrong, right])
    assert (summary["judged"]["wrong"], summary["clean"]["wrong"]) == (1, 0)
    first = table(summary).splitlines()[1]  # the cells of a run's row have no spaces
    column = [title for title, _ in COLUMNS].index("wrong")
    assert first.split()[column] == "1"


# ------------------------------------------------------------------ the kill, with fakes


class FakeManager:
    """kafka-python's connection manager as find_coordinator uses it: answers in turn."""

    def __init__(self, answers: list[dict[str, Any]], version: int = 4) -> None:
        self.answers = answers
        self.requests: list[Any] = []
        self.broker_version_data = SimpleNamespace(api_version=lambda request: version)

    def run(self, coro: Any, manager: Any, request: Any) -> Any:
        self.requests.append(request)
        answer = self.answers.pop(0)
        return SimpleNamespace(to_dict=lambda: answer)


class FakeAdmin:
    def __init__(self, manager: FakeManager) -> None:
        self._manager = manager

    def close(self) -> None:
        pass


class KillingCluster:
    def __init__(self) -> None:
        self.nodes = [SimpleNamespace(broker_id=b) for b in (1, 2, 3)]
        self.bootstrap_servers = ["127.0.0.1:1"]
        self.killed: list[int] = []

    def kill_broker(self, broker_id: int) -> None:
        self.killed.append(broker_id)


def test_the_coordinator_is_asked_again_while_it_loads_then_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kafka_health.dev.faults import actions_consumer_faults as faults

    loading = {"coordinators": [{"key": COORDINATED_GROUP, "node_id": -1, "error_code": 15}]}
    found = {"coordinators": [{"key": COORDINATED_GROUP, "node_id": 3, "error_code": 0}]}
    manager = FakeManager([loading, found])
    monkeypatch.setattr(faults, "_admin", lambda ctx: FakeAdmin(manager))
    monkeypatch.setattr(time, "sleep", lambda s: None)
    cluster = KillingCluster()
    ctx = FaultContext(cluster=cluster, receiver=RecordingReceiver(), monitor=None,  # type: ignore[arg-type]
                       config_file=tmp_path / "m.yaml", workdir=tmp_path)  # fmt: skip
    ctx.handles[faults.COORDINATED_HANDLE] = ConsumerLoad(
        ["127.0.0.1:1"], topic=faults.COORDINATED_TOPIC, group=COORDINATED_GROUP
    )
    faults.kill_coordinator(ctx)
    assert cluster.killed == [3] and ctx.targets == (3,)
    assert ctx.notes["coordinator"] == 3 and "lag_at_kill_s" in ctx.notes
    assert [r.to_dict()["coordinator_keys"] for r in manager.requests] == [[COORDINATED_GROUP]] * 2
    assert ctx.handles[faults.RELEASED_AT] > ctx.notes["killed_at"] + faults.HOLD_RELEASE_S
    old = FakeManager([{"error_code": 0, "node_id": 1, "host": "h", "port": 1}], version=3)
    monkeypatch.setattr(faults, "_admin", lambda ctx: FakeAdmin(old))
    assert faults.find_coordinator(ctx, "g") == 1
    assert old.requests[0].to_dict()["key"] == "g", "v0-3: one key a request"
