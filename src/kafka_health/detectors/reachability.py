"""Whether each broker answers: the job's pings (:mod:`kafka_health.reachability`) judged on
the clock, whatever the broker leads.

Inputs: the brokers the cluster's metadata lists, with their addresses (:meth:`listed`); the
pings' outcomes (:meth:`answered`); the cluster-state snapshots of the batches (:meth:`fold`),
which say which brokers are still members (registered, or holding replicas: a dead broker
leaves the metadata but not the replica sets). The brokers to ping (:meth:`targets`) are the
listed ones and the remembered ones still members (with no snapshot at all: remembered for
``forget_after_s`` after they left the metadata), so a dead broker stays pinged, and
reported, until it returns or is removed from the cluster.

Signal ``broker_unanswered_seconds{broker_id, reason}`` per pinged broker: 0 with reason
``answered`` while its last ping was answered; otherwise the seconds since it last answered
(since it was first pinged, if never), reason the last ping's failure (``refused``,
``timeout``, ...). It is computed from elapsed time, so it grows on every tick with no new
ping: a ping still in flight is bounded by its deadline and then reported as failed.

On a TLS listener, a ``tls`` failure says why in the details (``tls_failure``: ``expired``,
``not_yet_valid``, ``unknown_authority``, ``name_mismatch`` or ``handshake_failed``), and its
``error`` text says it in words.

Signal ``broker_certificate_expiry_timestamp_seconds{broker_id}``: when the certificate the
broker presented at its last completed TLS handshake expires (its ``notAfter``, epoch
seconds; the leaf certificate), details its subject, issuer, serial and days left. Kept while
the broker fails its pings (an expired certificate fails every handshake after it); none for a
plaintext listener, or before the first handshake.

Signal ``broker_shutdown_evidence{broker_id, evidence}``: 1 while a broker whose port refused
after an answer has not answered again, ``evidence`` what the metadata said of it then
(:mod:`kafka_health.reachability.shutdown_evidence`: ``controlled_shutdown``, ``crash`` or
``unknown``); no series before the verdict, nor once the broker answers again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import Any

from kafka_health.detectors.inputs import Batch
from kafka_health.model import Signal, labels
from kafka_health.reachability.config import ReachabilityConfig
from kafka_health.reachability.ping import ANSWERED, Address, Certificate, Ping
from kafka_health.reachability.shutdown_evidence import Evidence

MAX_OPEN_SNAPSHOTS = 4
"""Snapshots whose closing record has not come yet, kept (a failed one never closes)."""


@dataclass
class _Broker:
    host: str
    port: int
    listed: float  # last time the metadata listed it (epoch s)
    first_pinged: float | None = None
    answered: float | None = None  # last time it answered
    outcome: str | None = None  # the last ping's outcome
    outcome_at: float | None = None
    detail: str = ""
    tls_failure: str = ""  # why the last ping's TLS handshake failed
    failing_since: float | None = None
    """Restored: since when it had not answered when the previous process stopped (its
    failure continues until this process sees an answer)."""


@dataclass(frozen=True)
class Unanswered:
    """One pinged broker at a moment: how long it has not answered, and why."""

    address: str
    outcome: str
    seconds: float
    last_answered_at: float | None
    since: float | None
    error: str
    tls_failure: str = ""

    def details(self) -> dict[str, Any]:
        return {"address": self.address, "outcome": self.outcome,
                "last_answered_at": self.last_answered_at, "since": self.since,
                "error": self.error, "tls_failure": self.tls_failure}  # fmt: skip


@dataclass(frozen=True)
class SeenCertificate:
    """A broker's certificate, as its last completed TLS handshake showed it (at ``seen_at``)."""

    certificate: Certificate
    seen_at: float


