"""Hostile log lines, for fuzzing: what a broken shipper, a corrupt disk or an attacker writes.

One generator for the tests and the benchmarks (``benchmarks/hostile_logs.py`` writes its
lines to a file, ``benchmarks/fuzz_job.py`` sends them through the running job): random bytes,
NUL runs, real lines as they are and mutated (:func:`mutate`), and a few ~1 MB lines built to
make a backtracking regular expression recurse or crawl (:func:`huge_lines`). The real lines
come from the caller (the parser's test table); the same lines and seed give the same bytes,
so a failure is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

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
    """A real entry cut, with bytes spliced in, characters flipped, spaces dropped, repeated,
    NUL-padded, given an invalid UTF-8 tail, opened as JSON never closed, or with CRLF ends."""
    choice = rng.randrange(9)
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
    if choice == 6:
        return text[: rng.randrange(len(text) + 1)] + b"\xc3\x28\xff"  # invalid UTF-8 tail
    if choice == 7:
        return b'{"message": "' + text[: rng.randrange(len(text) + 1)]  # broken JSON
    return text.replace(b"\n", b"\r\n")


def lines_of(texts: Iterable[str]) -> list[bytes]:
    """The non-empty lines of ``texts`` (real entries, some of several lines), encoded."""
    return [line.encode() for text in texts for line in text.split("\n") if line]


def hostile_lines(real: Sequence[bytes], lines: int = 200_000, seed: int = 13) -> Iterator[bytes]:
    """``lines`` lines without their newline (none contains a newline byte): random bytes, NUL
    runs, ``real`` lines mutated and as they are, and each of :func:`huge_lines` once."""
    rng = random.Random(seed)
    at = {rng.randrange(lines): line for line in huge_lines()}
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


def write_hostile_file(
    path: Path, real: Sequence[bytes], lines: int = 200_000, seed: int = 13
) -> int:
    """Write :func:`hostile_lines` to ``path``, each with a newline; returns how many."""
    count = 0
    with path.open("wb") as out:
        for line in hostile_lines(real, lines, seed):
            out.write(line + b"\n")
            count += 1
    return count
