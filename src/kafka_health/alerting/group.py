"""Grouping: alerts with the same ``group_by`` labels (one broker) make one notification.

A group's first notification waits ``group_wait_s`` (so the rest of a sick broker's alerts,
and the causes that explain them, arrive first), or only ``root_group_wait_s`` when every
alert in it is a root cause that no inhibit rule could explain (a Full GC pause over the
session timeout, a lost write: nothing later would change the page); later changes (new
alerts, resolutions) wait until ``group_interval_s`` after the previous notification, as in
Alertmanager; reminders and cause updates (a notified alert's cause is now named: the GC line
a frozen JVM writes when it resumes) go out without waiting.

The waits are short (seconds) because the first page says what is known (the broker, the
symptom, its candidate causes) and the same incident is updated once the cause arrives.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka_health.alerting.notify_log import Entry, NotifyReason


def group_labels(labels: Mapping[str, str], group_by: list[str]) -> dict[str, str]:
    """The alert's values of the grouping labels (absent ones left out: cluster-wide)."""
    return {k: labels[k] for k in group_by if labels.get(k)}


def group_key(labels: Mapping[str, str], group_by: list[str]) -> str:
    """Alertmanager-style ``{broker_id="3"}``; ``{}`` for the cluster-wide group."""
    values = group_labels(labels, group_by)
    return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(values.items())) + "}"


class GroupTimers:
    """When each (receiver, group) first had something to say since it last spoke."""

    def __init__(
        self, group_wait_s: float, group_interval_s: float, root_group_wait_s: float | None = None
    ) -> None:
        self.group_wait_s = group_wait_s
        self.group_interval_s = group_interval_s
        self.root_group_wait_s = group_wait_s if root_group_wait_s is None else root_group_wait_s
        self._pending_since: dict[tuple[str, str], float] = {}
        self._quiet_since: dict[tuple[str, str], float] = {}
        self._due_at: dict[tuple[str, str], float] = {}
        self._held_until: dict[tuple[str, str], float] = {}

    def due(
        self,
        receiver: str,
        key: str,
        reason: NotifyReason | None,
        entry: Entry | None,
        now: float,
        roots_only: bool = False,
    ) -> bool:
        """Whether the notification for ``reason`` should go out now. ``roots_only``: every
        alert in it is a root cause (no inhibit rule could explain it): no late cause is
        awaited, the first notification waits only ``root_group_wait_s``."""
        slot = (receiver, key)
        if reason is None:
            # Keep the slot's place in line for a moment: a symptom muted because its cause
            # just arrived (and the cause not yet firing) must not restart the group wait.
            self._quiet_since.setdefault(slot, now)
            if now - self._quiet_since[slot] > self.group_wait_s:
                self._pending_since.pop(slot, None)
            return False
        self._quiet_since.pop(slot, None)
        since = self._pending_since.setdefault(slot, now)
        held = self._held_until.get(slot)
        if held is not None:
            if now < held:
                self._due_at[slot] = held
                return False
            del self._held_until[slot]
        if reason in (NotifyReason.REPEAT, NotifyReason.CAUSE):
            return True
        if entry is None or reason == NotifyReason.FIRST:
            wait = self.root_group_wait_s if roots_only else self.group_wait_s
            at = since + min(wait, self.group_wait_s)
        else:
            at = entry.notified_at + self.group_interval_s
        if now >= at:
            return True
        self._due_at[slot] = at
        return False

    def begin_evaluation(self) -> None:
        """Forget the due times of the last evaluation: each group still waiting records its
        own again in :meth:`due` (a group whose alerts are gone records none)."""
        self._due_at.clear()

    def next_due(self) -> float | None:
        """The earliest time a group that waited in this evaluation will be due (None: none
        waits), so the evaluation can wake then instead of at its next tick."""
        return min(self._due_at.values(), default=None)

    def hold(self, receiver: str, key: str, until: float) -> None:
        """Nothing for this group before ``until`` (its receiver refused the last one: ask
        again once per group interval, not at every evaluation)."""
        self._held_until[(receiver, key)] = until

    def flushed(self, receiver: str, key: str) -> None:
        self._pending_since.pop((receiver, key), None)
        self._quiet_since.pop((receiver, key), None)
