"""A failed send is named by its Kafka error class, whatever kafka-python calls it."""

from __future__ import annotations

import pytest
from kafka import errors

from kafka_health.failures import classify

# (exception, error class, why)
CASES = [
    (errors.NotEnoughReplicasError(), "NotEnoughReplicas", "ISR below min.insync.replicas"),
    (errors.NotEnoughReplicasAfterAppendError(), "NotEnoughReplicasAfterAppend",
     "the ISR shrank after the leader wrote the record"),
    (errors.NotLeaderForPartitionError(), "NotLeaderOrFollower",
     "kafka-python keeps the pre-2.7 name; the issue and the job use Kafka's current one"),
    (errors.RequestTimedOutError(), "RequestTimedOut", "acks=all waited for a dead follower"),
    (errors.KafkaTimeoutError("Expiring 3 record(s)"), "Timeout",
     "the record expired in the client: the leader was unreachable"),
    (errors.KafkaConnectionError("reset by peer"), "NetworkException",
     "the connection to the leader broke (SIGKILL)"),
    (errors.LeaderNotAvailableError(), "LeaderNotAvailable", "an election is under way"),
    (errors.UnknownTopicOrPartitionError(), "UnknownTopicOrPartition",
     "the canary topic is gone"),
    (errors.TopicAuthorizationFailedError(), "TopicAuthorizationFailed",
     "generic rule: Kafka's SNAKE_CASE message in CamelCase"),
    (errors.IllegalStateError("closed"), "IllegalState", "client errors lose the Error suffix"),
    (ValueError("bad partition"), "ValueError", "a non-Kafka error keeps its Python name"),
]  # fmt: skip


@pytest.mark.parametrize(("exc", "expected", "why"), CASES, ids=[c[1] for c in CASES])
def test_error_class(exc: BaseException, expected: str, why: str) -> None:
    assert classify(exc) == expected, why
