"""Failure classification: an exception of a send becomes a stable Kafka error class name.

Names are Kafka's own (``NOT_ENOUGH_REPLICAS`` -> ``NotEnoughReplicas``), including where
kafka-python still uses an old name (``NotLeaderForPartitionError`` -> ``NotLeaderOrFollower``).
Client-side failures get the Java client's names: ``Timeout`` (the record expired before an
answer: unreachable leader, delivery timeout) and ``NetworkException`` (connection lost).
"""

from __future__ import annotations

import re

from kafka import errors as kafka_errors

# Exception class -> error class, where the generic rules below would not give Kafka's name.
_NAMES: dict[type[BaseException], str] = {
    kafka_errors.NotLeaderForPartitionError: "NotLeaderOrFollower",
    kafka_errors.KafkaTimeoutError: "Timeout",
    kafka_errors.KafkaConnectionError: "NetworkException",
    kafka_errors.NetworkExceptionError: "NetworkException",
    kafka_errors.NodeNotReadyError: "NodeNotReady",
    kafka_errors.KafkaStorageError: "KafkaStorageError",
}


def classify(exc: BaseException) -> str:
    """The error class of a failed send, e.g. ``NotEnoughReplicas`` or ``Timeout``."""
    for kind in type(exc).__mro__:
        if kind in _NAMES:
            return _NAMES[kind]
    message = getattr(type(exc), "message", None)
    if isinstance(exc, kafka_errors.BrokerResponseError) and isinstance(message, str):
        return "".join(part.capitalize() for part in message.split("_"))
    name = type(exc).__name__
    if isinstance(exc, kafka_errors.KafkaError):
        return re.sub(r"Error$", "", name) or name
    return name
