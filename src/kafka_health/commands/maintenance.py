"""``kafka-health maintenance start|list|end``: declare that a broker is being worked on.

While a broker is in declared maintenance, the alerts a controlled shutdown would mute for it
(``BrokerNotAnswering`` and the other expected symptoms of a restart) are muted at once, so a
deploy's restart never pages; when the window ends (``--for`` expires, or ``end``), a symptom
still holding pages as usual. The windows are stored in ``<alerting.state_dir>/maintenance.json``;
the running alert service re-reads it at each evaluation. For automation around a deploy::

    kafka-health maintenance start --broker 3 --for 15m --comment "deploy 1.4.2"
    ... restart broker 3 ...
    kafka-health maintenance end --broker 3

Exit codes: 0 done; 1 ``end --broker`` found no window to end, or the file cannot be written;
2 a bad argument (the message names the flag) or a bad config.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from pathlib import Path

from kafka_health.alerting.declared_maintenance import (
    FILE_NAME,
    MAX_BROKER_ID,
    MAX_DURATION_S,
    DeclaredMaintenance,
    DeclaredWindow,
    parse_broker_id,
)
from kafka_health.alerting.silence import format_time
from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.commands.silence import parse_duration

NAME = "maintenance"
HELP = "declare brokers in maintenance (their restart does not page), list or end it"


def _broker(text: str) -> int:
    try:
        return parse_broker_id(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a broker id (an integer from 0 to {MAX_BROKER_ID})"
        ) from None


def _duration(text: str) -> float:
    seconds = parse_duration(text)
    if not 0 < seconds <= MAX_DURATION_S:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a maintenance lasts more than 0 s and at most "
            f"{MAX_DURATION_S / 3600:g}h (start it again to extend it)"
        )
    return seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    sub = parser.add_subparsers(dest="action", required=True)
    start = sub.add_parser(
        "start", help="put a broker in maintenance now (again: its window ends later or sooner)"
    )
    start.add_argument("--broker", type=_broker, required=True, help="the broker id")
    start.add_argument(
        "--for", dest="duration", type=_duration, required=True,
        help=f"how long, e.g. 90s, 10m, 2h (at most {MAX_DURATION_S / 3600:g}h)",
    )  # fmt: skip
    start.add_argument("--comment", default="", help="why (shown by list and in the logs)")
    start.add_argument("--author", default=None, help="who (default: the current user)")
    start.add_argument("--json", action="store_true", help="print the window as JSON")
    lst = sub.add_parser("list", help="list the brokers in declared maintenance")
    lst.add_argument("--all", action="store_true", help="include windows that ended")
    lst.add_argument("--json", action="store_true", help="print a JSON list")
    end = sub.add_parser("end", help="end a broker's maintenance now")
    which = end.add_mutually_exclusive_group(required=True)
    which.add_argument("--broker", type=_broker, help="the broker id")
    which.add_argument("--all", action="store_true", help="every broker in maintenance")


def _shown(w: DeclaredWindow, now: float) -> dict[str, object]:
    state = "active" if w.active(now) else ("pending" if w.starts_at > now else "ended")
    return {
        "broker_id": w.broker_id,
        "state": state,
        "starts_at": format_time(w.starts_at),
        "ends_at": format_time(w.ends_at),
        "remaining_s": round(max(w.ends_at - max(now, w.starts_at), 0.0), 1)
        if w.ends_at > now
        else 0.0,
        "comment": w.comment,
        "created_by": w.created_by,
    }


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    store = DeclaredMaintenance(Path(config.alerting.state_dir) / FILE_NAME)
    try:
        return _run(args, store, time.time())
    except OSError as exc:
        print(f"maintenance {args.action}: cannot write {store.path}: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, store: DeclaredMaintenance, now: float) -> int:
    if args.action == "start":
        author = args.author if args.author is not None else getpass.getuser()
        try:
            window = store.start(args.broker, args.duration, args.comment, author, now)
        except ValueError as exc:
            print(f"maintenance start: {exc}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(_shown(window, now)))
        else:
            print(f"broker {window.broker_id} in maintenance until {format_time(window.ends_at)}")
        return 0
    if args.action == "end":
        ended = store.end(None if args.all else args.broker, now)
        if not ended and not args.all:
            print(f"maintenance end: broker {args.broker} is not in maintenance", file=sys.stderr)
            return 1
        for w in ended:
            print(f"broker {w.broker_id}: maintenance ended")
        if not ended:
            print("no broker was in maintenance")
        return 0
    store.reload()
    shown = [
        _shown(w, now)
        for w in sorted(store.windows(), key=lambda w: (w.broker_id, w.starts_at))
        if args.all or w.ends_at > now
    ]
    if args.json:
        print(json.dumps(shown))
        return 0
    for s in shown:
        print(
            f"broker {s['broker_id']}  {s['state']:7}  {s['starts_at']} .. {s['ends_at']}  "
            f"{s['created_by']}: {s['comment']}"
        )
    return 0
