"""ConsumerGroupDescribe (API key 69, KIP-848): kafka-python 3.0.12 has no class for it.

On Kafka 4.1 DescribeGroups describes classic groups only: for a group of the consumer
protocol (``group.protocol=consumer``) the coordinator answers state ``Dead`` with
``GROUP_ID_NOT_FOUND`` ("Group g is not a classic group", ``GroupMetadataManager.
describeGroups``/``classicGroup`` in kafka-group-coordinator-4.1.1.jar). Such groups are
described with ConsumerGroupDescribe, as the Java admin client does.

The request is flexible-only (header v2, compact fields, tagged fields), so it is declared
here from its schema (the ``.json`` files beside this module, trimmed from Kafka 4.1's
``common/message``) as a kafka-python :class:`ApiMessage`: it then travels on the admin
client's own connections, with their TLS and SASL, and its version is negotiated as any other.
"""

from __future__ import annotations

import sys

from kafka.protocol.api_message import ApiMessage

_HERE = sys.modules[__name__]


class ConsumerGroupDescribeRequest(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    """GroupIds, IncludeAuthorizedOperations."""


class ConsumerGroupDescribeResponse(ApiMessage, load_json=_HERE):  # type: ignore[misc,call-arg]
    """Groups: error, state, epochs, members with their assignment."""
