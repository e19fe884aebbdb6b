"""Which controller's reports to believe: only the active one's.

A controller that was stopped (a long GC pause, SIGSTOP) and resumes still runs its timers for
a moment before it learns it was replaced: seen here after a 12 s stop of the active KRaft
controller, the former controller logged "Fencing broker N ... session has timed out" about a
healthy broker while the new controller logged nothing of the kind. So a controller's report
about another broker (a broker failure) counts only when its logger was the active controller
at that moment: the newest election (``controller_change``, by time, then by controller epoch)
at or before the report. With no election seen yet every report counts. In KRaft the
quorum's own lines name the leader of each epoch too (``quorum_leader``: a standby's "In the
new epoch E, the leader is L.", the winner's Raft "Completed transition to Leader"), which
tells who is active when the new controller's own line is late or lost.
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.inputs import LogEvent

REPORT_TYPES = ("broker_failure", "broker_unfenced")
"""Events a controller logs about other brokers."""
ELECTION_TYPES = ("controller_change", "quorum_leader")
"""Events that name the controller elected (``subject_broker_id``, else the logger)."""

KEPT_ELECTIONS = 32


class ActiveController:
    """The elections seen (time, epoch, controller id) and the reports set aside."""

    def __init__(self) -> None:
        self._elections: list[tuple[int, int, str]] = []
        self.untrusted = 0
        """Reports dropped because their logger was not the active controller."""

    def trusted(self, events: list[LogEvent]) -> list[LogEvent]:
        """``events`` minus the reports of a controller that was not the active one."""
        for e in events:
            if e.type in ELECTION_TYPES and e.event_ms is not None:
                elected = e.subject_broker_id if e.subject_broker_id is not None else e.broker_id
                if elected is not None:
                    self._elections.append((e.event_ms, e.leader_epoch or -1, str(elected)))
        self._elections = sorted(set(self._elections))[-KEPT_ELECTIONS:]
        kept = []
        for e in events:
            if e.type in REPORT_TYPES and not self._from_active(e):
                self.untrusted += 1
                continue
            kept.append(e)
        return kept

    def active_at(self, at_ms: int) -> str | None:
        """The controller of the newest election at or before ``at_ms`` (by time, then epoch)."""
        before = [e for e in self._elections if e[0] <= at_ms]
        return max(before)[2] if before else None

    def _from_active(self, report: LogEvent) -> bool:
        if report.event_ms is None or report.broker_id is None:
            return True
        active = self.active_at(report.event_ms)
        return active is None or active == report.broker_id

    def state(self) -> dict[str, Any]:
        return {"elections": [list(e) for e in self._elections], "untrusted": self.untrusted}

    def restore(self, state: dict[str, Any]) -> None:
        self._elections = [
            (int(ms), int(ep), str(who)) for ms, ep, who in state.get("elections", [])
        ]
        self.untrusted = int(state.get("untrusted", 0))
