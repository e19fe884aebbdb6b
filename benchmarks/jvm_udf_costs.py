"""What a compiled JVM parser (a Java UDF, ``benchmarks/jvm_udf``) costs per record beside the
built-in SQL parse, over the same cached static backlog as ``benchmarks/operation_costs.py``
(no Kafka, no trigger). A measurement for issue 14's question (may the parse be JVM code?);
nothing of it is wired into the job.

    .venv/bin/python benchmarks/jvm_udf_costs.py [--seconds 8] [--runs 6] [--no-check] \
        [--explain] [NAME ...]

The jar is built with Maven on first use (``mvn -q -B package`` in ``benchmarks/jvm_udf``).

Each operation is grouped by a small aggregate of its result (so nothing is pruned), run
``--runs`` times; the fastest run is reported as records/s and as microseconds of core time a
record (two cores), as operation_costs.py does. Before the timing, the UDFs' results are checked
against the built-in ones over the whole backlog, and 20 records are printed side by side.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MAIN = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(MAIN), str(MAIN / "src")]

PROJECT = MAIN / "benchmarks" / "jvm_udf"
JAR = PROJECT / "target" / "jvmparser-0.1.jar"
UDF_FIELDS = ("broker_id", "kind", "file", "ts", "level", "logger")


def register(spark: Any) -> None:
    """The jar's three UDFs, after checking it holds this checkout's keys and anchors."""
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    from kafka_health.config import MonitorConfig
    from kafka_health.parsing.envelope import doc_keys
    from kafka_health.parsing.prefilter import prefilter_anchors

    jvm = spark.sparkContext._jvm
    keys = list(doc_keys(MonitorConfig().parsing.fields))
    anchors = prefilter_anchors()
    assert anchors is not None
    assert str(jvm.jvmparser.EnvelopeKeysUdf.keys()).split("\n") == keys, "keys differ"
    assert str(jvm.jvmparser.EnvelopeKeysUdf.anchors()).split("\n") == list(anchors["kafka"])
    parse_type = str(jvm.jvmparser.KafkaParseUdf.DDL)
    spark.udf.registerJavaFunction("kh_parse", "jvmparser.KafkaParseUdf", parse_type)
    spark.udf.registerJavaFunction("kh_parse_scan", "jvmparser.KafkaParseScanUdf", parse_type)
    keys_type = StructType(
        [StructField(k, StringType()) for k in keys] + [StructField("bad_json", BooleanType())]
    )
    spark.udf.registerJavaFunction("kh_keys", "jvmparser.EnvelopeKeysUdf", keys_type)


def builtin_parse(frame: Any, keep: tuple[str, ...] = ()) -> Any:
    """The built-in equivalent of the UDF's a+b+c, as columns ``UDF_FIELDS``, is_candidate,
    bad_json: the decode's from_json struct and its first_path reads (json_path's checks),
    then the message's head by substring_index/locate/substr, and the Kafka anchors'
    ``contains`` OR'd. A projection for each step whose value is read more than once.
    ``keep``: columns of ``frame`` carried through (for the check)."""
    from pyspark.sql import functions as F

    from kafka_health.config import MonitorConfig
    from kafka_health.parsing.columns import any_of
    from kafka_health.parsing.envelope import BAD_JSON, first_path, kind_from_file, parse_doc
    from kafka_health.parsing.prefilter import prefilter_anchors

    fields = MonitorConfig().parsing.fields
    anchors = prefilter_anchors()
    assert anchors is not None
    text = F.col("value").cast("string")
    df = frame.select(*keep, text.alias("text"), parse_doc(text, fields).alias("d"))
    d, t = F.col("d"), F.col("text")
    ok = d.isNotNull() & d.getField(BAD_JSON).isNull()
    raw = t.isNotNull() & ~F.ltrim(t).startswith("{")
    df = df.select(
        *keep,
        F.when(ok, first_path(d, fields.message, layouts=True)).when(raw, t).alias("m"),
        F.when(ok, first_path(d, fields.broker_id)).alias("broker_id"),
        F.when(ok, first_path(d, fields.file)).alias("file"),
        F.when(ok, F.lower(first_path(d, fields.kind))).alias("_kind"),
        (~ok).alias("bad_json"),
    )
    df = df.withColumn("kind", F.coalesce("_kind", kind_from_file(F.col("file"))))
    m = F.col("m")
    df = df.withColumn("fl", F.substring_index(m, "\n", 1))
    df = df.withColumn("c", F.expr("locate(']', fl)"))
    bracketed = F.expr("startswith(fl, '[') AND c > 2")
    spaced = F.expr("substr(fl, c + 1, 1) = ' '")
    df = df.select(
        *keep, "broker_id", "kind", "file", "bad_json",
        F.when(bracketed, F.expr("substr(fl, 2, c - 2)")).alias("ts"),
        F.when(bracketed & spaced,
               F.expr("nullif(substring_index(substr(fl, c + 2), ' ', 1), '')")).alias("level"),
        F.when(F.expr("endswith(fl, ')') AND locate('(', fl) > 0"),
               F.expr("substring_index(substr(fl, 1, length(fl) - 1), '(', -1)")).alias("logger"),
        F.coalesce(any_of([m.contains(a) for a in anchors["kafka"]]), F.lit(False))
        .alias("is_candidate"),
    )  # fmt: skip
    return df.select(*keep, *UDF_FIELDS, "is_candidate", "bad_json")


def udf_parse(frame: Any, name: str = "kh_parse") -> Any:
    """The Java UDF's a+b+c, as the same columns as :func:`builtin_parse`."""
    from pyspark.sql import functions as F

    df = frame.select(F.call_udf(name, F.col("value")).alias("u"))
    return df.select("u.*")


