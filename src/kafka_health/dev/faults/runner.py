"""``kafka-health bench faults``: break a real cluster under the whole monitor and time pages.

One run of the bench starts a fresh local cluster, a recording webhook receiver and the
monitor as an operator runs it (``ship-logs``, ``canary`` and ``run`` processes sharing one
config file), then for each scenario and repeat: waits for a healthy steady state, injects
the fault, waits for the expected page, undoes the fault, waits for every incident the run
opened to be resolved, and judges what the receiver got. A failed run is recorded and the
cluster restored; the next one goes on. Everything it started is stopped when it returns,
also after an error or Ctrl-C.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kafka_health.config import MonitorConfig
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.devcluster.spec import transport_spec
from kafka_health.dev.faults.actions_monitor import record_acks1_truth
from kafka_health.dev.faults.alertmanager import (
    Alertmanager,
    bench_config,
    binary,
    load,
    route_timing,
    version,
    with_alertmanager,
)
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.evaluate import alerts_of, judge, resolved
from kafka_health.dev.faults.monitor import MonitorProcesses, Sample, scrape
from kafka_health.dev.faults.receiver import Page, RecordingReceiver
from kafka_health.dev.faults.scenarios import Scenario
from kafka_health.dev.shipper_devcluster import shipper_config_for, write_config


@dataclass(frozen=True)
class BenchOptions:
    """What to run and the bench's own bounds."""

    scenarios: list[Scenario]
    workdir: Path
    mode: str = "kraft"
    layout: str = "transport"
    """``transport``: the monitor's own topics on a 1-broker cluster beside the monitored one
    (the default, so its evidence survives the fault); ``single``: all on the monitored one."""
    repeat: int = 1
    base: MonitorConfig = field(default_factory=MonitorConfig)
    healthy_timeout_s: float = 300.0
    """Bound on the wait for a healthy steady state before each run."""
    resolve_timeout_s: float = 300.0
    """Bound on the wait for the resolution after the fault was undone."""
    keep_firing_cap_s: float | None = 60.0
    """Rules that keep firing longer (15 min for lost writes and GC pauses) are capped at this
    so that the next scenario starts from a quiet pager; None keeps the shipped rules."""
    cache_dir: Path = Path("~/.cache/kafka-health/kafka")
    startup_timeout_s: float = 600.0
    """Bound on the first steady state, which includes the monitor's start."""
    calm_s: float = 20.0
    """The steady state must hold this long without a break before a fault is injected."""
    via_alertmanager: Path | None = None
    """An Alertmanager config (the README's ``conf/alertmanager.example.yml``): a real
    Alertmanager runs with it, its receivers swapped for a second webhook receiver of the
    bench, and the monitor hands it every alert (format ``alertmanager_api``) beside the direct
    receiver; each run records the first page through it too. None: the direct receiver only."""


@dataclass
class ViaAlertmanager:
    """One run as the receiver behind Alertmanager saw it (``--via-alertmanager``). Missed,
    unexpected and duplicate pages are judged on the direct receiver; here the first page
    (by the same rule: an expected alert about a touched broker), its latency from the same
    fault instant, and Alertmanager's own repeats."""

    first_page_at: float | None = None
    latency_s: float | None = None
    """From the injection, the same instant as the direct receiver's ``latency_s``."""
    missed: bool = False
    alert: str = ""
    """The expected alert of the first page."""
    group_wait_and_delivery_s: float | None = None
    """The first page's arrival less its alert's ``startsAt`` and the rule's ``for``: the
    monitor's hand-over, Alertmanager's group wait and its delivery (the direct receiver's
    ``budget`` has the same stage)."""
    notifications: int = 0
    incidents: int = 0
    """Groups Alertmanager opened (notified firing) during the run: the incidents its pager
    shows for the one fault."""
    alerts: list[dict[str, Any]] = field(default_factory=list)
    """Every alert of every notification behind Alertmanager, as the direct run's ``alerts``."""
    duplicates: int = 0
    """Notifications of a group repeating its previous one unchanged (same status, same alerts
    in the same states, same cause: what a ``repeat_interval`` reminder is), and alerts firing
    again after their resolution; counted over the whole run (injection to resolution)."""
    duplicate_details: list[str] = field(default_factory=list)
    resolved_after_s: float | None = None
    """From undoing the fault to the last notification, once every group it opened was
    notified resolved."""
    groups_at_injection: float | None = None
    """Alertmanager's aggregation groups just before the injection (its
    ``alertmanager_dispatcher_aggregation_groups``). A group of the faulted broker still there
    (for up to 30 s after its resolution was notified) sends the page at its next
    ``group_interval`` tick instead of after ``group_wait``."""


