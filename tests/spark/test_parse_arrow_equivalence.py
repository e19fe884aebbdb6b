"""Way (b) of issue 59 against way (c): the whole parse as ``mapInArrow`` with pyarrow
(:func:`kafka_health.parsing.arrow.parse_records`) gives the same rows, column for column, as
the built-in Column parser (``parse_entries(decode_records(...))``) over every fixture corpus,
with ``kafka-health parse``'s options and with the streaming job's. CI size by default (each
kind of input, fewer of them: ``tests/support/parse_corpora.py``); full size with
``KAFKA_HEALTH_PARSE_FULL=1`` or ``benchmarks/parse_ab.py --check-full``."""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest

from kafka_health.parsing.arrow import parse_records
from kafka_health.parsing.envelope import decode_records
from kafka_health.parsing.events import parse_entries
from tests.support.parse_corpora import SCHEMA, Record, as_rows, corpora, uncovered

pytestmark = pytest.mark.spark


def _builtin(df: Any, job: bool) -> Any:
    if job:
        entries = decode_records(df).drop("host", "envelope")
        return parse_entries(entries, keep_message=False, values_for_dead_letters_only=True)
    return parse_entries(decode_records(df))


def _arrow(df: Any, job: bool) -> Any:
    if job:
        return parse_records(
            df, keep_message=False, values_for_dead_letters_only=True, drop_host_and_envelope=True
        )
    return parse_records(df)


def by_offset(df: Any) -> dict[int, dict[str, Any]]:
    return {r["source_offset"]: r.asDict() for r in df.collect()}


def differences(
    want: dict[int, dict[str, Any]], got: dict[int, dict[str, Any]]
) -> list[tuple[int, str, Any, Any]]:
    """(offset, column, built-in value, arrow value) of every cell that differs."""
    assert want.keys() == got.keys()
    found = []
    for offset, row in want.items():
        for column, value in row.items():
            other = got[offset][column]
            nan = isinstance(value, float) and value != value and other != other
            if value != other and not nan:
                found.append((offset, column, value, other))
    return found


@pytest.fixture(scope="module")
def named() -> dict[str, list[Record]]:
    """The corpora (``parse_corpora.corpora``: CI size unless ``KAFKA_HEALTH_PARSE_FULL``)."""
    return corpora()


@pytest.mark.parametrize("job", [False, True], ids=["parse-options", "job-options"])
def test_arrow_parse_gives_the_builtin_rows(
    spark: Any, named: dict[str, list[Record]], job: bool
) -> None:
    """Every corpus in one plan, each its own partitions (so Arrow batches never mix two, as
    when each ran alone), the offsets running on from one corpus to the next."""
    frames: list[Any] = []
    records: list[Record] = []
    corpus_of: list[str] = []
    for name, recs in named.items():
        frames.append(spark.createDataFrame(as_rows(recs, start=len(records)), SCHEMA))
        records += recs
        corpus_of += [name] * len(recs)
    df = reduce(lambda a, b: a.union(b), frames)
    builtin, arrow = _builtin(df, job), _arrow(df, job)
    assert arrow.schema.simpleString() == builtin.schema.simpleString()
    want = by_offset(builtin)
    found = differences(want, by_offset(arrow))
    shown = [
        (corpus_of[o], o, c, repr(a)[:120], repr(b)[:120], repr(records[o][1])[:160])
        for o, c, a, b in found
    ]
    assert not found, shown[:20]
    if not job:
        assert uncovered(want.values()) == []


def test_arrow_parse_of_files_gives_the_builtin_rows(spark: Any, tmp_path: Any) -> None:
    """``kafka-health parse``'s path: the log fixtures (held-out ones too) and a hostile file
    read into entries (lines joined, kinds from file names) and parsed both ways."""
    from kafka_health.dev.parsing_cases import case_lines
    from kafka_health.parsing import arrow
    from kafka_health.parsing.hostile import write_hostile_file
    from kafka_health.parsing.offline import check_files, read_entries
    from tests.support.parse_corpora import FIXTURES

    hostile = tmp_path / "hostile.log"
    write_hostile_file(hostile, case_lines(), 3000, seed=13)
    paths = [str(p) for p in sorted((FIXTURES / "logs").rglob("*.log"))] + [str(hostile)]
    entries = read_entries(spark, check_files(paths)).cache()
    try:
        for kind in ("auto", "gc"):
            builtin = parse_entries(entries, kind=kind)
            got = arrow.parse_entries(entries, kind=kind)
            assert got.schema.simpleString() == builtin.schema.simpleString()
            key = ["file_index", "line"]
            want = {tuple(r[k] for k in key): r.asDict() for r in builtin.collect()}
            have = {tuple(r[k] for k in key): r.asDict() for r in got.collect()}
            assert want.keys() == have.keys()
            bad = [
                (k, c, v, have[k][c])
                for k, row in want.items()
                for c, v in row.items()
                if v != have[k][c] and not (isinstance(v, float) and v != v)
            ]
            assert not bad, bad[:20]
    finally:
        entries.unpersist()
