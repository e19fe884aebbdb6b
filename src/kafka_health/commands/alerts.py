"""``kafka-health alerts check|run``: validate the rules, or run the alert service on signals.

``run`` reads signals as JSON lines (a signal ``{"name", "labels", "value", "at", "details"}``
or a list of them per line) from a file or stdin and delivers the notifications to the
configured receivers: for trying receivers and rules without the streaming job. It runs until
SIGTERM / SIGINT (or the end of the input with ``--exit-at-eof``).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from kafka_health.alerting.rule_config import ConditionConfig, load_rules
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.store import signal_from_json
from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.model import Signal

NAME = "alerts"
HELP = "validate the alert rules, or run the alert service on signals from a file or stdin"
log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="validate the rules file and list its rules")
    check.add_argument("--rules", type=Path, default=None, help="default: alerting.rules_file")
    run_parser = sub.add_parser("run", help="run the alert service on JSON-lines signals")
    run_parser.add_argument("--signals", default="-", help="file of JSON lines (default: stdin)")
    run_parser.add_argument("--exit-at-eof", action="store_true", help="stop at end of input")


def _signals(line: str) -> list[Signal]:
    data: Any = json.loads(line)
    items = data if isinstance(data, list) else [data]
    return [signal_from_json(item) for item in items]


def _feed(service: AlertService, source: TextIO, done: threading.Event) -> None:
    for line in source:
        if line.strip():
            try:
                service.submit(_signals(line))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("skipping a line that is not a signal: %s", exc)
    done.set()


def _shown(cond: ConditionConfig) -> str:
    """``signal op threshold`` (``transform(signal)`` when transformed), with its ``also``
    conditions after ``and``."""
    signal = cond.signal if cond.transform == "value" else f"{cond.transform}({cond.signal})"
    shown = f"{signal} {cond.op} {cond.threshold:g}"
    if not cond.also:
        return shown
    return "(" + " and ".join([shown, *(_shown(extra) for extra in cond.also)]) + ")"


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.action == "check":
        path = args.rules or Path(config.alerting.rules_file)
        rules = load_rules(path)  # ConfigError -> exit 2, every problem named
        print(f"# {path}: valid")
        for name, rule in rules.rules.items():
            state = "" if rule.enabled else "  (disabled)"
            conds = " or ".join(_shown(c) for c in rule.any_of)
            print(f"{name:32} {rule.severity:8} for {rule.for_s:g}s  {conds}{state}")
        print(f"# {len(rules.inhibit_rules)} inhibit rules")
        return 0

    service = AlertService.from_config(config)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    source = sys.stdin if args.signals == "-" else open(args.signals, encoding="utf-8")  # noqa: SIM115
    service.start()
    eof = threading.Event()
    threading.Thread(target=_feed, args=(service, source, eof), daemon=True).start()
    print("alert service running", flush=True)
    while not stop.is_set():
        if args.exit_at_eof and eof.is_set():
            service.step()
            break
        stop.wait(0.2)
    service.stop()
    return 0
