"""A seeded file of hostile log lines: what a broken shipper, a corrupt disk or an attacker writes.

The mix (200 000 lines by default, :mod:`kafka_health.parsing.hostile`): random bytes, NUL
runs, truncated and mutated real lines (the parser test table's), real lines, and a few ~1 MB
lines built to make a backtracking regular expression recurse or crawl (a GC cause that never
closes its parenthesis, an ISR list of 500 000 ids, 1 MB of ``[x]`` decorators, ``()``
repeated, a trigger word then noise, JSON layout lines with a 1 MB message or a 1 MB-deep
value).
The same seed gives the same bytes, so a failure is reproducible:

    .venv/bin/python benchmarks/hostile_logs.py /tmp/hostile.log [--lines 200000] [--seed 13]
    .venv/bin/kafka-health parse --summary /tmp/hostile.log

``kafka-health parse --summary`` must exit 0 and count every line (``lines``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kafka_health.dev.parsing_cases import case_lines
from kafka_health.parsing.hostile import write_hostile_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    print(write_hostile_file(args.path, case_lines(), args.lines, args.seed))


if __name__ == "__main__":
    main()
