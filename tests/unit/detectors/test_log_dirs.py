"""Failed log directory timelines: offline from Kafka's report until the broker starts again."""

from __future__ import annotations

from typing import Any

from tests.support.detector_support import batch, broker, by_name, done, event

from kafka_health.detectors.inventory import Inventory
from kafka_health.detectors.log_dirs import MAX_DIR_CHARS, MAX_DIRS, LogDirs
from kafka_health.model import SIGNALS, Signal

T0 = 1_700_000_000_000
DIR_A = "/var/kafka/logs-3a"
DIR_B = "/var/kafka/logs-3b"


def offline(broker_id: str, at_ms: int, log_dir: str = DIR_B) -> Any:
    return event("log_dir_offline", broker_id, at_ms, log_dir=log_dir)


def started(broker_id: str, at_ms: int) -> Any:
    return event("broker_started", broker_id, at_ms, subject_broker_id=int(broker_id))


def offline_now(d: LogDirs) -> dict[str, Signal]:
    return {dict(k)["broker_id"]: s for k, s in by_name(d.signals(0.0), "log_dir_offline").items()}


def test_the_signal_is_in_the_catalogue() -> None:
    assert SIGNALS["log_dir_offline"].labels == ("broker_id",)


def test_a_failed_dir_is_offline_until_the_broker_starts_again() -> None:
    d = LogDirs()
    d.fold(batch(events=[offline("3", T0)]), 1.0)
    got = offline_now(d)
    assert set(got) == {"3"} and got["3"].value == 1.0
    assert got["3"].details["log_dirs"] == [DIR_B]
    assert got["3"].details["offline_since"] == T0 / 1000
    assert got["3"].details["halted"] is False
    # an hour of other lines: Kafka never brings the dir back while the broker runs
    d.fold(batch(events=[event("full_gc", "3", T0 + 3_600_000)]), 2.0)
    assert set(offline_now(d)) == {"3"}
    d.fold(batch(events=[started("3", T0 + 3_700_000)]), 3.0)
    assert offline_now(d) == {}


def test_the_same_dir_twice_counts_once_and_a_second_dir_adds() -> None:
    d = LogDirs()
    d.fold(batch(events=[offline("3", T0), offline("3", T0 + 500)]), 1.0)
    assert offline_now(d)["3"].value == 1.0
    d.fold(batch(events=[offline("3", T0 + 1000, DIR_A)]), 2.0)
    got = offline_now(d)["3"]
    assert got.value == 2.0 and got.details["log_dirs"] == [DIR_A, DIR_B]
    assert got.details["offline_since"] == T0 / 1000


def test_a_halt_for_all_dirs_names_each_and_clears_at_the_start() -> None:
    d = LogDirs()
    halt = event("log_dir_halt", "3", T0 + 10, log_dir=f"{DIR_A}, {DIR_B}")
    d.fold(batch(events=[offline("3", T0), halt]), 1.0)
    got = offline_now(d)["3"]
    assert got.value == 2.0 and got.details["halted"] is True
    d.fold(batch(events=[started("3", T0 + 60_000)]), 2.0)
    assert offline_now(d) == {}
    assert d.state()["brokers"]["3"]["halted_ms"] is None


def test_a_report_older_than_the_newest_start_is_a_replay() -> None:
    """A batch holding the failure and the restart in any order: the start wins."""
    d = LogDirs()
    d.fold(batch(events=[started("3", T0 + 5_000), offline("3", T0)]), 1.0)
    assert offline_now(d) == {}
    d.fold(batch(events=[offline("3", T0 + 1_000)]), 2.0)  # read again, late
    assert offline_now(d) == {}
    d.fold(batch(events=[offline("3", T0 + 6_000)]), 3.0)  # a new failure after the start
    assert set(offline_now(d)) == {"3"}


def test_another_brokers_start_does_not_clear() -> None:
    d = LogDirs()
    d.fold(batch(events=[offline("3", T0), started("2", T0 + 1_000)]), 1.0)
    assert set(offline_now(d)) == {"3"}


def test_the_broker_comes_from_the_subject_when_the_record_names_none() -> None:
    d = LogDirs()
    d.fold(batch(events=[offline("3", T0)]), 1.0)
    d.fold(batch(events=[event("broker_started", None, T0 + 1_000, subject_broker_id=3)]), 2.0)
    assert offline_now(d) == {}


def test_paths_and_dirs_are_bounded() -> None:
    d = LogDirs()
    events = [offline("3", T0 + i, f"/d{i}/" + "x" * 1000) for i in range(MAX_DIRS + 5)]
    d.fold(batch(events=events), 1.0)
    got = offline_now(d)["3"]
    assert got.value == MAX_DIRS
    assert all(len(p) == MAX_DIR_CHARS for p in got.details["log_dirs"])


def test_state_round_trips() -> None:
    d = LogDirs()
    d.fold(batch(events=[offline("3", T0), started("1", T0 - 5)]), 1.0)
    again = LogDirs()
    again.restore(d.state())
    assert again.state() == d.state()
    assert set(offline_now(again)) == {"3"}


def test_a_broker_that_left_the_cluster_is_forgotten() -> None:
    ttl = 60.0
    d = LogDirs()
    inventory = Inventory(ttl, 3600.0, ["__kafka_health_canary"])
    d.fold(batch(events=[offline("3", 5_000)]), 5.0)
    for t in range(0, 200, 10):
        members = (1, 2, 3) if t == 0 else (1, 2)
        records = [*(broker(t * 1000, b) for b in members), done(t * 1000, len(members))]
        inventory.observe(records)
        d.prune(inventory, float(t))
        if t < 5 + ttl:
            assert set(offline_now(d)) == {"3"}, t
    assert offline_now(d) == {}
