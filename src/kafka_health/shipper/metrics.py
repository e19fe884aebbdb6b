"""The shipper's own Prometheus metrics (``kafka_health_shipper_*``).

Per-file series are labelled by ``broker_id``, ``kind`` and ``file`` = the configured path or
glob (not the rotated names), so the label set is bounded by the config. Send errors are
labelled by the error's class name. Every per-file series exists at zero from the start.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge

FILE_LABELS = ("broker_id", "kind", "file")
PREFIX = "kafka_health_shipper"


class ShipperMetrics:
    """The metrics of one shipper, in their own registry (several shippers fit one process)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = r = registry or CollectorRegistry()

        def per_file(kind: type[Counter] | type[Gauge], name: str, doc: str) -> Any:
            return kind(f"{PREFIX}_{name}", doc, FILE_LABELS, registry=r)

        def single(kind: type[Counter] | type[Gauge], name: str, doc: str) -> Any:
            return kind(f"{PREFIX}_{name}", doc, registry=r)

        self.entries_read = per_file(Counter, "entries_read", "Log entries read from the file.")
        self.entries_sent = per_file(Counter, "entries_sent", "Log entries Kafka acknowledged.")
        self.read_bytes = per_file(Counter, "read_bytes", "Bytes of log entries read.")
        self.sent_bytes = per_file(
            Counter,
            "sent_bytes",
            "Bytes of log entries Kafka acknowledged (the message, not the envelope).",
        )
        self.entries_split = per_file(
            Counter,
            "entries_split",
            "Entries cut because they passed max_entry_bytes (nothing is dropped).",
        )
        self.rotations = per_file(
            Counter, "rotations", "Files renamed or removed under the shipper."
        )
        self.truncations = per_file(
            Counter, "truncations", "Files truncated under the shipper (copytruncate)."
        )
        self.lag_bytes = per_file(
            Gauge, "lag_bytes", "Bytes between the acknowledged position and the end of the files."
        )
        self.send_errors = Counter(
            f"{PREFIX}_send_errors",
            "Failed sends (each is retried with backoff), by error class.",
            ("error",),
            registry=r,
        )
        self.buffer_entries = single(
            Gauge, "buffer_entries", "Entries read but not yet acknowledged by Kafka."
        )
        self.buffer_limit_entries = single(
            Gauge, "buffer_limit_entries", "The bound of the buffer; reading stops there."
        )
        self.reading_paused = single(
            Gauge, "reading_paused", "1 while reading is stopped because the buffer is full."
        )
        self.files_open = single(Gauge, "files_open", "Files being followed.")
        self.positions_saved = single(
            Gauge,
            "positions_saved_timestamp_seconds",
            "When the positions file was last written.",
        )

    def declare_file(self, broker_id: str, kind: str, file: str) -> None:
        """Create a configured file's series at zero."""
        for metric in (
            self.entries_read, self.entries_sent, self.read_bytes, self.sent_bytes,
            self.entries_split, self.rotations, self.truncations, self.lag_bytes,
        ):  # fmt: skip
            metric.labels(broker_id, kind, file)
