"""The time ``kafka-health replay`` takes over archived logs of a given size on this machine.

Writes ``--megabytes`` of broker logs as a cluster would leave them on disk (one folder per
broker, ``server.log``, ``state-change.log`` and ``gc.log`` each, gzipped past the first
rotation), from :class:`~kafka_health.dev.loadgen.traffic.Traffic` (the documented mix, a storm in
every tenth minute), one line per second per ``--rate`` over as many hours as it takes; then
runs ``kafka-health replay`` over the folder and reports the wall time, lines per second and
what it paged.

    .venv/bin/python benchmarks/replay_bench.py [--megabytes 1024] [--brokers 6] [--dir D]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from io import BufferedIOBase
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kafka_health.config import TopicsConfig
from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic

KIND_FILE = {"server": "server.log", "state-change": "state-change.log", "gc": "gc.log"}
ROTATE_BYTES = 64 * 1_048_576


def write_logs(root: Path, megabytes: int, brokers: int, rate: int, seed: int) -> tuple[int, int]:
    """Broker log folders under ``root`` totalling about ``megabytes``; (lines, bytes)."""
    traffic = Traffic(ClusterShape(brokers=brokers, partitions=brokers * 500, topics=50),
                      TopicsConfig(), seed)  # fmt: skip
    files: dict[tuple[int, str], tuple[BufferedIOBase, int, int]] = {}
    lines = written = 0
    start_ms = 1_795_000_000_000
    for second, batch in enumerate(_seconds(traffic, start_ms, rate)):
        for broker, kind, message in batch:
            out: BufferedIOBase | None
            out, size, part = files.get((broker, kind)) or (None, 0, 0)
            if out is None or size > ROTATE_BYTES:
                if out is not None:
                    out.close()
                    part += 1
                name = KIND_FILE[kind] + (f".{part}.gz" if part else "")
                folder = root / f"broker-{broker}"
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / name
                out = gzip.open(path, "wb") if part else path.open("wb")  # noqa: SIM115 (open across lines, closed below)
                size = 0
            data = message.encode() + b"\n"
            out.write(data)
            files[(broker, kind)] = (out, size + len(data), part)
            lines += 1
            written += len(data)
        if written >= megabytes * 1_048_576:
            break
        if second % 600 == 0:
            print(f"  {written / 1_048_576:,.0f} MB written", file=sys.stderr)
    for out, _size, _part in files.values():
        out.close()
    return lines, written


def _seconds(traffic: Traffic, start_ms: int, rate: int) -> Iterator[list[tuple[int, str, str]]]:
    second = 0
    while True:
        at = start_ms + second * 1000
        storm = (second // 60) % 10 == 9
        batch = []
        for _topic, _key, value in traffic.log_records(at, rate * (5 if storm else 1), storm):
            envelope = json.loads(value)
            batch.append((int(envelope["broker_id"]), envelope["kind"], envelope["message"]))
        yield batch
        second += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--brokers", type=int, default=6)
    parser.add_argument("--rate", type=int, default=300, help="log lines per second, all brokers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kafka-health-replay-bench"))
    args = parser.parse_args()
    logs = args.dir / "logs"
    if not logs.exists():
        print(f"writing {args.megabytes} MB of logs to {logs}", file=sys.stderr)
        lines, size = write_logs(logs, args.megabytes, args.brokers, args.rate, args.seed)
        (args.dir / "written.json").write_text(json.dumps({"lines": lines, "bytes": size}))
    written = json.loads((args.dir / "written.json").read_text())
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", "replay", "--out", str(args.dir / "pages.jsonl"),
         str(logs)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"replay failed ({result.returncode}):\n{result.stderr[-3000:]}")
    pages = (args.dir / "pages.jsonl").read_text().splitlines()
    print(json.dumps({
        "megabytes": round(written["bytes"] / 1_048_576), "lines": written["lines"],
        "seconds": round(seconds, 1), "lines_per_s": round(written["lines"] / seconds),
        "notifications": len(pages) - 1,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
