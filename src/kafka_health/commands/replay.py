"""``kafka-health replay PATH...``: archived broker and GC logs through the live job's
parsing, detectors and alert rules, on the logs' own time.

Output (stdout, or ``--out``): one JSON object per notification the pager would have got
(``at``, ``reason``, ``group_key``, ``idempotency_key``, the alerts with status, labels,
summary and cause), then one ``{"open_at_end": [...], "coordinator_loads": [...]}`` line: what
still fired when the input ended, and the loads of ``__consumer_offsets`` partitions that held
consumer groups up (``replay/groups.py``: broker, partition, start, end, the groups).
``--compare-rules OTHER.yaml`` replays the same events under both rule sets and prints which
pages each would have sent and when. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.parsing.offline import input_files

NAME = "replay"
HELP = "replay archived broker and GC logs through the detectors and alert rules"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--from", dest="since", help="first event time (ISO 8601)")
    parser.add_argument("--to", dest="until", help="last event time (ISO 8601)")
    parser.add_argument("--rules", type=Path, help="alert rules (default: alerting.rules_file)")
    parser.add_argument("--compare-rules", type=Path, metavar="OTHER.yaml",
                        help="also replay under these rules and compare the pages")  # fmt: skip
    parser.add_argument("--broker-id", action="append", default=[], metavar="FILE=ID",
                        help="a file's broker id, if neither path nor log names it")  # fmt: skip
    parser.add_argument("--out", type=Path, help="write the JSON Lines here (default: stdout)")
    parser.add_argument("--report", type=Path, metavar="OUT.html",
                        help="also write a self-contained HTML report")  # fmt: skip
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="log files (plain or .gz) or folders"
    )


def _epoch_ms(text: str | None, what: str) -> int | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise SystemExit(f"kafka-health replay: {what} {text!r} is not an ISO 8601 time") from exc
    return int(moment.timestamp() * 1000)


def run(args: argparse.Namespace) -> int:
    files = input_files(args.paths, "replay", recursive=True)
    if files is None:
        return 2
    overrides = {}
    for item in args.broker_id:
        name, sep, broker = item.rpartition("=")
        if not sep or not broker.isdigit():
            print(f"kafka-health replay: --broker-id {item!r}: expected FILE=ID", file=sys.stderr)
            return 2
        overrides[name] = broker
    since, until = _epoch_ms(args.since, "--from"), _epoch_ms(args.until, "--to")
    config = config_from_args(args)

    from kafka_health.alerting.rule_config import load_rules
    from kafka_health.replay.engine import replay_events
    from kafka_health.replay.inputs import read_events
    from kafka_health.spark import build_spark_session

    rules = load_rules(args.rules or config.alerting.rules_file)
    other = load_rules(args.compare_rules) if args.compare_rules else None
    spark = build_spark_session(config.spark)
    print(f"replay: reading {len(files)} file(s) with Spark", file=sys.stderr)
    sourced = read_events(spark, files, config, overrides)
    sourced = [
        s for s in sourced
        if (since is None or (s.event.event_ms or 0) >= since)
        and (until is None or (s.event.event_ms or 0) <= until)
    ]  # fmt: skip
    events = [s.event for s in sourced]
    print(f"replay: {len(events)} events; evaluating the rules on their time", file=sys.stderr)
    result = replay_events(events, config, rules, progress=_progress(events))
    out: TextIO = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        for n in result.notifications:
            out.write(json.dumps(n.to_json()) + "\n")
        end = {"open_at_end": result.open_at_end, "coordinator_loads": result.coordinator_loads}
        out.write(json.dumps(end) + "\n")
    finally:
        if args.out:
            out.close()
    if other is not None:
        compared = replay_events(events, config, other, keep_timeline=False)
        print(json.dumps(compare(result.notifications, compared.notifications)), file=sys.stderr)
    if args.report:
        from kafka_health.replay.report import write_report

        write_report(args.report, result, sourced, config)
        print(f"replay: report {args.report}", file=sys.stderr)
    return 0


def _progress(events: list[Any]) -> Any:
    """A progress callback printing every 10 % of the events' time span to stderr."""
    if not events:
        return None
    first = (events[0].event_ms or 0) / 1000
    span = max(1.0, (events[-1].event_ms or 0) / 1000 - first)
    shown = [0]

    def report(at: float) -> None:
        done = int(min(100, (at - first) / span * 100)) // 10 * 10
        if done > shown[0]:
            shown[0] = done
            print(f"replay: {done} % of the logs' time", file=sys.stderr)

    return report


def pages(notifications: list[Any]) -> list[tuple[float, str, str]]:
    """(time, alert, group) of each alert that paged firing for the first time."""
    seen: set[str] = set()
    out = []
    for n in notifications:
        for a in n.alerts:
            key = f"{a['fingerprint']}@{a['starts_at']}"
            if a["status"] == "firing" and key not in seen:
                seen.add(key)
                out.append((n.at, a["alertname"], n.group_key))
    return out


def compare(mine: list[Any], theirs: list[Any]) -> dict[str, Any]:
    """Which pages each rule set sends, when, and which only one of them sends."""
    a, b = pages(mine), pages(theirs)
    names_a = {(name, group) for _t, name, group in a}
    names_b = {(name, group) for _t, name, group in b}
    return {
        "rules": [{"at": t, "alert": name, "group": g} for t, name, g in a],
        "compare_rules": [{"at": t, "alert": name, "group": g} for t, name, g in b],
        "only_rules": sorted(f"{n} {g}" for n, g in names_a - names_b),
        "only_compare_rules": sorted(f"{n} {g}" for n, g in names_b - names_a),
    }
