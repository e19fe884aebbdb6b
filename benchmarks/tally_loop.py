"""The job's per-record work alone, in the JVM with no Spark around it: ``BatchTally``'s task
loop (decode, parse, tally) over ``bench throughput``'s backlog held in memory, pass after
pass on one thread (``benchmarks/tally_loop/TallyLoop.java``, compiled against the parser's
jar). Steadier than a Spark run, for an A/B of the parser's Java: the figure is microseconds
a record of one core.

    .venv/bin/python benchmarks/tally_loop.py [--seconds 8] [--passes 30] [--storm]
        [--code DIR] [--profile OUT.jfr]

``--code DIR`` builds and runs another checkout's parser (its jar from its sources);
``--profile`` records the passes with Java Flight Recorder and prints the hottest frames.
Writes nothing to the repo.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.batch_static import backlog_rows

HARNESS = Path(__file__).resolve().parent / "tally_loop" / "TallyLoop.java"


def write_corpus(rows: list[tuple[object, ...]], path: Path) -> None:
    """``rows`` (Kafka source rows) as the harness reads them: big-endian lengths and bytes."""

    def field(b: bytes | None) -> bytes:
        return struct.pack(">i", -1) if b is None else struct.pack(">i", len(b)) + b

    with path.open("wb") as out:
        out.write(struct.pack(">i", len(rows)))
        for key, value, topic, _partition, _offset, stamp, _type in rows:
            micros = int(stamp.timestamp() * 1_000_000)  # type: ignore[attr-defined]
            out.write(field(key) + field(value) + field(str(topic).encode()))  # type: ignore[arg-type]
            out.write(struct.pack(">q", micros))


def hottest(recording: Path, top: int = 30) -> None:
    """The recording's self frames of the harness's thread."""
    out = subprocess.run(
        ["jfr", "print", "--json", "--events", "jdk.ExecutionSample", str(recording)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    frames: collections.Counter[str] = collections.Counter()
    for event in json.loads(out.stdout)["recording"]["events"]:
        trace = event["values"].get("stackTrace")
        if trace and trace["frames"]:
            f = trace["frames"][0]["method"]
            frames[f"{f['type']['name'].split('/')[-1]}.{f['name']}"] += 1
    total = sum(frames.values())
    print(f"\nsamples: {total}")
    for name, count in frames.most_common(top):
        print(f"  {count:6d} {count / max(total, 1):6.1%}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8, help="seconds of backlog")
    parser.add_argument("--passes", type=int, default=30)
    parser.add_argument("--storm", action="store_true", help="log lines in the storm's mix")
    parser.add_argument("--code", type=Path, help="a checkout whose parser to run")
    parser.add_argument("--profile", type=Path, help="JFR of the passes, written here")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(args.code.resolve() / "src"))
    import pyspark

    from kafka_health.config import MonitorConfig, SparkConfig
    from kafka_health.job.batch import tally_settings
    from kafka_health.parsing import patterns as P
    from kafka_health.parsing.udf_spec import parser_spec
    from kafka_health.spark.parser_jar import ensure_parser_jar

    config = MonitorConfig()
    jar = ensure_parser_jar(Path(SparkConfig().cache_dir))
    print(f"jar: {jar}")
    spark_jars = Path(pyspark.__file__).parent / "jars"
    spec = parser_spec(config.parsing, P.ALL_PATTERNS, "auto", False, True, "UTC")
    with tempfile.TemporaryDirectory(prefix="tally-loop-") as folder:
        work = Path(folder)
        (work / "spec.json").write_text(json.dumps(spec, sort_keys=True))
        (work / "settings.json").write_text(tally_settings(config))
        rows = backlog_rows(args.seconds, args.storm)
        write_corpus(rows, work / "records.bin")
        classpath = f"{jar}:{spark_jars}/*"
        subprocess.run(
            ["javac", "-nowarn", "-d", str(work / "classes"), "-cp", classpath, str(HARNESS)],
            check=True,
        )  # fmt: skip
        java = ["java", "-Xmx4g", "-XX:+UseG1GC", "-cp", f"{work / 'classes'}:{classpath}"]
        if args.profile:
            java.append(f"-XX:StartFlightRecording=settings=profile,filename={args.profile}")
        run = subprocess.run(
            [*java, "kafkahealth.parse.TallyLoop", *(str(work / f) for f in
             ("spec.json", "settings.json", "records.bin")), str(args.passes)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    print(run.stdout, end="")
    us = [float(line.split()[2]) for line in run.stdout.splitlines() if line.startswith("pass")]
    warm = us[len(us) // 2 :]
    print(f"{len(rows)} records; the last {len(warm)} passes: median {statistics.median(warm):.3f}"
          f" us a record, min {min(warm):.3f}")  # fmt: skip
    if args.profile:
        hottest(args.profile)


if __name__ == "__main__":
    main()
