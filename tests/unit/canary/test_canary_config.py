"""The canary and cluster-state config sections: defaults, and problems named by key path."""

from __future__ import annotations

import pytest

from kafka_health.config import MonitorConfig, parse_config
from kafka_health.errors import ConfigError


def problems_of(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return [str(p) for p in caught.value.problems]


def test_defaults() -> None:
    config = MonitorConfig()
    assert (config.canary.interval_s, config.canary.acks1_probe) == (1.0, True)
    assert config.cluster_state.interval_s == 10.0


# (case, YAML, the problem it must report, why)
INVALID = [
    ("interval zero", "canary:\n  interval_s: 0\n", "canary.interval_s: must be 0.05 to 3600",
     "a zero interval would spin"),
    ("bad id", "canary:\n  id: 'a b'\n", "canary.id: 1 to 100 letters, digits, _ . -",
     "the id names a folder and a record key"),
    ("min ISR above RF", "canary:\n  replication_factor: 2\n  min_insync_replicas: 3\n",
     "canary.min_insync_replicas: must not exceed replication_factor",
     "every acks=all probe would fail"),
    ("negative partitions", "canary:\n  partitions: -1\n",
     "canary.partitions: must be 0 (automatic) or more", "0 means one per broker"),
    ("tiny buffer", "canary:\n  buffer_max_bytes: 5000\n",
     "canary.buffer_max_bytes: must be at least twice buffer_segment_bytes",
     "the bound must hold more than the segment being written"),
    ("bad port", "canary:\n  metrics_port: 70000\n",
     "canary.metrics_port: must be 0 to 65535 or null", "ports are 16 bits"),
    ("bad regex", "cluster_state:\n  topics_regex: '('\n",
     "cluster_state.topics_regex: not a valid regex", "fail before start, not at the first probe"),
    ("huge page", "cluster_state:\n  page_partitions: 0\n",
     "cluster_state.page_partitions: must be 1 to 100000", "pages bound the memory"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected", "why"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid(case: str, text: str, expected: str, why: str) -> None:
    assert any(p.startswith(expected) for p in problems_of(text)), why
