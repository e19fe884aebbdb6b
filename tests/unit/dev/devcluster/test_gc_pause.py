"""The GC-pause fault's control flow, against a stand-in ``jcmd`` that writes JDK 17 unified
GC log lines and a ``sleep`` process as the JVM (the real JVM: tests/integration)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_health.dev.devcluster import gc_pause

START = "[2026-11-22T05:00:49.871+0000][8.061s][info][gc,start    ] GC(13) Pause Full (Diagnostic Command)"  # noqa: E501
END = "[2026-11-22T05:00:59.897+0000][18.087s][info][gc             ] GC(13) Pause Full (Diagnostic Command) 29M->22M(256M) 10025.611ms"  # noqa: E501


@pytest.fixture
def jvm() -> Iterator[int]:
    process = subprocess.Popen(["sleep", "60"])
    yield process.pid
    process.kill()
    process.wait()


def fake_jcmd(tmp_path: Path, gc_log: Path, gap_s: float) -> str:
    """A jcmd that logs a Full GC's start, then its end ``gap_s`` later."""
    script = tmp_path / "jcmd"
    if gap_s:
        body = f"echo '{START}' >> {gc_log}\nsleep {gap_s}\necho '{END}' >> {gc_log}\n"
    else:  # both lines in one write: the collection is over before anyone can look
        body = f"printf '%s\\n%s\\n' '{START}' '{END}' >> {gc_log}\n"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


def test_the_jvm_is_stopped_inside_the_collection_and_the_logged_pause_returned(
    tmp_path: Path, jvm: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc_log = tmp_path / "gc.log"
    gc_log.write_text("[...][info][gc] GC(12) Pause Young (Normal) 20M->5M(256M) 3.1ms\n")
    monkeypatch.setattr(gc_pause, "_jcmd", lambda: fake_jcmd(tmp_path, gc_log, 0.5))
    stopped: list[str] = []
    real_sleep = time.sleep  # the module gc_pause sleeps through (its own `import time`)

    def sleep(seconds: float) -> None:
        if seconds == 0.3:  # the pause itself: the "JVM" must be stopped now
            stopped.append(Path(f"/proc/{jvm}/stat").read_text().rsplit(") ", 1)[1][0])
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    assert gc_pause.full_gc_pause(jvm, gc_log, 0.3) == pytest.approx(10.025611)
    assert stopped == ["T"]
    state = Path(f"/proc/{jvm}/stat").read_text().rsplit(") ", 1)[1][0]
    assert state != "T", "resumed afterwards"


def test_a_collection_that_ended_before_the_stop_is_retried_then_given_up(
    tmp_path: Path, jvm: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc_log = tmp_path / "gc.log"
    gc_log.write_text("")
    monkeypatch.setattr(gc_pause, "_jcmd", lambda: fake_jcmd(tmp_path, gc_log, 0))
    with pytest.raises(gc_pause.GcPauseError, match="in 2 attempts"):
        gc_pause.full_gc_pause(jvm, gc_log, 5.0, attempts=2)
    state = Path(f"/proc/{jvm}/stat").read_text().rsplit(") ", 1)[1][0]
    assert state != "T", "never left stopped"
