"""The pinger's rounds with a fake lister and ping: one ping in flight per broker, outcomes
into the board as they come, a failed listing keeps the last one."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from kafka.errors import KafkaConnectionError

from kafka_health.config import JobConfig, MonitorConfig, from_mapping
from kafka_health.job.board import SignalBoard
from kafka_health.kafka_config import KafkaConfig
from kafka_health.reachability.pinger import LIST_ATTEMPTS, AdminLister, BrokerPings

ADDRESSES = {1: ("127.0.0.1", 9091), 2: ("127.0.0.1", 9092)}


def config() -> MonitorConfig:
    return from_mapping({"kafka": {"bootstrap_servers": ["127.0.0.1:9091"]},
                         "reachability": {"interval_s": 0.1, "deadline_s": 0.5}})  # fmt: skip


def unanswered(board: SignalBoard) -> dict[str, str]:
    return {
        s.label("broker_id"): s.label("reason")
        for s in board.signals()
        if s.name == "broker_unanswered_seconds"
    }


def test_a_round_pings_every_listed_broker_and_the_board_gets_each_outcome() -> None:
    board = SignalBoard(JobConfig(), live=True)
    outcomes = {9091: ("answered", ""), 9092: ("refused", "[Errno 111] Connection refused")}
    pings = BrokerPings(config(), board, lister=lambda: ADDRESSES,
                        pinger=lambda host, port: outcomes[port])  # fmt: skip
    pings.list_once()
    pings.start()
    try:
        deadline = time.monotonic() + 5
        while unanswered(board) != {"1": "answered", "2": "refused"}:
            assert time.monotonic() < deadline, unanswered(board)
            time.sleep(0.05)
    finally:
        pings.stop()
    assert "reachability" not in board.stale()


def test_a_hung_broker_holds_one_ping_and_never_the_others() -> None:
    board = SignalBoard(JobConfig(), live=True)
    release = threading.Event()
    calls: dict[int, int] = {9091: 0, 9092: 0}

    def ping(host: str, port: int) -> tuple[str, str]:
        calls[port] += 1
        if port == 9092:
            release.wait(5)
            return "timeout", "no answer"
        return "answered", ""

    pings = BrokerPings(config(), board, lister=lambda: ADDRESSES, pinger=ping)
    pings.list_once()
    pings.start()
    try:
        time.sleep(1.0)  # ten rounds
    finally:
        release.set()
        pings.stop()
    assert calls[9092] == 1, "one ping in flight per broker"
    assert calls[9091] >= 5, "the others' rounds go on"


def test_a_failed_listing_keeps_the_last_one() -> None:
    board = SignalBoard(JobConfig(), live=True)
    listings = [ADDRESSES]

    def lister() -> dict[int, tuple[str, int]]:
        if not listings:
            raise ConnectionError("no broker answers")
        return listings.pop()

    pings = BrokerPings(config(), board, lister=lister, pinger=lambda h, p: ("answered", ""))
    pings.list_once()
    pings.list_once()  # fails: logged, nothing forgotten
    assert set(board.ping_targets()) == {1, 2}


class FlakyAdmin:
    """DescribeCluster that fails its first ``failures`` requests (the brokers it asked
    were down), then answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.requests = 0
        self.closed = False

    def describe_cluster(self) -> dict[str, Any]:
        self.requests += 1
        if self.requests <= self.failures:
            raise KafkaConnectionError("111 ECONNREFUSED")
        return {"brokers": [{"broker_id": 1, "host": "127.0.0.1", "port": 9091}]}

    def close(self) -> None:
        self.closed = True


def test_a_listing_asks_again_when_the_broker_it_asked_is_down() -> None:
    """With 2 of 3 brokers down, 5 of 6 new clients failed their first request (it goes to
    a broker picked at random); the job's listing then failed for minutes in a row."""
    lister = AdminLister(KafkaConfig(bootstrap_servers=["127.0.0.1:9091"]), 0.5)
    lister._admin = admin = FlakyAdmin(failures=LIST_ATTEMPTS - 1)
    assert lister() == {1: ("127.0.0.1", 9091)}
    assert admin.requests == LIST_ATTEMPTS and not admin.closed, "the client is kept"
    lister._admin = admin = FlakyAdmin(failures=LIST_ATTEMPTS)
    with pytest.raises(KafkaConnectionError):
        lister()
    assert admin.closed and lister._admin is None, "a new client next time"


def test_a_new_client_bootstraps_from_the_servers_that_answer() -> None:
    """kafka-python bootstraps from a server it picks at random, and waits out a dead one's
    backoff: with 2 of 3 down, 1 bootstrap in 18 ran out of time."""
    servers = ["127.0.0.1:9091", "[::1]:9092", "127.0.0.1:9093"]
    answering = {9091: "refused", 9092: "answered", 9093: "timeout"}
    lister = AdminLister(KafkaConfig(bootstrap_servers=servers), 0.5,
                         lambda host, port: (answering[port], ""))  # fmt: skip
    assert lister.bootstrap_servers() == ["[::1]:9092"]
    answering[9092] = "refused"
    assert lister.bootstrap_servers() == servers, "none answers: the client says why"
