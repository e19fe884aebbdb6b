"""The demo's status line says a stale source is unknown instead of showing old values."""

from __future__ import annotations

import pytest

from kafka_health.commands.demo import print_signals
from kafka_health.model import Signal, labels


def test_a_stale_canary_is_shown_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    print_signals(
        [
            Signal("signal_stale", labels(source="canary"), 1.0, 0.0, {"age_s": 31.5}),
            Signal("under_replicated_partitions", labels(), 0.0, 0.0),
        ]
    )
    line = capsys.readouterr().out
    assert "canary UNKNOWN (no new data for 31.5 s)" in line
    assert "canary availability" not in line, "the job left the stale values out"
