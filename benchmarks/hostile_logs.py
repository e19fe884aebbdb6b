"""A seeded file of hostile log lines: what a broken shipper, a corrupt disk or an attacker writes.

The mix (200 000 lines by default): random bytes, NUL runs, truncated and mutated real lines
(the parser test table's), real lines, and a few ~1 MB lines built to make a backtracking
regular expression recurse or crawl (a GC cause that never closes its parenthesis, an ISR list
of 500 000 ids, 1 MB of ``[x]`` decorators, ``()`` repeated, a trigger word then noise, JSON
layout lines with a 1 MB message or a 1 MB-deep value).
The same seed gives the same bytes, so a failure is reproducible:

    .venv/bin/python benchmarks/hostile_logs.py /tmp/hostile.log [--lines 200000] [--seed 13]
    .venv/bin/kafka-health parse --summary /tmp/hostile.log

``kafka-health parse --summary`` must exit 0 and count every line (``lines``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test table: tests/

MEGABYTE = 1_000_000  # under parsing.max_entry_bytes (1 MiB): these lines are parsed, not cut


def huge_lines() -> list[bytes]:
    """Lines of about 1 MB that drive a recursing or backtracking regex as far as it goes."""
    n = MEGABYTE
    stamp = b"[2019-05-15 22:20:14,399] INFO "
    jdk8 = b"2019-05-15T22:25:59.422+0800: 21989402.560: "
    return [
        jdk8 + b"[Full GC (" + b"a" * n,  # CAUSE group repeated once per character
        jdk8 + b"[GC (Allocation Failure) " + b"()" * (n // 2),
        stamp + b"Shrinking ISR from " + b"1," * (n // 2) + b"1 to 1",  # ISR group per id
        stamp + b"[Partition t-0 broker=1] Expanding ISR from " + b"1, " * (n // 3),
        b"[x]" * (n // 3) + b"[1.0s] GC(1) Pause Full",  # decorator group per bracket
        jdk8 + b"[Full GC (System.gc()) [PSYoungGen: 1K->0K(2K)]" + b", [x]" * (n // 5),
        stamp + b"NotLeaderForPartition " * (n // 22),
        b"[0.1s][info][gc] GC(1) Pause Young " + b"(G1 Evacuation Pause) " * (n // 22),
        b"\t" * n,
        b"{" * n,
        # log4j JSON layouts (read with get_json_object): a 1 MB message, a 1 MB-deep value
        # after the message, a layout object cut short.
        b'{"level":"INFO","loggerName":"k","message":"Shrinking ISR from '
        + b"1," * (n // 2)
        + b'"}',
        b'{"message":"Shrinking ISR from 1,2 to 1","thrown":' + b"[" * n,
        b'{"timeMillis":1557930014399,"level":"WARN","message":"Unable to reconnect to Zoo',
    ]


def mutate(rng: random.Random, text: bytes) -> bytes:
    """Cut, splice bytes in, flip characters, drop spaces, repeat or NUL-pad a real line."""
    choice = rng.randrange(7)
    if choice == 0:
        return text[: rng.randrange(len(text) + 1)]
    if choice == 1:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.randbytes(rng.randrange(1, 8)) + text[i:]
    if choice == 2:
        data = bytearray(text)
        for _ in range(rng.randrange(1, 5)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(32, 127)
        return bytes(data)
    if choice == 3:
        return text.replace(b" ", b"", rng.randrange(4))
    if choice == 4:
        return b" ".join([text] * rng.randrange(2, 20))
    if choice == 5:
        return text + b"\x00" * rng.randrange(1, 50)
    return text[: rng.randrange(len(text) + 1)] + b"\xc3\x28\xff"  # invalid UTF-8 tail


def hostile_lines(lines: int = 200_000, seed: int = 13) -> Iterator[bytes]:
    """``lines`` lines without their newline (none contains a newline byte)."""
    from tests.parsing_cases import ALL_CASES

    rng = random.Random(seed)
    real = [line.encode() for c in ALL_CASES for line in c.text.split("\n") if line]
    huge = huge_lines()
    at = {rng.randrange(lines): line for line in huge}
    for i in range(lines):
        if i in at:
            yield at[i]
            continue
        roll = rng.random()
        if roll < 0.15:
            line = rng.randbytes(rng.randrange(0, 400))
        elif roll < 0.2:
            line = b"\x00" * rng.randrange(1, 200)
        elif roll < 0.75:
            line = mutate(rng, rng.choice(real))
        else:
            line = rng.choice(real)
        yield line.replace(b"\n", b" ")


def write(path: Path, lines: int = 200_000, seed: int = 13) -> int:
    """Write the file; returns its line count (every line ends with a newline)."""
    count = 0
    with path.open("wb") as out:
        for line in hostile_lines(lines, seed):
            out.write(line + b"\n")
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    print(write(args.path, args.lines, args.seed))


if __name__ == "__main__":
    main()