def judge_via_alertmanager(
    scenario: Scenario,
    pages: list[Page],
    injected_at: float,
    undone_at: float,
    bound_at: float,
    for_s: dict[str, float],
) -> ViaAlertmanager:
    """The run behind Alertmanager from its receiver's ``pages`` since the injection."""
    verdict = judge(scenario, pages)
    via = ViaAlertmanager(notifications=len(pages), incidents=verdict.incidents)
    via.alerts = [a.to_json() for a in verdict.alerts]
    if verdict.first_page_at is not None and verdict.first_page_at <= bound_at:
        via.first_page_at = verdict.first_page_at
        via.latency_s = round(verdict.first_page_at - injected_at, 1)
        first = verdict.first_page_alert
        if first is not None:
            via.alert = first.alertname
            if first.starts_at is not None:
                wait = first.at - first.starts_at - for_s.get(first.alertname, 0.0)
                via.group_wait_and_delivery_s = round(wait, 1)
    via.duplicate_details = verdict.duplicates
    via.duplicates = len(verdict.duplicates)
    if resolved(pages):
        last = max((p.at for p in pages), default=undone_at)
        via.resolved_after_s = round(max(0.0, last - undone_at), 1)
    return via


@dataclass
class RunResult:
    """One scenario run, in the JSON contract's terms (epoch seconds)."""

    scenario: str
    mode: str
    injected_at: float | None = None
    first_page_at: float | None = None
    latency_s: float | None = None
    expected_alert: str = ""
    cause_named_at: float | None = None
    cause_latency_s: float | None = None
    alerts: list[dict[str, Any]] = field(default_factory=list)
    unexpected_pages: list[dict[str, Any]] = field(default_factory=list)
    duplicates: int = 0
    duplicate_details: list[str] = field(default_factory=list)
    incidents: int = 0
    budget: dict[str, Any] = field(default_factory=dict)
    """Where the first page's seconds went: ``detect_s`` (fault to the alert's condition
    holding in the monitor: probe timeouts, shipping, trigger wait, batch), ``for_s`` (the
    rule's pending time), ``group_wait_and_delivery_s`` (firing to the receiver)."""
    undone_at: float | None = None
    resolved_after_s: float | None = None
    missed: bool = False
    wrong: list[str] = field(default_factory=list)
    """What the scenario's ground truth found wrong with the pages or the monitor's figures
    (``FaultContext.wrong``: a page before its condition held or too long after, a count that
    disagrees); the run fails with any."""
    via_alertmanager: ViaAlertmanager | None = None
    """The same run behind a real Alertmanager (``BenchOptions.via_alertmanager``; else None)."""
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def healthy_reason(
    cluster: LocalCluster,
    metrics: dict[Sample, float],
    receiver: RecordingReceiver,
    behind_alertmanager: RecordingReceiver | None = None,
) -> str | None:
    """Why the steady state does not hold yet (None: it holds).

    Criterion: every broker process runs; every query of the job completed a batch within
    ``BATCH_FRESH_S``; the job reports every broker's canary
    availability, and the cluster's, at 100 %; every broker leads a canary partition again (a
    broker back from a fault leads nothing until the preferred leader election: faulting it
    then would test a follower, not a leader); no under-replicated or under-min-ISR partition;
    no leader election in its window; no incident open at the receiver, nor at the receiver
    behind Alertmanager when there is one (a group still open there would take the next page
    into that group, sent on its ``group_interval`` rather than after ``group_wait``).
    """
    stopped = [n.broker_id for n in cluster.nodes if process_state(n.pid) != "running"]
    if stopped:
        return f"brokers not running: {stopped}"
    if not metrics:
        return "the job's /metrics does not answer"
    batches = [
        v for (name, _), v in metrics.items() if name == "kafka_health_job_last_batch_timestamp"
    ]
    if not batches:
        return "the job has completed no batch yet"
    if time.time() - min(batches) > BATCH_FRESH_S:
        return f"a query of the job completed no batch for {time.time() - min(batches):.0f} s"
    availability = metrics.get(("kafka_health_canary_availability_ratio", ()))
    if availability != 1.0:
        return f"cluster canary availability {availability}"
    per_broker = {
        dict(lbl).get("broker_id"): v
        for (name, lbl), v in metrics.items()
        if name == "kafka_health_canary_availability_ratio" and len(lbl) == 1
    }
    missing = [n.broker_id for n in cluster.nodes if per_broker.get(str(n.broker_id)) != 1.0]
    if missing:
        return f"canary availability below 100 % or unknown for brokers {missing}"
    leading = {
        dict(lbl).get("broker_id")
        for (name, lbl), _ in metrics.items()
        if name == "kafka_health_canary_partition_silent_seconds"
    }
    leaderless = [n.broker_id for n in cluster.nodes if str(n.broker_id) not in leading]
    if leaderless:
        return f"brokers leading no canary partition: {leaderless}"
    for name in ("under_replicated_partitions", "under_min_isr_partitions"):
        value = metrics.get((f"kafka_health_{name}", ()), 0.0)
        if value:
            return f"{name} = {value:.0f}"
    elections = sum(
        v
        for (name, lbl), v in metrics.items()
        if name == "kafka_health_leader_elections_per_minute" and dict(lbl).get("broker_id")
    )
    if elections:
        return f"{elections:.0f} leader elections in the window"
    if receiver.open_groups():
        return f"incidents still open at the receiver: {sorted(receiver.open_groups())}"
    if behind_alertmanager is not None and behind_alertmanager.open_groups():
        groups = sorted(behind_alertmanager.open_groups())
        return f"incidents still open behind Alertmanager: {groups}"
    return None


