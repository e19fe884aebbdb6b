"""The consumer-group round's CPU in the driver, as with a real cluster (issue 58 point 6).

10,000 groups over 100,000 partitions (``kafka_health.dev.loadgen.groups``), answered by a
process of their own (``RemoteGroupAdmin``: the driver encodes every request and decodes every
answer with kafka-python, as its admin client does; the metadata too), on simulated time, a
round every 5 s. Each round timed in this thread's CPU seconds: ``poll_s`` the poller's round
(``decode_s`` kafka-python's decode of the answers, ``lag_s`` the lag table's samples
recorded, ``source_less_decode_s`` the rest: encoding, the source's parse, the observations
with their time lags), then the board's fold
(``observe_s``) and ``signals_s``; medians over the measured rounds, the verdicts and a digest
of the last round's observations and signals (the same digest: the same things observed).
``benchmarks/consumer_groups_scale.py`` answers in-process and subtracts the fake's work;
this one leaves none of the driver's work out, so an A/B of the source runs this against each
commit's ``src`` (``PYTHONPATH``)::

    nice -n 19 .venv/bin/python benchmarks/consumer_groups_round_cpu.py --rounds 12
    nice -n 19 .venv/bin/python benchmarks/consumer_groups_round_cpu.py --rounds 4 --profile tottime
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import json
import pstats
import statistics
import sys
import time
from collections import Counter
from typing import Any

from kafka_health.consumer_groups.lag import LagTable
from kafka_health.consumer_groups.poller import GroupsPoller
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.dev.loadgen import groups as world
from kafka_health.job.python_gc import YOUNG_THRESHOLD
from kafka_health.kafka_config import KafkaConfig

cpu = time.thread_time


class SimulatedClock:
    t = world.T0

    def time(self) -> float:
        return self.t

    def monotonic(self) -> float:
        return time.monotonic()


def measure(groups: int, rounds: int, warmup: int, profile: str) -> dict[str, Any]:
    clock = SimulatedClock()
    admin = world.RemoteGroupAdmin(groups, 10, start=world.T0)
    manager = admin._manager
    call = manager.call

    def on_simulated_time(message: tuple[Any, ...]) -> bytes:
        if message[0] == "advance":  # a round begins: the world at the simulated time
            message = ("advance", clock.t)
        return call(message)

    manager.call = on_simulated_time  # type: ignore[method-assign]
    cfg = world.scale_config()
    source = AdminGroupsSource(KafkaConfig(), cfg, make_admin=lambda: admin)
    poller = GroupsPoller(source, LagTable(), cfg, clock=clock)
    lag_cpu = [0.0]
    lags = poller._lags

    def timed(*args: Any) -> Any:
        started = cpu()
        try:
            return lags(*args)
        finally:
            lag_cpu[0] += cpu() - started

    poller._lags = timed  # type: ignore[method-assign,assignment]
    detector = ConsumerGroups(cfg)
    names = ("poll_s", "decode_s", "lag_s", "source_less_decode_s", "observe_s", "signals_s",
             "round_s")  # fmt: skip
    steps: dict[str, list[float]] = {k: [] for k in names}
    profiler = cProfile.Profile() if profile else None
    try:
        for r in range(warmup + rounds):
            clock.t += world.INTERVAL_S
            decoded, lagged = manager.decode_s, lag_cpu[0]
            if profiler is not None and r >= warmup:
                profiler.enable()
            c0 = cpu()
            round_ = poller.poll_once()
            c1 = cpu()
            detector.install(detector.fold(round_))
            c2 = cpu()
            signals = detector.signals(clock.t)
            c3 = cpu()
            if profiler is not None:
                profiler.disable()
            assert round_.error is None, round_.error
            if r < warmup:
                continue
            decode, lag = manager.decode_s - decoded, lag_cpu[0] - lagged
            for name, value in zip(names, (c1 - c0, decode, lag, c1 - c0 - decode - lag,
                                           c2 - c1, c3 - c2, c3 - c0), strict=True):  # fmt: skip
                steps[name].append(value)
    finally:
        admin.shutdown()
    out: dict[str, Any] = {k: round(statistics.median(v), 3) for k, v in steps.items()}
    out["verdicts_last"] = dict(sorted(Counter(
        s.label("verdict") for s in signals if s.name == "consumergroup_status"
    ).items()))  # fmt: skip
    rows = sorted(
        (g.group, g.state, g.members, g.generation, g.coordinator, g.error,
         tuple((p.topic, p.partition, p.committed, p.log_start, p.log_end, p.leader, p.lag_s,
                p.lag_basis) for p in g.partitions))
        for g in round_.groups
    )  # fmt: skip
    out["observations_digest_last"] = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]
    said = sorted((s.name, repr(s.labels), s.value) for s in signals)
    out["signals_digest_last"] = hashlib.sha256(repr(said).encode()).hexdigest()[:16]
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats(profile).print_stats(45)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--profile", default="", help="cProfile the measured rounds, sorted by")
    args = parser.parse_args()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    print(json.dumps(measure(args.groups, args.rounds, args.warmup, args.profile)))


if __name__ == "__main__":
    main()
