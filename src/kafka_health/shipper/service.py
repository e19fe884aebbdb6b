"""The shipper's loop: tail -> join lines -> envelope -> send -> acknowledge -> save positions.

One thread does all the bookkeeping (the producer only queues its completions), so a step is
easy to reason about and to drive from a test with an injected clock and a fake producer.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kafka_health.shipper.config import ShipperConfig
from kafka_health.shipper.envelope import encode, iso_millis
from kafka_health.shipper.metrics import ShipperMetrics
from kafka_health.shipper.multiline import Entry, Joiner, start_pattern
from kafka_health.shipper.positions import AckTracker, PositionsFile
from kafka_health.shipper.sender import Outbound, ProducerLike, Sender
from kafka_health.shipper.tailer import FileId, SavedPosition, Source, TailedFile, Tailer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _SourceInfo:
    source: Source
    host: str
    kind: str
    multiline_start: str | None

    @property
    def labels(self) -> tuple[str, str, str]:
        return (self.source.broker_id, self.kind, self.source.pattern)


@dataclass
class _FileState:
    info: _SourceInfo
    joiner: Joiner
    path: str
    inode: int
    size: int = 0
    mtime: float = 0.0
    closed: bool = False


class Shipper:
    """Ships the configured files to ``topic`` at least once. Call :meth:`step` in a loop."""

    def __init__(
        self,
        config: ShipperConfig,
        topic: str,
        producer: ProducerLike,
        *,
        metrics: ShipperMetrics | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.metrics = metrics or ShipperMetrics()
        self.clock = clock
        self.wall_clock = wall_clock
        hostname = socket.gethostname()
        self._infos: dict[tuple[str, str], _SourceInfo] = {}
        for broker in config.brokers:
            for f in broker.files:
                source = Source(broker.broker_id, f.pattern, is_glob=f.glob is not None)
                info = _SourceInfo(source, broker.host or hostname, f.kind, f.multiline_start)
                self._infos[source.key] = info
                self.metrics.declare_file(*info.labels)
        self.positions = PositionsFile(config.positions_file)
        self.tailer = Tailer(
            [i.source for i in self._infos.values()],
            read_chunk_bytes=config.read_chunk_bytes,
            max_line_bytes=config.max_entry_bytes,
            rotated_grace_s=config.rotated_grace_s,
            start_at_end=config.start_at == "end" and not self.positions.exists(),
        )
        self.tailer.restore(self.positions.load(), clock())
        self.tracker = AckTracker()
        self.sender = Sender(
            producer,
            topic,
            backoff_s=config.retry_backoff_s,
            backoff_max_s=config.retry_backoff_max_s,
            on_error=lambda name: self.metrics.send_errors.labels(name).inc(),
        )
        self.metrics.buffer_limit_entries.set(config.buffer_max_entries)
        self._files: dict[FileId, _FileState] = {}
        self._paused = False
        self._dirty = True
        self._saved_at = float("-inf")

    # ------------------------------------------------------------------ the loop

    def run(self, stop: threading.Event, shutdown_timeout_s: float = 10.0) -> None:
        """Step until ``stop`` is set, then deliver what was read and save positions."""
        try:
            while not stop.is_set():
                if not self.step():
                    stop.wait(self.config.poll_interval_s)
        finally:
            self.close(shutdown_timeout_s)

    def step(self) -> bool:
        """One round; True when lines were read (more may be waiting: do not sleep)."""
        now = self.clock()
        self._handle_acks(self.sender.poll(now))
        full = self.sender.depth >= self.config.buffer_max_entries
        self._set_paused(full)
        reads = self.tailer.poll(now, read=not full)
        busy = False
        for event in reads:
            state = self._state(event.file)
            labels = state.info.labels
            if event.rotated:
                self.metrics.rotations.labels(*labels).inc()
            if event.truncated:
                self.metrics.truncations.labels(*labels).inc()
                self._send(state, event.file.fid, state.joiner.flush(), now)
            if event.lines:
                busy = True
                self.metrics.read_bytes.labels(*labels).inc(
                    event.lines[-1].end - event.lines[0].offset
                )
                self._send(state, event.file.fid, state.joiner.feed(event.lines, now), now)
            if event.closed:
                self._send(state, event.file.fid, state.joiner.flush(), now)
                state.closed = True
        for tailed in self.tailer.files.values():
            self._state(tailed)
        for fid, state in self._files.items():
            self._send(state, fid, state.joiner.flush_due(now), now)
        self._forget_finished()
        self._update_gauges()
        if self._dirty and now - self._saved_at >= self.config.positions_interval_s:
            self.save_positions(now)
        return busy

    def close(self, timeout_s: float = 10.0) -> None:
        """Send the entries still being joined, wait for acknowledgements, save positions."""
        now = self.clock()
        for fid, state in self._files.items():
            self._send(state, fid, state.joiner.flush(), now)
        deadline = self.clock() + timeout_s
        while self.sender.depth > 0 and self.clock() < deadline:
            self.sender.flush(min(1.0, max(0.0, deadline - self.clock())))
            self._handle_acks(self.sender.poll(self.clock()))
        if self.sender.depth:
            log.warning("%d entries were not acknowledged before shutdown: they will be sent "
                        "again on the next start", self.sender.depth)  # fmt: skip
        self.save_positions(self.clock())
        try:
            self.sender.producer.close(timeout=1.0)
        finally:
            self.tailer.close()

    # ------------------------------------------------------------------ positions

    def saved_positions(self) -> list[SavedPosition]:
        """What the positions file gets: the acknowledged offset of every tracked file."""
        result = []
        for fid in self.tracker.files():
            state = self._files.get(fid)
            committed = self.tracker.committed(fid)
            if state is None or committed is None:
                continue
            tailed = self.tailer.files.get(fid)
            head_len, head_sha1 = tailed.head(committed) if tailed is not None else (0, "")
            source = state.info.source
            result.append(
                SavedPosition(fid, source.broker_id, source.pattern, state.path, committed,
                              state.mtime, head_len, head_sha1)
            )  # fmt: skip
        return result

    def save_positions(self, now: float) -> None:
        try:
            self.positions.save(self.saved_positions())
        except OSError as exc:
            log.error("cannot write positions file %s: %s", self.positions.path, exc)
            return
        self._saved_at = now
        self._dirty = False
        self.metrics.positions_saved.set(self.wall_clock())

    # ------------------------------------------------------------------ internals

    def _state(self, tailed: TailedFile) -> _FileState:
        state = self._files.get(tailed.fid)
        if state is None:
            info = self._infos[tailed.source.key]
            joiner = Joiner(
                start_pattern(info.multiline_start),
                self.config.max_entry_bytes,
                self.config.flush_timeout_s,
            )
            state = _FileState(info, joiner, tailed.path, tailed.fid.ino)
            self._files[tailed.fid] = state
            self.tracker.track(tailed.fid, tailed.start_offset)
            self._dirty = True
        state.size, state.mtime = tailed.size, tailed.mtime
        return state

    def _send(self, state: _FileState, fid: FileId, entries: list[Entry], now: float) -> None:
        if not entries:
            return
        labels = state.info.labels
        info = state.info
        shipped_at = iso_millis(self.wall_clock())
        for entry in entries:
            key, value = encode(
                broker_id=info.source.broker_id,
                host=info.host,
                kind=info.kind,
                path=state.path,
                offset=entry.offset,
                inode=state.inode,
                message=entry.data,
                shipped_at=shipped_at,
            )
            seq = self.tracker.add(fid, entry.end)
            self.sender.submit(Outbound(key, value, (fid, seq, labels, len(entry.data))), now)
            if entry.split:
                self.metrics.entries_split.labels(*labels).inc()
        self.metrics.entries_read.labels(*labels).inc(len(entries))

    def _handle_acks(self, acked: list[Outbound]) -> None:
        for record in acked:
            fid, seq, labels, size = record.meta
            if self.tracker.ack(fid, seq):
                self._dirty = True
            self.metrics.entries_sent.labels(*labels).inc()
            self.metrics.sent_bytes.labels(*labels).inc(size)

    def _forget_finished(self) -> None:
        for fid, state in list(self._files.items()):
            if state.closed and self.tracker.in_flight(fid) == 0:
                self.tracker.forget(fid)
                del self._files[fid]
                self._dirty = True

    def _set_paused(self, full: bool) -> None:
        if full and not self._paused:
            log.warning(
                "buffer full (%d entries not acknowledged by Kafka): reading paused, the log "
                "files are the buffer until Kafka catches up",
                self.sender.depth,
            )
        elif not full and self._paused:
            log.info("buffer below its bound again: reading resumed")
        self._paused = full

    def _update_gauges(self) -> None:
        m = self.metrics
        m.buffer_entries.set(self.sender.depth)
        m.reading_paused.set(1 if self._paused else 0)
        m.files_open.set(len(self.tailer.files))
        lag: dict[tuple[str, str, str], int] = {i.labels: 0 for i in self._infos.values()}
        for fid, state in self._files.items():
            committed = self.tracker.committed(fid) or 0
            lag[state.info.labels] += max(0, state.size - committed)
        for labels, value in lag.items():
            m.lag_bytes.labels(*labels).set(value)
