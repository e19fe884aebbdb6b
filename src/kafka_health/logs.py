"""The processes' Python logging: one format, and the client libraries' repeats collapsed.

While a broker is down, kafka-python logs every refused connection, timed-out request and
expired batch, at ERROR and WARNING: through one CI run of the fault suite (a broker killed, one
frozen, two down while the job was killed ten times, a rolling restart) the canary wrote 780
such lines against its own 12 (BENCHMARKS.md). The page says what is wrong; the log should
show each kind of library message, not bury the process's own lines under its repeats. So a
library record whose shape (:func:`message_shape`) was already logged within
:data:`REPEAT_WINDOW_S` is counted, not written, and the next one of that shape that is written
says how many it stands for. Counts still held at exit are written then.
"""

from __future__ import annotations

import atexit
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LIBRARIES = ("kafka", "py4j")
"""Loggers (and their children) of the client libraries: WARNING and up, repeats collapsed."""
REPEAT_WINDOW_S = 60.0
MAX_SHAPES = 1_000
"""Shapes remembered at once (the oldest forgotten first, its count written)."""
_VARYING = re.compile(r"0x[0-9a-fA-F]+|\d+\.\d+|\d{4,}")


def text_shape(text: str) -> str:
    """``text`` with its hex addresses, decimals and numbers of four digits or more (ports,
    milliseconds, offsets) blanked. Shorter numbers stay, so node 2's refused connections are
    not node 3's."""
    return _VARYING.sub("N", text)


def message_shape(record: logging.LogRecord) -> tuple[str, int, str]:
    """What makes two records repeats: the logger, the level and the message's
    :func:`text_shape`."""
    return record.name, record.levelno, text_shape(record.getMessage())


def is_library(name: str) -> bool:
    """Whether logger ``name`` is one of :data:`LIBRARIES` or below one."""
    return any(name == lib or name.startswith(lib + ".") for lib in LIBRARIES)


@dataclass
class _Seen:
    written_at: float
    suppressed: int = 0
    last: logging.LogRecord | None = None


class RepeatCollapse(logging.Filter):
    """A handler's filter: a library record passes when its shape has not passed within
    ``window_s``; otherwise it is counted. A record that passes after repeats carries their
    count in its message. Records of other loggers always pass. Thread-safe: a handler calls
    its filters before it takes its own lock, from every thread that logs."""

    def __init__(
        self,
        window_s: float = REPEAT_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
        max_shapes: int = MAX_SHAPES,
    ) -> None:
        super().__init__()
        self.window_s = window_s
        self.clock = clock
        self.max_shapes = max_shapes
        self._seen: OrderedDict[tuple[str, int, str], _Seen] = OrderedDict()
        self.suppressed_total = 0
        self._pending: list[logging.LogRecord] = []
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not is_library(record.name):
            return True
        shape = message_shape(record)
        with self._lock:
            return self._passes(record, shape, self.clock())

    def _passes(self, record: logging.LogRecord, shape: tuple[str, int, str], now: float) -> bool:
        seen = self._seen.get(shape)
        if seen is not None and now - seen.written_at < self.window_s:
            seen.suppressed += 1
            seen.last = record
            self.suppressed_total += 1
            return False
        if seen is not None and seen.suppressed:
            _note_repeats(record, seen.suppressed, now - seen.written_at)
        self._seen[shape] = _Seen(written_at=now)
        self._seen.move_to_end(shape)
        while len(self._seen) > self.max_shapes:
            _, oldest = self._seen.popitem(last=False)
            self._pending.extend(_summary(oldest, now))
        return True

    def held_summaries(self) -> list[logging.LogRecord]:
        """For each shape with repeats not yet written, its last repeat carrying their count
        (and the summaries of shapes forgotten meanwhile); the counts are cleared."""
        with self._lock:
            now = self.clock()
            records, self._pending = self._pending, []
            for seen in self._seen.values():
                records.extend(_summary(seen, now))
                seen.suppressed, seen.last = 0, None
            return records


def _summary(seen: _Seen, now: float) -> list[logging.LogRecord]:
    if not seen.suppressed or seen.last is None:
        return []
    _note_repeats(seen.last, seen.suppressed, now - seen.written_at)
    return [seen.last]


REPEATS_NOTE = re.compile(r" \[(\d+) more like this in \d+ s not logged\]$")
"""The note a written record carries for its repeats (group 1: their count)."""


def _note_repeats(record: logging.LogRecord, count: int, span_s: float) -> None:
    """Appends the count of repeats to ``record``'s message (formatted once, here)."""
    record.msg = f"{record.getMessage()} [{count} more like this in {span_s:.0f} s not logged]"
    record.args = None


def configure_logging(verbose: bool = False) -> RepeatCollapse | None:
    """The root logger on stderr in :data:`FORMAT`, libraries at WARNING with their repeats
    collapsed, the counts still held written at exit; returns the filter. A root logger that
    already has handlers (an embedding application, a test) is left as it is: only the
    libraries' level is set, and None returned."""
    for library in LIBRARIES:
        logging.getLogger(library).setLevel(logging.WARNING)
    root = logging.getLogger()
    if root.handlers:
        return None
    collapse = RepeatCollapse()
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(collapse)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    atexit.register(write_held, collapse, handler)
    return collapse


def write_held(collapse: RepeatCollapse, handler: logging.Handler) -> None:
    """Writes the repeats' counts ``collapse`` still holds to ``handler`` (at exit)."""
    for record in collapse.held_summaries():
        if record.levelno >= handler.level:
            handler.acquire()
            try:
                handler.emit(record)
            finally:
                handler.release()
