"""The sliding window of broker log events that GC, incident and election detectors share.

Events count for the broker they are about: an election for its new leader, a broker failure
or controlled shutdown for the broker the controller saw, anything else for the broker that
logged it. The window ends at the first slide boundary after the newest windowed event of any
type (the log stream's own clock), so replayed logs give the same figures as live ones.
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import LogEvent
from kafka_health.detectors.windows import current_window_end_ms, window_start_ms

LOG_CLOCK = "log_clock"
"""Not a log line: what moves the log clock when the logs wrote no event. A replay folds one
for each step in which the logs wrote nothing (a failure report leaves the window after
``window_s`` of quiet). The live job folds one for each batch that held broker-log records, at
their newest shipping time less one window (:func:`shipping_clock`): the ordinary lines that
fill a healthy broker's log are not events, and without it a window's count (4 elections a
minute after a restart, seen in the fault bench) stayed until the next event, minutes later
on a quiet cluster. A silent stream moves nothing: its absence is a silence, not health. No
detector keeps it."""

WINDOWED_TYPES = (
    "full_gc", "young_gc", "leader_change", "zk_session_expired", "zk_disconnected",
    "controller_change", "broker_failure", "controlled_shutdown", "shutdown_signal",
    "processor_uncaught_exception",
    "log_cleaner_died", "not_leader", "min_isr_violation", LOG_CLOCK,
)  # fmt: skip


def shipping_clock(shipped_ms: int, job: JobConfig) -> LogEvent:
    """The log clock a batch of broker-log records shipped up to ``shipped_ms`` proves.

    A record's Kafka timestamp is when it was shipped, a moment after it was written, or
    much later when a shipper works off a backlog of its own (it was down, the transport
    was). The clock is held one window behind it, so that a backlog's events up to a window
    late still count in full, and a window's count is gone at most one window after its last
    event would have left it. Records folded again after a restart keep their timestamps."""
    return LogEvent(LOG_CLOCK, None, shipped_ms - round(job.window_s * 1000))


def subject(event: LogEvent) -> str:
    """The broker an event counts for."""
    if event.type == "leader_change" and event.leader is not None:
        return str(event.leader)
    if (
        event.type in ("broker_failure", "controlled_shutdown", "shutdown_signal")
        and event.subject_broker_id is not None
    ):
        return str(event.subject_broker_id)
    return event.broker_id or "unknown"


class LogWindow:
    """Kept events of ``types`` (``[event_ms, broker, type, *extra]``) and the log clock."""

    def __init__(self, job: JobConfig, types: tuple[str, ...]) -> None:
        self._job = job
        self._types = types
        self.kept: list[list[Any]] = []
        self.latest_ms = 0

    def add(self, events: list[LogEvent], extra: Any = None) -> None:
        """Keep the wanted events (``extra(event)`` gives the stored fields after the type)."""
        for e in events:
            if e.type not in WINDOWED_TYPES or e.event_ms is None:
                continue
            self.latest_ms = max(self.latest_ms, e.event_ms)
            if e.type in self._types:
                fields = list(extra(e)) if extra is not None else []
                self.kept.append([e.event_ms, subject(e), e.type, *fields])
        start = window_start_ms(self.end_ms(), self._job.window_s)
        self.kept = [k for k in self.kept if k[0] >= start]

    def end_ms(self) -> int:
        return current_window_end_ms(self.latest_ms, self._job.slide_s)

    def current(self) -> list[list[Any]]:
        """Kept events inside the current window."""
        end = self.end_ms()
        start = window_start_ms(end, self._job.window_s)
        return [k for k in self.kept if start <= k[0] < end]

    def state(self) -> dict[str, Any]:
        return {"kept": self.kept, "latest_ms": self.latest_ms}

    def restore(self, state: dict[str, Any]) -> None:
        self.kept = [list(k) for k in state.get("kept", [])]
        self.latest_ms = int(state.get("latest_ms", 0))
