"""StateWrites: which state files the disk refuses, cleared only by a whole round written."""

from __future__ import annotations

import errno
from pathlib import Path

from kafka_health.alerting.persist import StateWrites


def refuse() -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_refused_write_is_reported_with_its_errno_and_folder(tmp_path: Path) -> None:
    writes = StateWrites()
    assert not writes.attempt("outbox", tmp_path / "x.json", refuse)
    assert writes.failures() == {
        "outbox": f"ENOSPC (No space left on device) writing in {tmp_path}"
    }


def test_one_file_written_does_not_clear_a_store_a_round_without_failure_does(
    tmp_path: Path,
) -> None:
    """An empty file fits on a full disk: the store stays failing until a whole round of
    rewrites succeeds."""
    writes = StateWrites()
    writes.attempt("outbox", tmp_path / "a.json", refuse)
    assert writes.write_json("outbox", tmp_path / "empty.json", {})
    assert "outbox" in writes.failures()

    def round_with_one_refusal() -> None:
        writes.write_json("outbox", tmp_path / "b.json", {})
        writes.attempt("outbox", tmp_path / "c.json", refuse)

    writes.write_again(round_with_one_refusal)
    assert "outbox" in writes.failures()

    def round_with_the_disk_back() -> None:
        writes.write_json("outbox", tmp_path / "c.json", {})

    writes.write_again(round_with_the_disk_back)
    assert writes.failures() == {}
