"""The outbox on disk: what a dropped notification hands on to the next one of its group, and
what a restart finds."""

from __future__ import annotations

from pathlib import Path

from kafka_health.alerting.notification import Notification
from kafka_health.alerting.notify_log import Entry, NotifiedAlert
from kafka_health.alerting.outbox import Outbox


def notification(key: str, group: str = '{broker_id="1"}') -> Notification:
    return Notification("pager", group, {}, "firing", "first", key, [])


def test_a_dropped_notification_hands_what_it_owed_to_the_next_of_its_group(
    tmp_path: Path,
) -> None:
    before = Entry({"fp": NotifiedAlert(1.0, {"alertname": "A"})}, 5.0).to_json()
    outbox = Outbox(tmp_path, 3600, now=10.0)
    assert outbox.enqueue(notification("k1"), 10.0, told_before=before)
    assert outbox.enqueue(notification("k2"), 11.0, told_before={"firing": {}, "notified_at": 10})
    assert outbox.enqueue(notification("k3", group="{}"), 11.0)
    first = outbox.pending()[0]
    outbox.drop(first)
    assert outbox.pass_on(first)
    # The next of the same group now owes the state before the dropped one, on disk too.
    reopened = Outbox(tmp_path, 3600, now=12.0)
    heads = {e.notification.idempotency_key: e for e in reopened.pending()}
    assert set(heads) == {"k2", "k3"}
    assert heads["k2"].told_before == before
    assert Entry.from_json(before).firing["fp"].starts_at == 1.0
    last = heads["k2"]
    reopened.drop(last)
    assert not reopened.pass_on(last), "none left in its group: the caller restores the log"


def test_a_notification_logged_as_delivered_is_not_sent_again_after_a_kill(
    tmp_path: Path,
) -> None:
    """``delivered`` logs the key, then removes the notification's file: a kill -9 between the
    two leaves both on disk. The restarted outbox owes nothing for it."""
    outbox = Outbox(tmp_path, 3600, now=10.0)
    assert outbox.enqueue(notification("k1"), 10.0)
    assert outbox.enqueue(notification("k2"), 10.0, told_before=None)
    [first, _second] = outbox.pending()
    saved = (tmp_path / f"{first.seq:012d}.json").read_text()
    outbox.delivered(first, 11.0)
    (tmp_path / f"{first.seq:012d}.json").write_text(saved)  # as if killed before the removal
    reopened = Outbox(tmp_path, 3600, now=12.0)
    assert [e.notification.idempotency_key for e in reopened.pending()] == ["k2"]
    assert [e.notification.idempotency_key for e in reopened.due(12.0)] == ["k2"]
    assert not (tmp_path / f"{first.seq:012d}.json").exists(), "its file is gone too"
    assert reopened.was_delivered("pager", "k1")
    assert not reopened.enqueue(notification("k1"), 12.0), "nor is it enqueued again"
