"""Every real webhook receiver a harness started is shut down after its test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.alerting_harness import stop_receivers


@pytest.fixture(autouse=True)
def _stop_receivers() -> Iterator[None]:
    yield
    stop_receivers()
