"""The logs a ``bench faults`` run left on disk, replayed, against what the live monitor paged.

    .venv/bin/python benchmarks/replay_vs_live.py --dir D --json results.json [--out OUT.json]

``D`` is the run's ``--dir`` (its ``monitor.yaml`` and ``cluster/broker-*/logs``), ``results.json``
its ``--json``. The logs go through ``kafka-health replay``'s code (the job's parser, signal
board and alert service on event time). For each run, every alert the live monitor notified
firing that reads the brokers' logs alone (a replay has no canary and no cluster-state
snapshots) is looked for in the replay: the same alert of the same broker, in the same group,
starting within ``--within`` seconds (default 15: the live path's shipping and batching) of the
live start. Prints matched / owed per scenario and every miss; a rolling restart's window must
replay into no page.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kafka_health.alerting.rule_config import AlertRulesConfig, load_rules
from kafka_health.config import load_config
from kafka_health.model import SIGNAL_SOURCE

NOT_IN_LOGS = ("job_", "state_write_", "signal_", "log_stream_age_", "canary_")
"""Signals a replay cannot have: the job's and the alert service's own, and log arrival."""


def log_rules(rules: AlertRulesConfig) -> set[str]:
    """Rules every condition of which reads signals of the brokers' logs."""
    found = set()
    for name, rule in rules.enabled().items():
        signals = [c.signal for c in rule.any_of]
        if signals and all(
            s not in SIGNAL_SOURCE and not s.startswith(NOT_IN_LOGS) for s in signals
        ):
            found.add(name)
    return found


def replay(workdir: Path) -> tuple[list[dict[str, Any]], AlertRulesConfig]:
    """Every alert the replay notified firing: group, alertname, broker, start."""
    from kafka_health.parsing.offline import check_files
    from kafka_health.replay.engine import replay_events
    from kafka_health.replay.inputs import read_events
    from kafka_health.spark import build_spark_session

    config = load_config(workdir / "monitor.yaml")
    rules = load_rules(config.alerting.rules_file)
    logs = sorted(str(p) for p in (workdir / "cluster").glob("broker-*/logs/*.log*"))
    sourced = read_events(build_spark_session(config.spark), check_files(logs), config)
    result = replay_events([s.event for s in sourced], config, rules)
    pages = [
        {"group_key": n.group_key, "alertname": a["alertname"],
         "broker_id": a["labels"].get("broker_id", ""), "starts_at": a["starts_at"]}
        for n in result.notifications for a in n.alerts if a["status"] == "firing"
    ]  # fmt: skip
    return pages, rules


def compare(runs: list[dict[str, Any]], replayed: list[dict[str, Any]], from_logs: set[str],
            within_s: float) -> dict[str, Any]:  # fmt: skip
    """Per run: the live log alerts matched in the replay, and the misses."""
    out: dict[str, Any] = {}
    for i, run in enumerate(runs):
        key = f"{run['scenario']}#{i}"
        live: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
        for a in run["alerts"]:
            if a["status"] == "firing" and a["alertname"] in from_logs and a.get("starts_at"):
                live.setdefault((a["alertname"], a["broker_id"], a["starts_at"]), a)
        matched, missed = [], []
        for (name, broker, start), a in sorted(live.items(), key=lambda kv: kv[0][2]):
            near = [r for r in replayed if r["alertname"] == name and r["broker_id"] == broker
                    and r["group_key"] == a["group_key"]
                    and abs(r["starts_at"] - start) <= within_s]  # fmt: skip
            entry = {"alert": name, "broker_id": broker, "live_start": start}
            if near:
                best = min(near, key=lambda r: abs(r["starts_at"] - start))
                matched.append({**entry, "replay_offset_s": round(best["starts_at"] - start, 1)})
            else:
                missed.append(entry)
        out[key] = {"scenario": run["scenario"], "owed": len(live), "matched": matched,
                    "missed": missed}  # fmt: skip
        if run["scenario"] == "rolling-restart" and run.get("injected_at"):
            end = runs[i + 1]["injected_at"] if i + 1 < len(runs) else float("inf")
            out[key]["replay_pages_during"] = [
                r for r in replayed if run["injected_at"] <= r["starts_at"] < end
            ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="the bench run's --dir")
    parser.add_argument("--json", type=Path, required=True, help="the bench run's --json")
    parser.add_argument("--within", type=float, default=15.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    runs = json.loads(args.json.read_text())["runs"]
    replayed, rules = replay(args.dir)
    result = compare(runs, replayed, log_rules(rules), args.within)
    owed = sum(r["owed"] for r in result.values())
    matched = sum(len(r["matched"]) for r in result.values())
    for key, r in result.items():
        line = f"{key:24} {len(r['matched'])}/{r['owed']} log alerts replayed"
        if r["matched"]:
            offsets = [m["replay_offset_s"] for m in r["matched"]]
            line += f" (replay - live: {min(offsets):+.1f} .. {max(offsets):+.1f} s)"
        if "replay_pages_during" in r:
            line += f"; replay pages during the rolling restart: {len(r['replay_pages_during'])}"
        print(line)
        for m in r["missed"]:
            print(f"    missed: {m['alert']} broker {m['broker_id']} at {m['live_start']:.1f}")
    print(f"all runs: {matched}/{owed} log alerts replayed within {args.within:g} s")
    if args.out is not None:
        args.out.write_text(json.dumps({"runs": result, "replayed": replayed}, indent=1))


if __name__ == "__main__":
    main()
