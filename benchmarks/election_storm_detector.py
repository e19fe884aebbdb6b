"""The elections detector alone in an election storm: a fold, its signals and its state's
encoding, per 2 s batch of the storm's leader changes (20,000 log records/s in
``loadgen/traffic.py``'s ``STORM`` mix: 3,800 a second, on 10,000 partitions of 200 brokers).

    .venv/bin/python benchmarks/election_storm_detector.py [--folds 60]
    PYTHONPATH=BASE_CHECKOUT/src .venv/bin/python benchmarks/election_storm_detector.py

Prints the medians of the last third of the folds, once the 60 s window is full. Python's
collector runs with the job's thresholds (``job/python_gc``). No Spark, no Kafka.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time

import orjson

from kafka_health.config import JobConfig
from kafka_health.detectors.elections import Elections
from kafka_health.detectors.inputs import Batch, LogEvent
from kafka_health.job.python_gc import YOUNG_THRESHOLD

T0 = 1_700_000_000_000
PER_FOLD = 7_600  # 2 s of 3,800 leader changes a second
PARTITIONS, BROKERS = 10_000, 200


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=60)
    args = parser.parse_args()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    rng = random.Random(1)
    detector = Elections(JobConfig(window_s=60.0))
    epochs: dict[int, int] = {}
    folds, signals, encodes, sizes = [], [], [], []
    total = 0.0
    for n in range(args.folds):
        events = []
        for i in range(PER_FOLD):
            p = rng.randrange(PARTITIONS)
            epochs[p] = epochs.get(p, 0) + 1
            events.append(LogEvent(
                "leader_change", str(rng.randrange(1, BROKERS + 1)),
                T0 + n * 2000 + i * 2000 // PER_FOLD, topic=f"t{p % 100}", partition=p // 100,
                leader=rng.randrange(1, BROKERS + 1), leader_epoch=epochs[p],
            ))  # fmt: skip
        now = (T0 + n * 2000) / 1000
        started = time.perf_counter()
        detector.fold(Batch(events=events), now)
        folded = time.perf_counter()
        out = detector.signals(now)
        counted = time.perf_counter()
        data = orjson.dumps(detector.state(), option=orjson.OPT_NON_STR_KEYS)
        encoded = time.perf_counter()
        if n >= args.folds * 2 // 3:
            folds.append(folded - started)
            signals.append(counted - folded)
            encodes.append(encoded - counted)
            sizes.append(len(data))
        total = next(s.value for s in out if not s.labels)
    print(
        f"fold {statistics.median(folds) * 1000:.1f} ms, signals "
        f"{statistics.median(signals) * 1000:.1f} ms, state encoded "
        f"{statistics.median(encodes) * 1000:.1f} ms, state {statistics.median(sizes) / 1e6:.2f} "
        f"MB, elections per minute {total:.0f}"
    )


if __name__ == "__main__":
    main()
