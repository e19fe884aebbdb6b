"""``kafka-health silence add|list|expire``: silences the running alert service picks up.

They are stored in ``<alerting.state_dir>/silences.json``; the service re-reads the file when
it changes. Example: ``kafka-health silence add -m alertname=FullGC -m broker_id=3 -d 2h
-c "heap resize on broker 3"``.
"""

from __future__ import annotations

import argparse
import getpass
import re
import time
from pathlib import Path

from kafka_health.alerting.silence import SilenceStore, format_time, parse_matcher, parse_time
from kafka_health.commands.config_args import add_config_argument, config_from_args

NAME = "silence"
HELP = "add, list or expire silences of alerts (by label matchers, with an expiry)"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """Seconds of ``90s``, ``15m``, ``2h``, ``1d`` or ``1h30m``."""
    parts = re.findall(r"(\d+(?:\.\d+)?)([smhd])", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 90s, 15m, 2h, 1d")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", help="silence alerts matching every matcher")
    add.add_argument(
        "-m", "--matcher", action="append", required=True,
        help='label matcher, e.g. alertname=FullGC, broker_id=~"1|2" (repeatable)',
    )  # fmt: skip
    add.add_argument("-d", "--duration", type=parse_duration, default=3600.0, help="e.g. 2h")
    add.add_argument("--start", default=None, help="ISO 8601 start time (default: now)")
    add.add_argument("-c", "--comment", required=True, help="why (shown to whoever looks)")
    add.add_argument("--author", default=None, help="who (default: the current user)")
    lst = sub.add_parser("list", help="list silences")
    lst.add_argument("--all", action="store_true", help="include expired ones")
    expire = sub.add_parser("expire", help="end a silence now")
    expire.add_argument("id", help="the silence id (from list)")


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    store = SilenceStore(Path(config.alerting.state_dir) / "silences.json")
    store.reload()
    now = time.time()
    if args.action == "add":
        try:
            matchers = [parse_matcher(m) for m in args.matcher]
        except ValueError as exc:
            print(f"silence: {exc}")
            return 2
        start = parse_time(args.start) if args.start else now
        author = args.author or getpass.getuser()
        silence = store.add(matchers, start, start + args.duration, args.comment, author, now)
        print(f"{silence.id}  until {format_time(silence.ends_at)}")
        return 0
    if args.action == "expire":
        if not store.expire(args.id, now):
            print(f"silence: no active silence {args.id!r}")
            return 1
        print(f"expired {args.id}")
        return 0
    for s in store.all():
        if args.all or s.ends_at > now:
            state = "active" if s.active(now) else ("pending" if s.starts_at > now else "expired")
            shown = ",".join(str(m) for m in s.matchers)
            print(
                f"{s.id}  {state:7}  {format_time(s.starts_at)} .. {format_time(s.ends_at)}  "
                f"{shown}  {s.created_by}: {s.comment}"
            )
    return 0
