"""GC logs of kinds the parser had not been written against (issue 59), read as the product
reads them: entries joined by the shipper's joiner, classified by the reference parser. Each
list is exact, (entry's first line, event, pause in seconds): a missed pause, an invented one, a
System.gc() taken for a Full GC fails it. Where each format comes from, and what the parser
got wrong before: ``tests/fixtures/logs/heldout/SOURCES.md``. The same fixtures through
``kafka-health parse`` (Spark's Java regexes): ``tests/spark/test_parsing_heldout_gc.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.log_entries import joined_entries

from kafka_health.parsing import patterns as P
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.reference import CONTINUATION, classify, content_family, scan_window
from kafka_health.shipper.multiline import start_pattern

HELDOUT = Path(__file__).parents[2] / "fixtures" / "logs" / "heldout"
GC_EVENTS = ("full_gc", "young_gc", "gc_failure")
UNIT_SECONDS = {"secs": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}

EXPECTED: dict[str, list[tuple[int, str, float | None]]] = {
    # 1. JDK 7u80 Parallel, -XX:+PrintHeapAtGC: 3 Full GCs (' [PSPermGen: ...]' has no comma)
    "gc-jdk7-parallel-heapatgc.log": [
        (13, "young_gc", 0.0734306),
        (33, "young_gc", 0.1300674),
        (53, "young_gc", 0.0906152),
        (73, "young_gc", 0.0934813),
        (93, "young_gc", 0.0761053),
        (113, "young_gc", 0.0498799),
        (133, "full_gc", 1.4865243),
        (153, "young_gc", 0.0980911),
        (173, "young_gc", 0.0697741),
        (193, "young_gc", 0.0877716),
        (213, "young_gc", 0.0863126),
        (233, "full_gc", 0.9412377),
        (253, "young_gc", 0.0674135),
        (273, "young_gc", 0.1339149),
        (293, "young_gc", 0.1011842),
        (313, "young_gc", 0.1275744),
        (333, "full_gc", 2.0183346),
        (353, "young_gc", 0.1145056),
    ],
    # 1. JDK 6u45 CMS, -XX:+PrintHeapAtGC: a concurrent mode failure and a System.gc() Full GC;
    # initial marks and remarks are not collections; line 127's CMS line lands in a heap block
    "gc-jdk6-cms-heapatgc.log": [
        (8, "young_gc", 0.0543356),
        (24, "young_gc", 0.0743007),
        (40, "young_gc", 0.0680787),
        (56, "young_gc", 0.0437559),
        (72, "young_gc", 0.0698098),
        (88, "young_gc", 0.0861283),
        (110, "young_gc", 0.0288416),
        (132, "young_gc", 0.0680532),
        (148, "young_gc", 0.0380573),
        (164, "young_gc", 0.0762886),
        (180, "young_gc", 0.0726422),
        (198, "full_gc", 8.1239876),
        (215, "young_gc", 0.0895581),
        (231, "young_gc", 0.0304172),
        (247, "young_gc", 0.0689977),
        (263, "full_gc", 5.1239012),
        (279, "young_gc", 0.0645401),
        (295, "young_gc", 0.0893305),
    ],
    # 1. JDK 8u92 G1, -XX:+PrintHeapAtGC: an evacuation failure, then 2 Full GCs
    "gc-jdk8-g1-heapatgc.log": [
        (9, "young_gc", 0.0163881),
        (47, "young_gc", 0.0247659),
        (85, "young_gc", 0.0417129),
        (123, "young_gc", 0.011184),
        (161, "young_gc", 0.0430036),
        (209, "young_gc", 0.0417834),
        (247, "young_gc", 0.0340996),
        (285, "young_gc", 0.0206472),
        (323, "young_gc", 0.0115191),
        (361, "gc_failure", 0.3121788),
        (400, "full_gc", 10.3987109),
        (414, "young_gc", 0.0406675),
        (452, "young_gc", 0.0263967),
        (490, "full_gc", 6.2177045),
        (504, "young_gc", 0.0213499),
    ],
    # 2. JDK 7u21 Parallel on stdout: unstamped stopped/concurrent-time lines, tenuring lines
    # inside each young collection's line, '[Unloading class ...]' inside the first Full GC's
    "gc-jdk7-parallel-stoppedtime.log": [
        (8, "young_gc", 0.223004),
        (17, "young_gc", 0.0961897),
        (22, "young_gc", 0.065307),
        (27, "young_gc", 0.1880666),
        (32, "young_gc", 0.0639639),
        (41, "young_gc", 0.2060496),
        (48, "full_gc", 3.65454),
        (60, "young_gc", 0.1918013),
        (67, "young_gc", 0.1648772),
        (74, "young_gc", 0.2283878),
        (79, "young_gc", 0.1021757),
        (84, "young_gc", 0.296744),
        (89, "full_gc", 6.92514),
        (92, "young_gc", 0.0756644),
        (97, "full_gc", 12.219732),
        (104, "young_gc", 0.2560508),
    ],
    # 3. JDK 8u181 G1, class histograms before and after each Full GC. The second Full GC's
    # figures come 17 KB into its entry, past the first scan_chars (16 KB): read, as the entry
    # is under twice that (a longer one's tail is read as well: the CMS file below)
    "gc-jdk8-g1-classhistogram.log": [
        (4, "young_gc", 0.0103683),
        (31, "young_gc", 0.0322197),
        (58, "young_gc", 0.0381941),
        (85, "full_gc", 9.8765432),
        (358, "young_gc", 0.0206651),
        (385, "young_gc", 0.0338978),
        (412, "young_gc", 0.0294029),
        (439, "full_gc", 12.3047116),
        (1082, "young_gc", 0.0280417),
        (1109, "young_gc", 0.022088),
    ],
    # 3. JDK 8u181 CMS, -XX:+PrintGCDateStamps and class histograms before and after each Full
    # GC, both inside its line (GenCollectedHeap::do_collection): the date-stamped "[CMS: ..."
    # line after the first histogram continues the entry, and the second Full GC's figures come
    # 46 KB into it, after both histograms (its tail window)
    "gc-jdk8-cms-classhistogram-datestamps.log": [
        (4, "young_gc", 0.1238324),
        (5, "young_gc", 0.1192502),
        (6, "young_gc", 0.1300055),
        (7, "young_gc", 0.0514321),
        (20, "young_gc", 0.0892841),
        (21, "young_gc", 0.106802),
        (22, "young_gc", 0.079886),
        (23, "full_gc", 4.4193824),
        (139, "young_gc", 0.102514),
        (140, "young_gc", 0.1340889),
        (141, "young_gc", 0.0520594),
        (142, "full_gc", 9.1056788),
        (783, "young_gc", 0.1186019),
        (784, "young_gc", 0.0417578),
    ],
    # 3. JDK 8u181 CMS, -XX:PrintFLSStatistics=1 -XX:+PrintCMSInitiationStatistics: "Before
    # GC:"/"After GC:" blocks inside every collection's line (the pause after the second), the
    # CMS thread's shouldConcurrentCollect blocks and "CMS: Large block" lines between them
    "gc-jdk8-cms-flsstatistics.log": [
        (4, "young_gc", 0.1007745),
        (32, "young_gc", 0.1164348),
        (60, "young_gc", 0.0677981),
        (88, "young_gc", 0.0393514),
        (141, "young_gc", 0.1396293),
        (158, "young_gc", 0.0358357),
        (175, "young_gc", 0.0946232),
        (192, "full_gc", 6.3042226),
        (221, "young_gc", 0.0414865),
        (238, "young_gc", 0.0925535),
    ],
    # 3. JDK 8u181 G1 on stdout, -XX:+HeapDumpBeforeFullGC: the pause includes the dump's
    "gc-jdk8-g1-heapdump-stdout.log": [
        (1, "young_gc", 0.0328131),
        (28, "young_gc", 0.0228398),
        (55, "young_gc", 0.0443937),
        (82, "young_gc", 0.0455061),
        (109, "young_gc", 0.0363401),
        (146, "young_gc", 0.028171),
        (173, "young_gc", 0.0316895),
        (200, "young_gc", 0.0472101),
        (227, "full_gc", 52.0987109),
        (232, "young_gc", 0.0142226),
        (259, "young_gc", 0.0273588),
        (286, "young_gc", 0.0191167),
        (313, "full_gc", 57.3384102),
        (318, "young_gc", 0.0311251),
    ],
    # 4. JDK 8u77 G1, -XX:+ExplicitGCInvokesConcurrent: System.gc() is a young initial-mark
    # pause (lines 106, 288, 446), not a Full GC; the one Full GC follows an evacuation failure
    "gc-jdk8-g1-explicit-concurrent.log": [
        (4, "young_gc", 0.1494511),
        (36, "young_gc", 0.1877823),
        (73, "young_gc", 0.0962882),
        (106, "young_gc", 0.2124664),
        (152, "young_gc", 0.2385268),
        (184, "young_gc", 0.0903331),
        (218, "young_gc", 0.1917414),
        (253, "young_gc", 0.150115),
        (288, "young_gc", 0.1873302),
        (335, "gc_failure", 1.4123881),
        (373, "full_gc", 38.5307271),
        (376, "young_gc", 0.1247725),
        (409, "young_gc", 0.1442467),
        (446, "young_gc", 0.1409919),
        (492, "young_gc", 0.084549),
    ],
    # 5. JDK 11 G1, -Xlog:gc*:file=... ([uptime][level][tags])
    "gc-jdk11-g1-unified-default.log": [
        (15, "young_gc", 0.009145),
        (28, "young_gc", 0.020014),
        (41, "young_gc", 0.013984),
        (54, "young_gc", 0.022251),
        (91, "young_gc", 0.008362),
        (104, "young_gc", 0.024832),
        (117, "young_gc", 0.007022),
        (130, "young_gc", 0.034672),
        (143, "young_gc", 0.023225),
        (156, "gc_failure", None),
        (157, "young_gc", 0.412338),
        (175, "full_gc", 2.127343),
        (188, "young_gc", 0.008169),
        (201, "young_gc", 0.033715),
        (219, "full_gc", 1.604877),
        (232, "young_gc", 0.026806),
    ],
    # 5. JDK 11 CMS, -Xlog:gc*:file=...:time,uptime,level,tags. Pause Initial Mark and Pause
    # Remark are not collections; GC(10)'s Pause Young (line 104) holds the Full GC GC(11)
    # that its failed promotion ran (line 100), as the JVM logs it
    "gc-jdk11-cms-unified-time.log": [
        (8, "young_gc", 0.011499),
        (15, "young_gc", 0.020356),
        (22, "young_gc", 0.039283),
        (29, "young_gc", 0.032521),
        (46, "young_gc", 0.029756),
        (64, "young_gc", 0.037919),
        (71, "young_gc", 0.009693),
        (78, "young_gc", 0.037103),
        (100, "full_gc", 4.187552),
        (104, "young_gc", 4.188071),
        (112, "young_gc", 0.013693),
        (119, "young_gc", 0.012226),
        (126, "young_gc", 0.011165),
        (140, "full_gc", 2.311903),
        (147, "young_gc", 0.023094),
        (154, "young_gc", 0.028829),
    ],
}  # fmt: skip


def pause_seconds(groups: dict[str, str]) -> float | None:
    """The raw pause group in seconds, as Spark converts it (a comma decimal too)."""
    if "pause" not in groups:
        return None
    return round(float(groups["pause"].replace(",", ".")) * UNIT_SECONDS[groups["pause_unit"]], 7)


@pytest.mark.parametrize("fixture", list(EXPECTED))
def test_gc_events_of_a_heldout_log(fixture: str) -> None:
    """Every collection of the file, and nothing else; no entry left malformed."""
    got = []
    for line, text in joined_entries(HELDOUT / fixture):
        result = classify(text, hint="gc", scan_chars=ParsingConfig().scan_chars)
        assert result.outcome != "malformed", (line, result.event)
        if result.outcome == "event" and result.event in GC_EVENTS:
            got.append((line, result.event, pause_seconds(result.groups)))
    assert got == EXPECTED[fixture]


def test_explicit_gc_invokes_concurrent_is_no_full_gc() -> None:
    """-XX:+ExplicitGCInvokesConcurrent: each System.gc() is a young pause with its cause."""
    causes = [
        classify(text, hint="gc").groups.get("cause")
        for line, text in joined_entries(HELDOUT / "gc-jdk8-g1-explicit-concurrent.log")
        if line in (106, 288, 446)
    ]
    assert causes == ["System.gc()"] * 3


@pytest.mark.parametrize(
    ("line", "starts"),
    [
        ("[Unloading class sun.reflect.GeneratedMethodAccessor112]", False),  # inside a Full GC
        ("49830.934: [CMS: 1640998K->1616248K(3407872K), 11.0964500 secs] 1951125K->", False),
        ("28282.075: [CMS28284.687: [CMS-concurrent-preclean: 3.706/3.706 secs]", False),
        ("28308.701: [ParNew (promotion failed): 261951K->261951K(261952K), 0.74 secs]", False),
        ("Total time for which application threads were stopped: 0.0117633 seconds", False),
        ("Desired survivor size 497025024 bytes, new threshold 7 (max 15)", False),
        ("1000:             1             16  sun.reflect.GeneratedMethodAccessor1000", False),
        ("Heap dump file created [7604512330 bytes in 41.207 secs]", False),
        ("2013-11-04T16:02:58.566+0000: 47.054: [CMS-concurrent-reset-start]", True),
        ("47.054: [CMS-concurrent-reset-start]", True),
        ("[CMS-concurrent-mark-start]", True),
        ("2014-02-17T03:41:21.906-0500: 12.819: [GC", True),
        ("[2020-02-04T09:30:29.739+0100][17.322s][info][gc           ] GC(4) Pause", True),
        # the generation's part after a class histogram or an FLS block, whatever its stamps
        ("2018-09-03T22:05:53.182+0000: 53.183: [CMS: 520550K->234247K(6291456K), 6.2", False),
        ("2018-09-03T22:05:53.182+0000: 53.183: [CMSCMS: Large block 0x00000006bddd5a90", False),
        ("2018-09-03T22:05:10.218+0000: 10.219: [ParNew: 1624027K->189337K(1677824K), 0.1", False),
        ("2018-09-03T22:05:10.218+0000: 10.219: #12: [ParNew: 1624027K->189337K(1677824K)", False),
        ("#12: [Tenured: 1624027K->189337K(1677824K), 0.1 secs]", False),
        ("2018-09-03T22:05:10.218+0000: 10.219: [CMS-concurrent-sweep-start]", True),
        ("2018-09-03T22:05:10.218+0000: 10.219: [GC (Allocation Failure) Before GC:", True),
        # -XX:PrintFLSStatistics, -XX:+PrintCMSInitiationStatistics: inside an entry
        ("Statistics for BinaryTreeDictionary:", False),
        ("Av.  Block  Size: 34114", False),
        ("CMSCollector shouldConcurrentCollect: 11.236", False),
        ("metadata initialized 0", False),
    ],
)
def test_entry_start_of_gc_lines(line: str, starts: bool) -> None:
    """Lines a JDK prints inside a collection's line continue its entry; the CMS thread's own
    lines and every stamped collection start one (the shipper's joiner, the offline join)."""
    assert bool(start_pattern().match(line.encode())) is starts


def test_fls_and_initiation_statistics_lines_alone_are_no_format_unknown() -> None:
    """The statistics' lines of the FLS file each as a record of its own (a shipper that joins
    no lines; the collections' own lines start entries): the initiation statistics' header is a
    GC line, every other line continues an entry; none is an event, malformed, or of a format
    the parse knows nothing of (a dead letter)."""
    lines = (HELDOUT / "gc-jdk8-cms-flsstatistics.log").read_text().splitlines()[3:]
    for line in lines:
        if start_pattern().match(line.encode()):
            continue
        assert classify(line).outcome == "unrecognised", line
        if line.startswith("CMSCollector"):
            assert content_family(line) == "gc", line
        else:
            assert CONTINUATION.search(line), line
    assert sum(line.startswith("CMSCollector shouldConcurrentCollect: ") for line in lines) == 7


def test_a_full_gc_is_read_past_any_histogram_on_bounded_text() -> None:
    """A CMS Full GC whose two histograms hold 5,000 classes each (700 KB): the parse reads its
    first and last scan_chars, so finds the Full GC and its pause after both, on a text no
    longer than twice scan_chars."""
    rows = [
        f"{i:4d}: {1:13d}  {16:13d}  sun.reflect.GeneratedMethodAccessor{i}" for i in range(1, 5001)
    ]
    histogram = [
        "",
        " num     #instances         #bytes  class name",
        "-" * 46,
        *rows,
        "Total          5000          80000",
    ]
    entry = "\n".join([
        "2018-09-03T22:12:24.896+0000: 427.256: [Full GC (System.gc()) 2018-09-03T22:12:24.897"
        "+0000: 427.257: [Class Histogram (before full gc): " + histogram[0], *histogram[1:],
        ", 0.5686420 secs]",
        "2018-09-03T22:12:25.466+0000: 427.826: [CMS: 6291455K->3104400K(6291456K), 8.1234567 "
        "secs]2018-09-03T22:12:33.590+0000: 435.950: [Class Histogram (after full gc): ",
        *histogram[1:], ", 0.4123456 secs]",
        " 8178943K->3104400K(8178944K), [Metaspace: 52311K->52011K(1095680K)], 9.1061234 secs]"
        " [Times: user=9.05 sys=0.02, real=9.11 secs] ",
    ])  # fmt: skip
    assert len(entry) > 600_000
    window = scan_window(entry, 16_384)
    assert len(window) <= 2 * 16_384 and window.startswith(entry[:16_384])
    assert entry.endswith(window[16_384:]) and window[16_384] == "\n"
    result = classify(entry, hint="gc")
    assert (result.event, pause_seconds(result.groups)) == ("full_gc", 9.1061234)
    assert result.groups["cause"] == "System.gc()"
    for pattern in P.GC_PATTERNS:
        assert not P.recursion_hazards(pattern.regex), pattern.name


@pytest.mark.parametrize(
    ("length", "expected"),
    [(100, 100), (200, 200), (201, 192)],  # whole up to twice the window; then head + tail
)
def test_scan_window_bounds(length: int, expected: int) -> None:
    text = "".join("x" if i % 10 else "\n" for i in range(1, length + 1))
    window = scan_window(text, 100)
    assert len(window) == expected and window.startswith(text[:100])
    assert text.endswith(window[100:])
    assert scan_window("y" * 500, 100) == "y" * 100  # a tail without a line start: none