BATCH_FRESH_S = 60.0
ALERTMANAGER_MISSING = (
    "--via-alertmanager needs Alertmanager: prometheus-alertmanager is not on the PATH "
    "(bash scripts/install-system-deps.sh, as root, installs Debian's package)"
)
LOSS_REPORT_S = 120.0
"""With the keep-firing cap: lost writes are reported this long (not 15 min), so that the
acks1-loss scenario's incident can resolve before the next one."""


class FaultBench:
    """One bench run: ``run()`` returns every scenario run's result."""

    def __init__(
        self,
        options: BenchOptions,
        say: Callable[[str], None] = print,
        on_result: Callable[[list[RunResult]], None] | None = None,
    ) -> None:
        self.options = options
        self.say = say
        self.on_result = on_result
        """Called with every result so far after each run (the JSON written as it goes)."""
        self.cluster: LocalCluster | None = None
        self.transport: LocalCluster | None = None
        self.receiver: RecordingReceiver | None = None
        self.monitor: MonitorProcesses | None = None
        self.alertmanager: Alertmanager | None = None
        self.behind_alertmanager: RecordingReceiver | None = None
        """The webhook receiver Alertmanager routes to (``via_alertmanager``)."""
        self.metrics_port = 0
        self.for_s: dict[str, float] = {}
        self._steady_once = False
        self.config_file = options.workdir / "monitor.yaml"

    # ------------------------------------------------------------------ whole run

    def run(self) -> list[RunResult]:
        results: list[RunResult] = []
        try:
            ctx = self._start()
            for scenario in self.options.scenarios:
                for attempt in range(1, self.options.repeat + 1):
                    self.say(f"[{scenario.name} {attempt}/{self.options.repeat}] "
                             f"{scenario.description}")  # fmt: skip
                    result = self.run_one(ctx, scenario)
                    results.append(result)
                    self.say(f"  -> {one_line(result)}")
                    if self.on_result is not None:
                        self.on_result(results)
        finally:
            self.close()
        return results

    def close(self) -> None:
        """Stop the monitor, Alertmanager, the receivers and the clusters (safe to call
        twice)."""
        if self.monitor is not None:
            self.monitor.stop()
        if self.alertmanager is not None:
            self.alertmanager.stop()
        if self.receiver is not None:
            self.receiver.stop()
        if self.behind_alertmanager is not None:
            self.behind_alertmanager.stop()
        if self.cluster is not None:
            self.cluster.down()
        if self.transport is not None:
            self.transport.down()

    def _start(self) -> FaultContext:
        o = self.options
        if o.via_alertmanager is not None:  # before minutes of cluster start, not after
            load(o.via_alertmanager)
            if binary() is None:
                raise RuntimeError(ALERTMANAGER_MISSING)
        o.workdir.mkdir(parents=True, exist_ok=True)
        self.say(f"starting a 3-broker {o.mode} cluster in {o.workdir / 'cluster'}")
        spec = ClusterSpec(
            dir=o.workdir / "cluster",
            brokers=3,
            mode=o.mode,  # type: ignore[arg-type]
            cache_dir=o.cache_dir,
            kafka_version=o.base.devcluster.kafka_version,
            zookeeper_kafka_version=o.base.devcluster.zookeeper_kafka_version,
            zookeeper_session_timeout_ms=o.base.devcluster.zookeeper_session_timeout_ms,
            # A broker back from a fault leads its canary partition again within seconds (the
            # default is 300 s), so the next steady state (every broker's canary at 100 %)
            # does not wait minutes for the controller's periodic rebalance.
            # Retention runs every 5 s (Kafka's default is 5 minutes; a static setting), so that
            # retention-loss's records are deleted seconds after they expire.
            broker_overrides={
                "leader.imbalance.check.interval.seconds": "5",
                "log.retention.check.interval.ms": "5000",
            },
        )
        self.cluster = LocalCluster.create(spec)
        self.cluster.up()
        if o.layout == "transport":
            self.say("starting the 1-broker transport cluster for the monitor's own topics")
            self.transport = LocalCluster.create(transport_spec(spec)).up()
        return self.start_monitor(self.cluster, RecordingReceiver(), o.workdir / "monitor")

    def start_monitor(
        self, cluster: LocalCluster, receiver: RecordingReceiver, logs: Path
    ) -> FaultContext:
        """Start ``receiver`` and the monitor's processes (their output in ``logs``) on the
        running ``cluster`` (their own topics on ``self.transport`` when set); ``close`` stops
        them and the clusters."""
        self.cluster = cluster
        self.receiver = receiver.start()
        alertmanager_url = None
        if self.options.via_alertmanager is not None:
            alertmanager_url = self._start_alertmanager(self.options.via_alertmanager)
        self._write_configs(cluster, self.receiver.url, alertmanager_url)
        self.monitor = MonitorProcesses(self.config_file, logs)
        self.say(f"starting the monitor (ship-logs, canary, run); logs in {logs}")
        self.monitor.start()
        return FaultContext(
            cluster=cluster,
            receiver=self.receiver,
            monitor=self.monitor,
            config_file=self.config_file,
            workdir=self.options.workdir,
            say=self.say,
            transport=self.transport,
            metrics_port=self.metrics_port,
        )

    def _start_alertmanager(self, example: Path) -> str:
        """A second webhook receiver and Alertmanager routing to it with ``example``'s route;
        returns Alertmanager's URL."""
        path = binary()
        if path is None:
            raise RuntimeError(ALERTMANAGER_MISSING)
        self.behind_alertmanager = RecordingReceiver().start()
        config = bench_config(load(example), self.behind_alertmanager.url)
        (port,) = free_ports(1)
        self.alertmanager = Alertmanager(path, config, self.options.workdir / "alertmanager", port)
        timing = ", ".join(f"{k} {v}" for k, v in route_timing(config).items())
        self.say(f"starting Alertmanager ({version(path)}) on {self.alertmanager.url} with "
                 f"{example.name}'s route ({timing}), routing to a second webhook receiver "
                 f"{self.behind_alertmanager.url}")  # fmt: skip
        self.alertmanager.start()
        return self.alertmanager.url

    def _write_configs(
        self, cluster: LocalCluster, receiver_url: str, alertmanager_url: str | None = None
    ) -> None:
        from kafka_health.dev.demo import demo_config

        o = self.options
        monitor = demo_config(o.base, cluster, receiver_url, transport=self.transport)
        if alertmanager_url is not None:
            monitor = with_alertmanager(monitor, alertmanager_url)
        config = shipper_config_for(cluster, monitor, transport=self.transport)
        (self.metrics_port,) = free_ports(1)
        config = dataclasses.replace(
            config,
            alerting=dataclasses.replace(
                config.alerting,
                rules_file=str(self._rules_file(Path(config.alerting.rules_file))),
                exporter=dataclasses.replace(
                    config.alerting.exporter, host="127.0.0.1", port=self.metrics_port
                ),
            ),
        )
        if o.keep_firing_cap_s is not None:  # lost writes stay reported 15 min by default
            config = dataclasses.replace(
                config,
                job=dataclasses.replace(
                    config.job,
                    loss_report_window_s=min(config.job.loss_report_window_s, LOSS_REPORT_S),
                ),
            )
        write_config(config, self.config_file)
        acks1 = dataclasses.replace(
            config, canary=dataclasses.replace(config.canary, acks1_probe=True)
        )
        write_config(acks1, self.config_file.with_name("monitor-acks1.yaml"))

    def _rules_file(self, shipped: Path) -> Path:
        cap = self.options.keep_firing_cap_s
        rules = yaml.safe_load(shipped.read_text(encoding="utf-8"))
        if cap is None:
            self.for_s = {n: float(r.get("for_s", 0.0)) for n, r in rules["rules"].items()}
            return shipped.resolve()
        for rule in rules.get("rules", {}).values():
            if float(rule.get("keep_firing_for_s", 0)) > cap:
                rule["keep_firing_for_s"] = cap
        self.for_s = {
            name: float(rule.get("for_s", 0.0)) for name, rule in rules.get("rules", {}).items()
        }
        target = self.options.workdir / "alerts.yaml"
        target.write_text(yaml.safe_dump(rules, sort_keys=False), encoding="utf-8")
        return target

    # ------------------------------------------------------------------ one run

    def run_one(self, ctx: FaultContext, scenario: Scenario) -> RunResult:
        result = RunResult(
            scenario.name, self.options.mode, expected_alert=scenario.describe_expected()
        )
        ctx.notes = {}
        ctx.wrong = []
        ctx.targets = None
        if self.behind_alertmanager is not None:
            result.via_alertmanager = ViaAlertmanager()
        try:
            if self.alertmanager is not None and not self.alertmanager.alive():
                self.say("  Alertmanager had exited (see its log): starting it again")
                self.alertmanager.start()
            scenario.prepare(ctx)
            self._wait_healthy()
            self._run_fault(ctx, scenario, result)
        except Exception as exc:  # one failed run must not stop the others
            result.error = f"{type(exc).__name__}: {exc}"
            self.say(f"  run failed: {result.error}")
            with (self.options.workdir / "errors.log").open("a") as errors:
                errors.write(traceback.format_exc())
            self._restore(ctx)
        finally:
            try:
                scenario.cleanup(ctx)
            except Exception as exc:
                result.error = result.error or f"cleanup: {type(exc).__name__}: {exc}"
            result.notes = dict(ctx.notes)
            result.wrong = list(ctx.wrong)
        if scenario.expects_page and result.latency_s is None:
            result.missed = True
        via = result.via_alertmanager
        if via is not None and scenario.expects_page and via.latency_s is None:
            via.missed = True
        return result

    def _run_fault(self, ctx: FaultContext, scenario: Scenario, result: RunResult) -> None:
        receiver = ctx.receiver
        behind = self.behind_alertmanager
        groups = self.alertmanager.groups() if self.alertmanager is not None else None
        ctx.injected_at = result.injected_at = time.time()
        scenario.inject(ctx)
        if ctx.targets is not None:  # chosen at the injection (the active controller)
            scenario = dataclasses.replace(scenario, targets=ctx.targets)
        bound_at = ctx.injected_at + scenario.bound_s

        def expected_page() -> bool:
            return judge(scenario, receiver.pages_since(ctx.injected_at)).first_page_at \
                is not None  # fmt: skip

        def expected_behind_alertmanager() -> bool:
            return behind is None or judge(scenario, behind.pages_since(ctx.injected_at)) \
                .first_page_at is not None  # fmt: skip

        def all_resolved() -> bool:
            return resolved(receiver.pages_since(ctx.injected_at)) and (
                behind is None or resolved(behind.pages_since(ctx.injected_at))
            )

        if not scenario.expects_page:
            time.sleep(scenario.observe_s)
        elif scenario.hold_s is None:
            _wait(expected_page, bound_at - time.time())
        else:
            time.sleep(max(0.0, ctx.injected_at + scenario.hold_s - time.time()))
        result.undone_at = time.time()
        scenario.undo(ctx)
        if scenario.expects_page:
            _wait(expected_page, bound_at - time.time())
            _wait(expected_behind_alertmanager, bound_at - time.time())
        time.sleep(max(0.0, result.undone_at + scenario.settle_s - time.time()))
        _wait(all_resolved, self.options.resolve_timeout_s)
        scenario.verify(ctx)
        pages = receiver.pages_since(ctx.injected_at)
        told_lost = any(
            a.alertname == "CanaryWritesLost" and a.status == "firing" for a in alerts_of(pages)
        )
        if "acks1_lost" not in ctx.notes and told_lost:
            # acks=1 probes are on by default: a leader that dies or hangs may really lose the
            # acks=1 writes it acknowledged. Such a page is right when the ground truth agrees.
            record_acks1_truth(ctx)
        if resolved(pages):
            last = max((p.at for p in pages), default=result.undone_at)
            result.resolved_after_s = round(max(0.0, last - result.undone_at), 1)
        keys = {p.idempotency_key for p in pages}
        repeated = [k for k in receiver.repeats_after_ack if k in keys]
        allow = ("CanaryWritesLost",) if ctx.notes.get("acks1_lost") else ()
        verdict = judge(scenario, pages, repeated, allow)
        result.alerts = [a.to_json() for a in verdict.alerts]
        result.unexpected_pages = [a.to_json() for a in verdict.unexpected]
        result.duplicate_details = verdict.duplicates
        result.duplicates = len(verdict.duplicates)
        result.incidents = verdict.incidents
        if verdict.first_page_at is not None and verdict.first_page_at <= bound_at:
            result.first_page_at = verdict.first_page_at
            result.latency_s = round(verdict.first_page_at - ctx.injected_at, 1)
        first = verdict.first_page_alert
        if first is not None and first.starts_at is not None:
            for_s = self.for_s.get(first.alertname, 0.0)
            result.budget = {
                "alert": first.alertname,
                "detect_s": round(first.starts_at - ctx.injected_at, 1),
                "for_s": for_s,
                "group_wait_and_delivery_s": round(first.at - first.starts_at - for_s, 1),
            }
        if verdict.cause_named_at is not None:
            result.cause_named_at = verdict.cause_named_at
            result.cause_latency_s = round(verdict.cause_named_at - ctx.injected_at, 1)
        if behind is not None:
            result.via_alertmanager = judge_via_alertmanager(
                scenario, behind.pages_since(ctx.injected_at), ctx.injected_at,
                result.undone_at, bound_at, self.for_s,
            )  # fmt: skip
            result.via_alertmanager.groups_at_injection = groups
        if ctx.notes.get("acks1_lost"):
            caught = any(a.alertname == "CanaryWritesLost" for a in verdict.alerts)
            ctx.notes["acks1_loss_caught"] = caught
            result.missed = result.missed or not caught

    def healthy(self) -> str | None:
        """Why the steady state does not hold now (None: it holds). The brokers' pids are
        taken from the process table first: a pid remembered wrong (seen once in a KRaft
        --repeat 3 run: broker 2 running, its pid in this process None, for 300 s) must not
        hold up the run."""
        assert self.cluster is not None and self.receiver is not None
        self.cluster.refresh()
        metrics = scrape(self.metrics_port)
        return healthy_reason(self.cluster, metrics, self.receiver, self.behind_alertmanager)

    def _wait_healthy(self) -> None:
        """Until the steady state held ``calm_s`` without a break; the first wait also covers
        the monitor's start (Spark, the first batches): ``startup_timeout_s``."""
        bound = self.options.healthy_timeout_s
        if not self._steady_once:
            bound = max(bound, self.options.startup_timeout_s)
        started = time.monotonic()
        calm_since: float | None = None
        last_reason = "not checked"
        breaks = 0
        while time.monotonic() - started < bound:
            reason = self.healthy()
            now = time.monotonic()
            if reason is not None and reason != last_reason and now - started >= 30:
                self.say(f"  still waiting after {now - started:.0f} s: {reason}")
            if reason is not None:
                breaks += calm_since is not None
                calm_since = None
                last_reason = reason
            elif calm_since is None:
                calm_since = now
            elif now - calm_since >= self.options.calm_s:
                self._steady_once = True
                self.say(f"  steady state after {now - started:.0f} s")
                return
            time.sleep(1.0)
        raise TimeoutError(
            f"no healthy steady state for {self.options.calm_s:.0f} s within {bound:.0f} s "
            f"(broken {breaks} times; last: {last_reason})"
        )

    def _restore(self, ctx: FaultContext) -> None:
        """After a failed run: every broker thawed and running, the receiver answering, every
        monitor process up."""
        assert self.cluster is not None and self.receiver is not None
        self.receiver.set_mode("ok")
        try:
            for node in self.cluster.nodes:
                if process_state(node.pid) == "frozen":
                    self.cluster.thaw_broker(node.broker_id)
            ctx.start_brokers([n.broker_id for n in self.cluster.nodes])
        except Exception as exc:
            self.say(f"  could not restore the cluster: {exc}")
        if self.monitor is not None:
            for part in ("ship-logs", "canary", "run"):
                if not self.monitor.alive(part):
                    self.monitor.start_part(part, self.config_file)


