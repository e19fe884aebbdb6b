"""``kafka-health replay`` on the real log lines of the seeds' second incident: one incident,
the broker's GC named, at the times the logs say; its HTML report opens in headless Chromium
with no network and a screenshot shows the timeline (the GC bars, the session-timeout line)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main

pytestmark = pytest.mark.spark

SEED = Path(__file__).parents[1] / "fixtures" / "replay" / "seed-002"
CST = timezone(timedelta(hours=8))


GC_BAR = (0x44, 0x44, 0x44)
TIMEOUT_LINE = (0xD0, 0x00, 0x00)


def png_pixels(path: Path) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = depth = color = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        chunk, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if chunk == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif chunk == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and color in (2, 6), (depth, color)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    i = 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + pred) & 0xFF
        rows.append(line)
        previous = line
    pixels = [(row[x], row[x + 1], row[x + 2]) for row in rows for x in range(0, stride, channels)]
    return width, height, pixels


def near(pixel: tuple[int, int, int], color: tuple[int, int, int], slack: int = 12) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(pixel, color, strict=True))


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=CST).timestamp()


def test_the_seed_incident_replays_into_one_incident_naming_the_gc(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "monitor.yaml"
    config.write_text("parsing:\n  log_timezone: Asia/Shanghai\n")
    report = tmp_path / "report.html"
    code = main(["replay", "--config", str(config), "--report", str(report), str(SEED)])
    out, err = capsys.readouterr()
    assert code == 0, err[-3000:]
    lines = [json.loads(line) for line in out.splitlines()]
    notifications, end = lines[:-1], lines[-1]
    assert {n["group_key"] for n in notifications} == {'{broker_id="3"}'}, "one incident"
    gc = [
        (n["at"], a) for n in notifications for a in n["alerts"]
        if a["alertname"] == "FullGCPauseOverSessionTimeout" and a["status"] == "firing"
    ]  # fmt: skip
    assert gc, notifications
    first_at, alert = gc[0]
    pause_began = at("2019-05-15 22:25:59.422")
    assert pause_began <= first_at <= pause_began + 15, first_at - pause_began
    assert alert["labels"]["broker_id"] == "3"
    assert "open_at_end" in end
    page = report.read_text()
    assert "Full GC pauses on broker 3" in page and "kafkaServer-gc.log" in page
    assert "session timeout 6 s" in page, "the broker's own session timeout, from its log"
    assert 'src="http' not in page, "no script from the network"

    # The page opens in headless Chromium with no network, and its timeline is drawn.
    assert shutil.which("chromium-headless-shell"), "scripts/install-system-deps.sh installs it"
    shot = tmp_path / "report.png"
    subprocess.run(
        ["chromium-headless-shell", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=10000", "--window-size=1400,1200",
         f"--screenshot={shot}", report.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1400, 1200)
    distinct = {p for p in pixels[:: max(1, len(pixels) // 50_000)]}
    assert len(distinct) > 20, "not a blank page"
    assert sum(near(p, GC_BAR) for p in pixels) > 50, "the Full GC bars are drawn"
    assert sum(near(p, TIMEOUT_LINE) for p in pixels) > 50, "the session timeout line is drawn"
