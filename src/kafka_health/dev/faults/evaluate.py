"""Judge one run from the pages the receiver processed: pure code over a timeline.

- **the page**: the first firing notification carrying an ``expected`` alert about a touched
  broker (or the whole cluster); its latency is from the injection.
- **the cause**: the first notification carrying the scenario's ``cause`` alert.
- **unexpected**: an alert that fired during the run and names a broker the fault did not
  touch, or is not among the alerts the scenario allows (for a no-page scenario: every alert
  but the warnings it tolerates).
- **duplicates**: a notification repeating its group's previous one unchanged (same status,
  same alerts in the same states) under a new idempotency key; an alert firing again after
  it was resolved within the run; a key the receiver accepted twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kafka_health.dev.faults.receiver import Page
from kafka_health.dev.faults.scenarios import Scenario


@dataclass(frozen=True)
class AlertSeen:
    """One alert as it appeared in one notification."""

    at: float
    status: str
    alertname: str
    broker_id: str
    fingerprint: str
    group_key: str
    cause: str
    starts_at: float | None = None
    """When the alert's condition began to hold, as the monitor says (``startsAt``)."""
    details: str = ""
    """The alert's details annotation (error classes, partitions), to explain a surprise."""

    def to_json(self) -> dict[str, Any]:
        return {
            "at": round(self.at, 3),
            "status": self.status,
            "alertname": self.alertname,
            "broker_id": self.broker_id,
            "fingerprint": self.fingerprint,
            "group_key": self.group_key,
            "cause": self.cause,
            "starts_at": self.starts_at,
            "details": self.details,
        }


@dataclass
class Verdict:
    first_page_at: float | None = None
    first_page_alert: AlertSeen | None = None
    cause_named_at: float | None = None
    alerts: list[AlertSeen] = field(default_factory=list)
    unexpected: list[AlertSeen] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    incidents: int = 0
    """Distinct groups (incidents at the pager) opened during the run."""


def alerts_of(pages: Iterable[Page]) -> list[AlertSeen]:
    return [
        AlertSeen(
            at=page.at,
            status=str(alert.get("status", "")),
            alertname=str(alert.get("labels", {}).get("alertname", "")),
            broker_id=str(alert.get("labels", {}).get("broker_id", "")),
            fingerprint=str(alert.get("fingerprint", "")),
            group_key=page.group_key,
            cause=str(alert.get("annotations", {}).get("cause", "")),
            starts_at=_epoch(alert.get("startsAt")),
            details=str(alert.get("annotations", {}).get("details", "")),
        )
        for page in pages
        for alert in page.alerts
    ]


def _epoch(rfc3339: object) -> float | None:
    """Epoch seconds of an RFC 3339 time as Alertmanager payloads carry it (None if absent)."""
    if not isinstance(rfc3339, str) or rfc3339.startswith("0001-"):
        return None
    try:
        return datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def touches(scenario: Scenario, alert: AlertSeen) -> bool:
    """About a broker the fault touched, or about the whole cluster."""
    if not alert.broker_id:
        return True
    return alert.broker_id.isdigit() and int(alert.broker_id) in scenario.targets


def judge(
    scenario: Scenario,
    pages: list[Page],
    repeated_keys: Iterable[str] = (),
    allow: Iterable[str] = (),
) -> Verdict:
    """The verdict on ``pages`` (processed notifications since the injection, in order);
    ``allow`` adds alert names this run may page (e.g. CanaryWritesLost when loss happened)."""
    verdict = Verdict(alerts=alerts_of(pages))
    allowed = {*scenario.expected, *scenario.allowed, *allow}
    if scenario.cause:
        allowed.add(scenario.cause)
    for alert in verdict.alerts:
        if alert.status != "firing" or not touches(scenario, alert):
            continue
        if verdict.first_page_at is None and alert.alertname in scenario.expected:
            verdict.first_page_at = alert.at
            verdict.first_page_alert = alert
        if verdict.cause_named_at is None and alert.alertname == scenario.cause:
            verdict.cause_named_at = alert.at
    seen_unexpected: set[str] = set()
    for alert in verdict.alerts:
        if alert.status != "firing" or alert.fingerprint in seen_unexpected:
            continue
        if not scenario.expects_page:
            wrong = alert.alertname not in scenario.tolerated
        else:
            wrong = not touches(scenario, alert) or alert.alertname not in allowed
        if wrong:
            seen_unexpected.add(alert.fingerprint)
            verdict.unexpected.append(alert)
    verdict.duplicates = duplicates(pages, repeated_keys)
    verdict.incidents = len({p.group_key for p in pages if p.status == "firing"})
    return verdict


def duplicates(pages: list[Page], repeated_keys: Iterable[str] = ()) -> list[str]:
    """Why each duplicate is one (a readable line per duplicate)."""
    found = [f"idempotency key {key} accepted again after its 200" for key in repeated_keys]
    previous: dict[str, tuple[str, tuple[tuple[str, str, str], ...]]] = {}
    resolved: set[str] = set()
    for page in pages:
        # An update that names the cause (the same alerts, a new `cause`) is news, not a repeat.
        content = (
            page.status,
            tuple(
                sorted(
                    (str(a.get("fingerprint")), str(a.get("status")),
                     str(a.get("annotations", {}).get("cause", "")))
                    for a in page.alerts
                )
            ),
        )  # fmt: skip
        if previous.get(page.group_key) == content:
            found.append(f"group {page.group_key} notified again unchanged ({page.status})")
        previous[page.group_key] = content
        for alert in page.alerts:
            fingerprint = str(alert.get("fingerprint"))
            name = alert.get("labels", {}).get("alertname", "?")
            if alert.get("status") == "resolved":
                resolved.add(fingerprint)
            elif fingerprint in resolved:
                found.append(f"{name} ({fingerprint}) fired again after its resolution")
                resolved.discard(fingerprint)
    return found


def resolved(pages: list[Page]) -> bool:
    """Every group opened in ``pages`` has been notified resolved since."""
    latest: dict[str, str] = {}
    for page in pages:
        latest[page.group_key] = page.status
    return all(status == "resolved" for status in latest.values())