class Reachability:
    name = "reachability"

    def __init__(self, config: ReachabilityConfig | None = None) -> None:
        self._config = config or ReachabilityConfig()
        self._brokers: dict[int, _Broker] = {}
        self._members: set[int] | None = None  # brokers of the newest complete snapshot
        self._members_at = 0
        self._snapshot: dict[int, set[int]] = {}  # snapshot_ms -> brokers so far
        self._evidence: dict[int, Evidence] = {}  # broker -> the verdict on its outage
        self._certificates: dict[int, SeenCertificate] = {}  # not saved: seen again at once

    # ------------------------------------------------------------------ inputs

    def listed(self, brokers: dict[int, Address], now: float) -> None:
        """The metadata's brokers and addresses at ``now``."""
        for broker_id, (host, port) in brokers.items():
            entry = self._brokers.get(broker_id)
            if entry is None:
                self._brokers[broker_id] = _Broker(host, port, now)
            else:
                entry.host, entry.port, entry.listed = host, port, now
        self._forget(now)

    def answered(self, pings: list[Ping]) -> None:
        """Pings' outcomes; a ping older than the broker's last one is ignored."""
        for p in sorted(pings, key=lambda p: p.finished):
            entry = self._brokers.get(p.broker_id)
            if entry is None or (entry.outcome_at is not None and p.finished < entry.outcome_at):
                continue
            if entry.first_pinged is None:
                entry.first_pinged = p.started
            entry.outcome, entry.outcome_at, entry.detail = p.outcome, p.finished, p.detail
            entry.tls_failure = p.tls_failure
            if p.certificate is not None:
                self._certificates[p.broker_id] = SeenCertificate(p.certificate, p.finished)
            elif p.answered:  # answered without TLS: no certificate to report
                self._certificates.pop(p.broker_id, None)
            if p.answered:
                entry.answered = p.finished
                entry.failing_since = None

    def evidence(self, evidence: Evidence) -> None:
        """The metadata's verdict on a broker whose port refused (kept while the outage lasts:
        dropped once the broker answers after the refusal)."""
        if evidence.broker_id in self._brokers:
            self._evidence[evidence.broker_id] = evidence

    def fold(self, batch: Batch, now: float) -> None:
        """Membership from the cluster-state snapshots: a snapshot's broker records, complete
        once its closing record arrives and they are all there. A batch's records come in no
        order (taken in the order they came, a closing record before its broker records made
        a dead broker no member, forgotten: seen in the fault suite's monitor-kills), and a
        snapshot whose first records an earlier process read is partial here: kept out."""
        for r in sorted(batch.cluster, key=lambda r: (r.at_ms, r.kind == "snapshot")):
            if r.kind == "broker" and r.broker_id is not None and r.at_ms > self._members_at:
                self._snapshot.setdefault(r.at_ms, set()).add(r.broker_id)
            elif r.kind == "snapshot" and r.at_ms > self._members_at:
                members = self._snapshot.pop(r.at_ms, set())
                self._snapshot = {at: b for at, b in self._snapshot.items() if at > r.at_ms}
                if r.brokers is not None and len(members) != r.brokers:
                    continue  # partial: its first broker records came before this process
                self._members = members
                self._members_at = r.at_ms
        for at in sorted(self._snapshot)[:-MAX_OPEN_SNAPSHOTS]:  # never closed: a failed one
            del self._snapshot[at]
        self._forget(now)

    # ------------------------------------------------------------------ outputs

    def targets(self) -> dict[int, Address]:
        """The brokers to ping, with their addresses."""
        return {b: (e.host, e.port) for b, e in sorted(self._brokers.items())}

    def signals(self, now: float) -> list[Signal]:
        return [
            Signal("broker_unanswered_seconds", labels(broker_id=broker_id, reason=u.outcome),
                   u.seconds, now, u.details())
            for broker_id, u in self.unanswered(now).items()
        ] + [
            Signal("broker_shutdown_evidence", labels(broker_id=broker_id, evidence=e.verdict),
                   1.0, now, e.details())
            for broker_id, e in sorted(self.evidence_now().items())
        ] + [
            Signal("broker_certificate_expiry_timestamp_seconds", labels(broker_id=broker_id),
                   seen.certificate.not_after, seen.seen_at,
                   {"address": self._address(broker_id), "seen_at": seen.seen_at,
                    **seen.certificate.details(now)})
            for broker_id, seen in sorted(self.certificates().items())
        ]  # fmt: skip

    def certificates(self) -> dict[int, SeenCertificate]:
        """Each pinged broker's certificate, as its last completed TLS handshake showed it."""
        for broker_id in [b for b in self._certificates if b not in self._brokers]:
            del self._certificates[broker_id]
        return dict(self._certificates)

    def _address(self, broker_id: int) -> str:
        e = self._brokers[broker_id]
        host = f"[{e.host}]" if ":" in e.host else e.host  # an IPv6 address
        return f"{host}:{e.port}"

    def evidence_now(self) -> dict[int, Evidence]:
        """The verdicts on the outages still going on (a broker that answered since its
        refusal has none)."""
        for broker_id, e in list(self._evidence.items()):
            entry = self._brokers.get(broker_id)
            if entry is None or (entry.answered is not None and entry.answered > e.refused_at):
                del self._evidence[broker_id]
        return dict(self._evidence)

    def unanswered(self, now: float) -> dict[int, Unanswered]:
        """Each pinged broker's seconds without an answer at ``now`` (0 while it answers);
        a broker not pinged yet is unknown, and left out."""
        out: dict[int, Unanswered] = {}
        for broker_id, e in sorted(self._brokers.items()):
            if e.outcome is None:
                continue  # not pinged yet: unknown
            if e.outcome == ANSWERED:
                value, since = 0.0, e.answered
            else:
                since = _failing_since(e, now)
                value = max(0.0, now - since)
            out[broker_id] = Unanswered(self._address(broker_id), e.outcome, round(value, 3),
                                        e.answered, since, e.detail, e.tls_failure)  # fmt: skip
        return out

    def forget(self, broker_ids: set[int]) -> None:
        """Stop pinging these brokers (and forget what their pings said)."""
        for broker_id in broker_ids:
            self._brokers.pop(broker_id, None)
            self._evidence.pop(broker_id, None)
            self._certificates.pop(broker_id, None)

    # ------------------------------------------------------------------ state

    def _forget(self, now: float) -> None:
        """Drop the brokers no longer in the cluster (see the module docstring)."""
        for broker_id, e in list(self._brokers.items()):
            if e.listed >= now - 1e-9:
                continue  # listed now
            if self._members is not None:
                gone = broker_id not in self._members and e.listed * 1000 < self._members_at
            else:
                gone = now - e.listed > self._config.forget_after_s
            if gone:
                del self._brokers[broker_id]

    def state(self) -> dict[str, Any]:
        return {
            "brokers": {str(b): asdict(e) for b, e in self._brokers.items()},
            "members": None if self._members is None else sorted(self._members),
            "members_at": self._members_at,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """The brokers, addresses and last answers. A broker that answered is unknown until
        this process pings it; one that did not answer stays failing, counted from when it
        stopped answering, until this process hears from it: a restart is no outage, and an
        incident open across the job's restart must not resolve while Spark starts (seen:
        ten SIGKILLs of the job with two brokers down resolved and re-paged them)."""
        self._brokers = {}
        for b, e in state.get("brokers", {}).items():
            entry = _Broker(e["host"], int(e["port"]), float(e["listed"]), answered=e["answered"])
            outcome = e.get("outcome")
            if outcome is not None and outcome != ANSWERED:
                saved = dataclasses.replace(
                    entry, first_pinged=e.get("first_pinged"), failing_since=e.get("failing_since")
                )
                entry.outcome, entry.outcome_at = outcome, e.get("outcome_at")
                entry.detail = str(e.get("detail", ""))
                entry.tls_failure = str(e.get("tls_failure", ""))
                entry.failing_since = _failing_since(saved, float(e.get("outcome_at") or 0.0))
            self._brokers[int(b)] = entry
        members = state.get("members")
        self._members = None if members is None else {int(b) for b in members}
        self._members_at = int(state.get("members_at", 0))
        self._snapshot = {}


def _failing_since(e: _Broker, now: float) -> float:
    """Since when a broker whose last ping failed has not answered: its last answer, but from
    this process's first ping at the earliest (a restarted job does not count its own downtime
    against a broker that answered before it), unless it was already failing then."""
    if e.failing_since is not None:
        return max(e.failing_since, e.answered or 0.0)
    known = [t for t in (e.answered, e.first_pinged) if t is not None]
    return max(known) if known else now