def counted(df: Any, names: list[str], flags: list[str]) -> Any:
    """``df`` grouped by its texts' summed lengths and its flags (a few groups), so no column
    is pruned."""
    from pyspark.sql import functions as F

    total = sum((F.coalesce(F.length(F.col(n)), F.lit(0)) for n in names), F.lit(0))
    total = total + sum((F.col(f).cast("int") * (k + 1) for k, f in enumerate(flags)), F.lit(0))
    return df.groupBy(total % 7).count()


def udf_keys(frame: Any) -> Any:
    """The Java UDF's part (a) alone: every key the decode reads, counted as _all_keys does."""
    from pyspark.sql import functions as F

    from kafka_health.config import MonitorConfig
    from kafka_health.parsing.envelope import doc_keys

    keys = list(doc_keys(MonitorConfig().parsing.fields))
    u = F.call_udf("kh_keys", F.col("value"))
    df = frame.select(u.alias("u")).select(
        *[F.col("u").getField(k).alias(f"k{i}") for i, k in enumerate(keys)],
        F.col("u").getField("bad_json").alias("bad_json"),
    )
    return counted(df, [f"k{i}" for i in range(len(keys))], ["bad_json"])


def udf_job_proxy(frame: Any) -> Any:
    """The Java UDF's a+b+c in place of the job's parse, then the job's own driver columns and
    aggregation (job_batch.with_driver_columns, driver_rows), the records shaped as
    parsed_stream gives them: the own topics' values set aside, an ordinary line
    ``unrecognised`` / ``no_event``, a bad record ``unrecognised`` / ``bad_json``. A proxy: a
    candidate line gets outcome ``candidate`` and no event fields (the triggers' 69 regexes and
    the fields' extraction are not run), so no event is listed."""
    from pyspark.sql import functions as F

    from kafka_health.config import MonitorConfig
    from kafka_health.job import batch as job_batch
    from kafka_health.parsing.envelope import kept_value

    config = MonitorConfig()
    is_log = F.col("topic") == config.topics.broker_logs
    size = F.coalesce(F.octet_length("value"), F.lit(0))
    records = frame.select(
        "topic", "partition", "offset", "timestamp", "key", "value",
        F.when(is_log, F.call_udf("kh_parse", F.col("value"))).alias("u"),
    )  # fmt: skip
    u = F.col("u")
    bad, candidate = u["bad_json"], u["is_candidate"]
    parsed = records.select(
        F.col("topic").alias("source_topic"),
        F.col("partition").alias("source_partition"),
        F.col("offset").alias("source_offset"),
        F.col("timestamp").alias("source_timestamp"),
        F.col("key").alias("source_key"),
        kept_value(F.col("value"), size, config.parsing).alias("source_value"),
        size.alias("source_value_bytes"),
        F.when(is_log, F.when(bad | ~candidate, "unrecognised").otherwise("candidate"))
        .alias("outcome"),
        F.when(is_log, F.when(bad, "bad_json").when(~candidate, "no_event")).alias("reason"),
        u["broker_id"].alias("broker_id"),
        u["kind"].alias("kind"),
        u["file"].alias("file"),
        F.lit(1).alias("n_lines"),
        *[F.lit(None).cast("string").alias(c) for c in job_batch.EVENT_COLUMNS
          if c != "broker_id"],
    )  # fmt: skip
    return job_batch.driver_rows(job_batch.with_driver_columns(parsed, config))


