"""The record the shipper produces: key = broker id (UTF-8), value = the JSON envelope.

```json
{"schema": "kafka-health/log/v1", "broker_id": "1", "host": "kafka-1.example",
 "kind": "server", "path": "/var/log/kafka/server.log", "offset": 12345, "inode": 1311,
 "message": "[2026-11-22 10:00:00,123] INFO ... (kafka.cluster.Partition)",
 "shipped_at": "2026-11-22T10:00:00.200Z"}
```

``offset`` is the byte offset of the entry's first line in the file whose inode is ``inode``;
``message`` is the whole entry, continuation lines joined with ``"\\n"``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

SCHEMA = "kafka-health/log/v1"
KINDS = ("server", "controller", "state-change", "gc", "other")


def iso_millis(epoch_s: float) -> str:
    """``2026-11-22T10:00:00.200Z`` for a Unix time."""
    moment = datetime.fromtimestamp(epoch_s, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def encode(
    *,
    broker_id: str,
    host: str,
    kind: str,
    path: str,
    offset: int,
    inode: int,
    message: bytes,
    shipped_at: str,
) -> tuple[bytes, bytes]:
    """The record's key and value. Invalid UTF-8 in the log is replaced, not dropped."""
    value = {
        "schema": SCHEMA,
        "broker_id": broker_id,
        "host": host,
        "kind": kind,
        "path": path,
        "offset": offset,
        "inode": inode,
        "message": message.decode("utf-8", errors="replace"),
        "shipped_at": shipped_at,
    }
    return broker_id.encode(), json.dumps(value, ensure_ascii=False).encode()
