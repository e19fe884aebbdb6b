"""Fixtures of the shipper's unit tests (the fakes live in shipper_fakes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.shipper.shipper_fakes import FakeClock, FakeProducer, LogDir


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def producer() -> FakeProducer:
    return FakeProducer()


@pytest.fixture
def logs(tmp_path: Path) -> LogDir:
    root = tmp_path / "logs"
    root.mkdir()
    return LogDir(root)