def operations(frame: Any) -> dict[str, Any]:
    from benchmarks import operation_costs as oc

    theirs = oc.operations(frame, None)
    flags = ["is_candidate", "bad_json"]
    return {
        "read and count": theirs["read and count"],
        "envelope from_json, every key the decode reads":
            theirs["envelope from_json, every key the decode reads"],
        "Java UDF (a) only: every key the decode reads": lambda: udf_keys(frame),
        "built-in a+b+c: from_json + first_path, head split, anchors' contains": (
            lambda: counted(builtin_parse(frame), list(UDF_FIELDS), flags)
        ),
        "Java UDF a+b+c (String.contains per anchor)": (
            lambda: counted(udf_parse(frame), list(UDF_FIELDS), flags)
        ),
        "Java UDF a+b+c (one-pass anchor scan)": (
            lambda: counted(udf_parse(frame, "kh_parse_scan"), list(UDF_FIELDS), flags)
        ),
        "Java UDF a+b+c -> the job's driver columns and aggregation (proxy)": (
            lambda: udf_job_proxy(frame)
        ),
        "the job's batch plan": theirs["the job's batch plan"],
    }  # fmt: skip


def check(spark: Any, frame: Any, rows: list[tuple[Any, ...]]) -> None:
    """The UDFs against the built-ins: every record of the backlog, then 20 side by side, then
    a few hand-made records."""
    from pyspark.sql import functions as F

    from benchmarks.batch_static import KAFKA_COLUMNS
    from kafka_health.config import MonitorConfig
    from kafka_health.parsing.envelope import BAD_JSON, doc_keys, parse_doc

    keys = list(doc_keys(MonitorConfig().parsing.fields))
    cols = [*UDF_FIELDS, "is_candidate", "bad_json"]

    def compare(source: Any) -> tuple[int, int, dict[str, int]]:
        text = F.col("value").cast("string")
        d = parse_doc(text, MonitorConfig().parsing.fields)
        df = source.select(
            "value",
            F.call_udf("kh_parse", F.col("value")).alias("u"),
            F.call_udf("kh_parse_scan", F.col("value")).alias("us"),
            F.call_udf("kh_keys", F.col("value")).alias("k"),
            d.alias("fj"),
        ).cache()
        both = builtin_parse(df, keep=("u", "us", "k", "fj")).cache()
        diffs = {c: both.where(~F.col("u")[c].eqNullSafe(F.col(c))).count() for c in cols}
        scan_diff = both.where(~F.col("u").eqNullSafe(F.col("us"))).count()
        key_diff = both.where(
            ~F.struct(*[F.col("k")[x] for x in keys], F.col("k")["bad_json"]).eqNullSafe(
                F.struct(*[F.col("fj")[x] for x in keys], F.col("fj")[BAD_JSON].isNotNull())
            )
        ).count()
        both.unpersist()
        df.unpersist()
        return key_diff, scan_diff, diffs

    n = frame.count()
    source = frame.select("value").coalesce(1).cache()
    key_diff, scan_diff, diffs = compare(source)
    print(f"check, all {n} records: UDF (a) keys != from_json struct: {key_diff}; "
          f"scan UDF != contains UDF: {scan_diff}; a+b+c fields != built-in: {diffs}")  # fmt: skip
    candidates = source.select(F.call_udf("kh_parse", "value")["is_candidate"].alias("c"))
    print(f"  candidates (anchor found): {candidates.where('c').count()}")
    source.unpersist()

    # 20 records side by side: 14 broker-log lines (2 of them candidates), 3 cluster state, 3
    # canary results.
    logs = [r for r in rows if r[2].endswith("broker_logs")]
    picked = [r for r in logs if b"Shrinking ISR" in r[1] or b"Expanding ISR" in r[1]][:2]
    picked += logs[:: max(1, len(logs) // 12)][:12]
    for topic in ("cluster_state", "canary_results"):
        picked += [r for r in rows if r[2].endswith(topic)][:3]
    small = spark.createDataFrame(picked, KAFKA_COLUMNS)
    text = F.col("value").cast("string")
    spot = small.select(
        F.call_udf("kh_parse", "value").alias("u"),
        F.get_json_object(text, "$.broker_id").alias("gjo_broker_id"),
        F.get_json_object(text, "$.kind").alias("gjo_kind"),
        F.get_json_object(text, "$.path").alias("gjo_path"),
        F.substring(F.get_json_object(text, "$.message"), 1, 40).alias("gjo_message"),
    ).collect()
    built = builtin_parse(small).collect()
    same = 0
    print("\n20 records: the UDF's row | get_json_object's broker_id, kind, path | built-in row")
    for s, b in zip(spot, built, strict=True):
        u = s["u"].asDict()
        match = u == b.asDict()
        same += match
        print(f"  {'==' if match else '!='} UDF {tuple(u.values())}\n"
              f"     gjo ({s['gjo_broker_id']}, {s['gjo_kind']}, {s['gjo_path']}, "
              f"{s['gjo_message']!r})")  # fmt: skip
        if not match:
            print(f"     built-in {tuple(b.asDict().values())}")
    print(f"  {same} of {len(spot)} equal to the built-in row")

    edge = [b'{"a":1} trailing', b"[2026-11-25 10:00:00,123] INFO [X] hello (a.B)",
            b"{not json", b"", b'{"message": "[] INFO x)", "level": 3.50}',
            b'{"fields": {"broker_id": 7, "kind": "Controller"}, "log": {"file": {"path": '
            b'"/x/state-change.log"}}, "message": "[t] ERROR Failed to elect leader (k.C)"}',
            b'{"message": {"message": "inner"}, "msg": "x"}']  # fmt: skip
    edf = spark.createDataFrame([(v,) for v in edge], "value binary")
    ekeys = edf.select(F.call_udf("kh_keys", "value").alias("k"),
                       parse_doc(F.col("value").cast("string"),
                                 MonitorConfig().parsing.fields).alias("d")).collect()  # fmt: skip
    for v, s, b, kd in zip(edge, udf_parse(edf).collect(), builtin_parse(edf).collect(), ekeys,
                           strict=True):  # fmt: skip
        kk = [kd["k"][x] for x in keys] + [kd["k"]["bad_json"]]
        # from_json of an empty text is null as a whole (the UDF: every key null, bad).
        dd = (
            [kd["d"][x] for x in keys] + [kd["d"][BAD_JSON] is not None]
            if kd["d"]
            else [None] * len(keys) + [True]
        )
        print(
            f"  edge {v[:50]!r}: {'==' if s == b else '!='} {tuple(s)}"
            + ("" if s == b else f" built-in {tuple(b)}")
            + ("" if kk == dd else f"\n      keys differ: udf {kk} from_json {dd}")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8, help="seconds of backlog")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--explain", action="store_true", help="print the UDF ops' plans")
    parser.add_argument("names", nargs="*", help="operations to run (default: all)")
    args = parser.parse_args()
    import pyspark

    from benchmarks.batch_static import KAFKA_COLUMNS, backlog_rows
    from benchmarks.core_costs import collect_seconds, cost_line
    from kafka_health.config import MonitorConfig
    from kafka_health.spark import build_spark_session
    from kafka_health.spark.connector import ensure_kafka_connector_jars

    cfg = MonitorConfig().spark
    # The session's spark.jars is the Kafka connector's list (or cfg.jars when given): ours
    # beside it.
    connector = cfg.jars or [
        str(j) for j in ensure_kafka_connector_jars(Path(cfg.cache_dir), pyspark.__version__)
    ]
    if not JAR.exists():
        subprocess.run(["mvn", "-q", "-B", "package"], cwd=PROJECT, check=True)
    cfg = dataclasses.replace(cfg, jars=[*connector, str(JAR)])
    spark = build_spark_session(cfg)
    print(f"spark.jars: {spark.conf.get('spark.jars')}")
    register(spark)
    rows = backlog_rows(args.seconds)
    frame = spark.createDataFrame(rows, KAFKA_COLUMNS).repartition(2).cache()
    records = frame.count()
    print(f"records: {records}")
    if not args.no_check:
        started = time.monotonic()
        check(spark, frame, rows)
        print(f"(check took {time.monotonic() - started:.0f} s)\n")
    built = operations(frame)
    if args.explain:
        for name, op in built.items():
            if "UDF" in name or "built-in" in name:
                plan = op()._jdf.queryExecution().executedPlan().toString()
                calls = sum(plan.count(f"{u}(") for u in ("kh_parse", "kh_parse_scan", "kh_keys"))
                print(f"--- {name}: UDF calls in the plan: {calls}\n{plan}")
    for name in args.names or list(built):
        times = collect_seconds(built[name], args.runs)
        runs = " ".join(f"{t:.2f}" for t in times)
        print(f"{cost_line(name, min(times), records, 72)}   (runs {runs})", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