def _wait(condition: Callable[[], bool], timeout_s: float, poll_s: float = 0.5) -> bool:
    deadline = time.monotonic() + max(0.0, timeout_s)
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)


def one_line(r: RunResult) -> str:
    """A run in one line (latency, cause, incidents, resolution), as the bench and the demo
    print it."""
    if r.error:
        return f"error: {r.error}"
    page = f"page after {r.latency_s} s" if r.latency_s is not None else "MISSED"
    if not r.expected_alert or r.expected_alert == "no page":
        page = "no page expected"
    via = r.via_alertmanager
    if via is not None and page.startswith("page after"):
        page += (
            f" (via Alertmanager {via.latency_s} s)"
            if via.latency_s is not None
            else " (via Alertmanager: MISSED)"
        )
    parts = [page]
    if r.budget:
        b = r.budget
        parts.append(
            f"{b['alert']}: detected {b['detect_s']} s, for {b['for_s']:.0f} s, "
            f"group wait + delivery {b['group_wait_and_delivery_s']} s"
        )
    if r.cause_latency_s is not None:
        parts.append(f"cause named after {r.cause_latency_s} s")
    parts.append(f"{r.incidents} incident(s)")
    if r.unexpected_pages:
        names = ", ".join(
            f"{a['alertname']}{'@' + a['broker_id'] if a['broker_id'] else ''}"
            for a in r.unexpected_pages
        )
        parts.append(f"unexpected: {names}")
    if r.duplicates:
        parts.append(f"{r.duplicates} duplicate(s)")
    if r.wrong:
        parts.append(f"WRONG: {'; '.join(r.wrong)}")
    if via is not None and via.duplicates:
        parts.append(f"{via.duplicates} duplicate(s) via Alertmanager")
    parts.append(
        f"resolved {r.resolved_after_s} s after undo"
        if r.resolved_after_s is not None
        else "not resolved"
    )
    return "; ".join(parts)
