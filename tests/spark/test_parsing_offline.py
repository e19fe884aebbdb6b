"""``kafka-health parse``: files (plain and .gz) in file order, line numbers, joins, exit codes."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"


def run_parse(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["parse", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_files_in_order(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Events of several files (one gzipped) come out in file order with their start lines."""
    gz = tmp_path / "gc.log.gz"
    with (FIXTURES / "gc-jdk8-g1-seed.log").open("rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    server = str(FIXTURES / "server-seeds.log")
    code, out, _ = run_parse(capsys, "--broker-id", "3", server, str(gz))
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    got = [(e["file"], e["line"], e["type"]) for e in events]
    assert got == [
        (server, 1, "processor_uncaught_exception"),
        (server, 7, "leader_change"),
        (server, 10, "zk_session_expired"),
        (server, 11, "zk_session_expired"),
        (server, 12, "leader_change"),
        (server, 14, "session_timeout"),
        (server, 16, "isr_shrink"),
        (server, 17, "isr_expand"),
        (server, 21, "leader_election_failed"),
        (server, 24, "leader_election_failed"),
        (str(gz), 1, "full_gc"),
        (str(gz), 5, "young_gc"),
        (str(gz), 32, "full_gc"),
        (str(gz), 36, "young_gc"),
    ]
    assert all(e["broker_id"] == "3" for e in events)
    full = [e for e in events if e["type"] == "full_gc"]
    assert [round(e["pause_s"], 2) for e in full] == [10.4, 10.23]
    assert full[0]["ts"] == "2019-05-15T22:25:59.422+08:00"
    assert "collector" not in full[0]  # JDK 8 G1 Full GC lines do not name the collector


def test_summary_accounts_for_every_line(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """--summary: counts per type, and lines = event lines + malformed + unrecognised."""
    path = FIXTURES / "server-seeds.log"
    code, out, _ = run_parse(capsys, "--summary", str(path))
    assert code == 0
    summary = json.loads(out)
    assert summary["lines"] == len(path.read_text().splitlines())
    assert summary["isr_shrink"] == 1
    assert summary["zk_session_expired"] == 2
    assert summary["unrecognised_lines"] == sum(summary["unrecognised_by_reason"].values())


@pytest.mark.parametrize(
    ("fixture", "want"),
    [
        ("server-3.9.1-zookeeper-startup.log", [(2, 6000), (5, 6000)]),
        ("server-4.1.1-kraft-startup.log", [(2, 9000)]),
    ],
)
def test_session_timeout_from_a_real_kafka_config_dump(
    spark: Any, capsys: pytest.CaptureFixture[str], fixture: str, want: list[Any]
) -> None:
    """Real start-up logs (3.9.1 ZooKeeper mode, 4.1.1 KRaft): the ZooKeeper client's line and
    the 330-line KafkaConfig dump, joined into one entry, give the mode's session timeout
    through Spark's Java regexes (3.9.1 lists broker.session.timeout.ms = 9000 too)."""
    path = FIXTURES / fixture
    code, out, _ = run_parse(capsys, "--broker-id", "1", str(path))
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    got = [(e["line"], e["session_timeout_ms"]) for e in events if e["type"] == "session_timeout"]
    assert got == want
    assert all(e["broker_id"] == "1" for e in events)


def test_devcluster_gc_log_collector_from_using_line(
    spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JDK 17 gc.log: the Full GC of jcmd GC.run, collector known from "Using G1"."""
    code, out, _ = run_parse(capsys, "--kind", "gc", str(FIXTURES / "gc-jdk17-g1-devcluster.log"))
    assert code == 0
    full = [json.loads(x) for x in out.splitlines() if '"full_gc"' in x]
    assert len(full) == 1
    assert full[0]["cause"] == "Diagnostic Command"
    assert full[0]["pause_s"] == pytest.approx(0.21467)
    assert full[0]["collector"] == "g1"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.log", "no such file"),  # missing file
        (lambda d: d, None),  # an empty folder: nothing to read
        (lambda d: (d / "bad.gz").write_bytes(b"not gzip") and d / "bad.gz", "not gzip"),
    ],
    ids=["missing", "empty-folder", "not-gzip"],
)
def test_unreadable_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str | None
) -> None:
    """A missing or unreadable file: exit 2 and a message naming it, before Spark starts."""
    target = make(tmp_path)
    code, out, err = run_parse(capsys, str(target))
    assert code == 2
    assert out == ""
    assert "kafka-health parse:" in err
    if message:
        assert message in err


def test_continuation_lines_join_and_cap(spark: Any, tmp_path: Path) -> None:
    """Stack frames join their entry; an endless run of them is cut into counted chunks."""
    from kafka_health.config import ParsingConfig
    from kafka_health.parsing.offline import check_files, read_entries
    from kafka_health.parsing.udf import parse_entries

    path = tmp_path / "server.log"
    frames = "\n".join(f"\tat x.y.Z.m{i}(Z.java:{i})" for i in range(25))
    path.write_text(
        "[2017-10-12 16:52:38,141] ERROR Processor got uncaught exception. (x)\n"
        f"java.lang.ArrayIndexOutOfBoundsException: 18\n{frames}\r\n"
        "[2017-10-12 16:52:39,000] INFO done (x)\n"
    )
    config = ParsingConfig(max_entry_lines=10)
    rows = parse_entries(read_entries(spark, check_files([str(path)]), config), config)
    got = sorted((r["line"], r["n_lines"], r["outcome"], r["reason"]) for r in rows.collect())
    assert got == [
        (1, 10, "event", None),
        (11, 10, "unrecognised", "continuation"),
        (21, 7, "unrecognised", "continuation"),
        (28, 1, "unrecognised", "no_event"),
    ]


def test_family_per_entry_from_content(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file named like a GC log that mixes log4j entries (another layout too) with JDK 8
    Parallel (-XX:+PrintGCID, stopped-time lines between) and an interleaved G1 Full GC."""
    path = FIXTURES / "kafkaServer-gc-mixed.log"
    code, out, _ = run_parse(capsys, str(path))
    assert code == 0
    got = [(e["line"], e["type"], e.get("pause_s")) for e in map(json.loads, out.splitlines())]
    assert got == [
        (1, "log_cleaner_died", None),
        (5, "young_gc", 0.0123456),
        (7, "young_gc", 0.0223456),
        (8, "full_gc", 0.4123456),
        (10, "full_gc", None),  # its figures come after the concurrent line (another entry)
        (15, "isr_shrink", None),
    ]


def test_json_layouts_in_a_file_named_like_a_gc_log(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """log4j2 ECS and JsonLayout entries (compact, and indented over 11 lines) under a GC-log
    name: the content makes them Kafka entries, each with the layout's own time."""
    path = tmp_path / "kafkaServer-gc.log"
    shutil.copy(FIXTURES / "server-json-layouts.log", path)
    code, out, _ = run_parse(capsys, str(path))
    assert code == 0
    got = [(e["line"], e["type"], e.get("ts")) for e in map(json.loads, out.splitlines())]
    assert got == [
        (1, "isr_shrink", "2019-05-15T14:20:14.399Z"),
        (2, "controller_change", "2019-05-15T14:20:15.123Z"),
        (13, "zk_session_expired", "2019-05-15T14:20:16.000Z"),
        (14, "full_gc", "2026-11-22T02:37:53.660+00:00"),
    ]
    code, out, _ = run_parse(capsys, "--summary", str(path))
    summary = json.loads(out)
    assert summary["lines"] == 15
    assert summary["lines_by_outcome"] == {"event": 14, "unrecognised": 1}
