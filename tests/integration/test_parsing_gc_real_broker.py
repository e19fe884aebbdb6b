"""A real broker's GC log after forced Full GCs parses into full_gc events with the stated
cause and pause: ``jcmd <pid> GC.run`` (JDK 9+ logs it as "Diagnostic Command") and a real
``System.gc()`` in the broker (MemoryMXBean.gc() over JMX, as an operator's tool would)."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.parsing.events import with_context_collector
from kafka_health.parsing.offline import check_files, read_entries
from kafka_health.parsing.udf import parse_entries

pytestmark = [pytest.mark.integration, pytest.mark.spark]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jvm"
UNIFIED_FULL = re.compile(
    r"GC\((\d+)\) Pause Full \(([^)]*\)?)\) \d+M->\d+M\(\d+M\) (\d+(?:\.\d+)?)ms$"
)


@pytest.mark.skipif(shutil.which("jcmd") is None, reason="needs the JDK's jcmd")
def test_forced_full_gc_on_a_local_broker(spark: Any, local_cluster: Any) -> None:
    cluster = local_cluster(brokers=1)
    node = cluster.nodes[0]
    subprocess.run(["jcmd", str(node.pid), "GC.run"], check=True, capture_output=True, timeout=60)
    deadline = time.monotonic() + 30
    stated: list[re.Match[str]] = []
    while time.monotonic() < deadline and not stated:
        stated = [
            m for line in node.gc_log.read_text().splitlines() if (m := UNIFIED_FULL.search(line))
        ]
        time.sleep(0.5)
    assert stated, "the broker's gc.log has no Full GC line"
    _gc_id, cause, pause_ms = stated[-1].groups()

    # A real System.gc() inside the broker: JMX started in it by jcmd, MemoryMXBean.gc().
    (port,) = free_ports(1)
    subprocess.run(
        ["jcmd", str(node.pid), "ManagementAgent.start", f"jmxremote.port={port}",
         f"jmxremote.rmi.port={port}", "jmxremote.authenticate=false", "jmxremote.ssl=false",
         "jmxremote.host=127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    subprocess.run(
        ["java", str(FIXTURES / "SystemGc.java"), str(port)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    system_gc: list[re.Match[str]] = []
    while time.monotonic() < deadline and not system_gc:
        system_gc = [
            m
            for line in node.gc_log.read_text().splitlines()
            if (m := UNIFIED_FULL.search(line)) and m.group(2) == "System.gc()"
        ]
        time.sleep(0.5)
    assert system_gc, "no Full GC with cause System.gc() in the broker's gc.log"
    stated = [
        m for line in node.gc_log.read_text().splitlines() if (m := UNIFIED_FULL.search(line))
    ]

    entries = read_entries(spark, check_files([str(node.gc_log)]), broker_id="1")
    events = with_context_collector(parse_entries(entries, kind="gc"))
    full = [r for r in events.where("type = 'full_gc'").collect()]
    assert len(full) == len(stated)
    by_cause = [r for r in full if r["cause"] == "System.gc()"]
    assert len(by_cause) == len(system_gc) >= 1
    assert by_cause[-1]["pause_s"] == pytest.approx(float(system_gc[-1].group(3)) / 1000, abs=1e-6)
    last = [r for r in full if r["cause"] != "System.gc()"][-1]
    # JDK 9+ names jcmd GC.run "Diagnostic Command"; JDK 8 ran it through System.gc().
    assert last["cause"] == cause
    assert cause in ("Diagnostic Command", "System.gc()")
    assert last["pause_s"] == pytest.approx(float(pause_ms) / 1000, abs=1e-6)
    assert (last["collector"], last["broker_id"]) == ("g1", "1")
    assert last["uptime_s"] > 0 and last["ts"].endswith("+00:00")
