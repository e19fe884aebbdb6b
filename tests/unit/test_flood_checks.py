"""The flood's page count: incidents, not notifications (an update in place is one page)."""

from kafka_health.dev.flood_job import FloodRun, _rejection_pages


def _run(pages: list[tuple[str, list[tuple[str, str]]]]) -> FloodRun:
    return FloodRun(
        signals={}, rejected={}, entries=0, series={}, series_dropped={}, alerts_dropped={},
        active=set(), pages=[p for _, p in pages], page_groups=[g for g, _ in pages],
        state_bytes=0, restarts=0, rss_kb={}, error_classes=set(), produce_s=0.0,
    )  # fmt: skip


def test_a_stall_joining_the_rejection_incident_is_the_same_page() -> None:
    run = _run([
        ("{}:{}", [("MonitorInputRejected", "")]),
        ("{}:{}", [("MonitorInputRejected", ""), ("MonitorStalled", "")]),
        ('{}:{broker_id="9"}', [("CanaryWriteFailure", "9")]),
    ])  # fmt: skip
    assert _rejection_pages(run) == 1


def test_two_incidents_saying_input_is_rejected_are_two_pages() -> None:
    run = _run([("a", [("MonitorInputRejected", "")]), ("b", [("MonitorInputRejected", "")])])
    assert _rejection_pages(run) == 2
