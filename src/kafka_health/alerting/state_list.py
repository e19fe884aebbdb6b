"""A state file holding one JSON list of entries: ``silences.json``, ``maintenance.json``.

A command writes it, the running alert service reads it. A write replaces the file atomically
(:func:`~.persist.write_json`) under a lock file (``<name>.lock``), on the content read under
that lock, so that two commands at once keep each other's entries. A reader re-reads the file
when it changed (its mtime or size). An entry the reader cannot take (a hand edit) is skipped
with a warning naming it, counted, and written back as it is (an operator's typo is not
erased); a file of the wrong shape, or one that cannot be read, loads nothing and says so.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from kafka_health.alerting.persist import read_json, write_json

Entry = TypeVar("Entry")


def epoch_seconds(value: object, key: str, *, text: bool = False) -> float:
    """A finite number (seconds) from an entry's ``key``, also from its decimal text when
    ``text``; ``ValueError`` naming ``key``."""
    kinds = (int, float, str) if text else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ValueError(f"{key!r} is not a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{key!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{key!r} is not a finite number")
    return number


@dataclass
class JsonListFile(Generic[Entry]):
    """The list under ``key`` in ``path``'s JSON object, each entry parsed by ``parse``
    (``ValueError`` for one it cannot take), re-read when the file changes."""

    path: Path
    key: str
    """The list's key in the file's object (``"silences"``)."""
    noun: str
    """What an entry is called in the log (``"silence"``)."""
    parse: Callable[[object], Entry]
    log: logging.Logger
    """The owner's logger: its warnings are the owner's."""
    id_key: str
    """The entry's key that identifies it in a warning (``"id"``), shortened to ``id_width``
    characters and labelled ``id_label``."""
    id_label: str
    id_width: int
    max_entries: int | None = None
    """Entries read (the first ones), and written with the malformed ones kept; None: all."""
    entries: list[Entry] = field(default_factory=list)
    malformed: list[object] = field(default_factory=list)
    """The malformed entries as they are, written back by :meth:`write`."""
    skipped: int = 0
    """Malformed entries in the file as last read (each logged with its index)."""
    skipped_total: int = 0
    """Malformed entries skipped by every read so far (a changed file is read again)."""
    _stamp: tuple[int, int] | None = None

    def reload(self) -> bool:
        """Re-read the file if it changed since the last read; whether it was read."""
        try:
            st = self.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        try:
            raw = read_json(self.path, {self.key: []})
        except OSError as exc:  # a directory, no permission: the service goes on without it
            self.log.warning(
                "%s: cannot be read (%s): no %s loaded from it", self.path, exc, self.noun
            )
            raw = {self.key: []}
        self._load(raw)
        return True

    def _load(self, raw: object) -> None:
        """Every well-formed entry of the file; each malformed one skipped, logged, counted."""
        entries = raw.get(self.key, []) if isinstance(raw, Mapping) else None
        unreadable = not isinstance(entries, list)  # the whole file counts as one
        if not isinstance(entries, list):
            self.log.warning(
                "%s: no list '%s' in it: no %s loaded from it", self.path, self.key, self.noun
            )
            entries = []
        if self.max_entries is not None and len(entries) > self.max_entries:
            self.log.warning(
                "%s: %d entries, only the first %d read", self.path, len(entries), self.max_entries
            )
            entries = entries[: self.max_entries]
        parsed: list[Entry] = []
        malformed: list[object] = []
        for i, entry in enumerate(entries):
            try:
                parsed.append(self.parse(entry))
            except ValueError as exc:
                malformed.append(entry)
                self.log.warning(
                    "%s: %s %s skipped, malformed: %s", self.path, self.noun,
                    self._entry_name(i, entry), exc,
                )  # fmt: skip
        self.entries, self.malformed = parsed, malformed
        self.skipped = len(malformed) + unreadable
        self.skipped_total += self.skipped

    def _entry_name(self, index: int, entry: object) -> str:
        """``#index`` and the entry's id when it has one (shortened: the file is hand-edited)."""
        name = f"#{index}"
        if isinstance(entry, Mapping) and isinstance(entry.get(self.id_key), str | int):
            name += f" ({self.id_label} {str(entry[self.id_key])[: self.id_width]!r})"
        return name

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The file's lock (another writer waits); the next :meth:`reload` reads the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._stamp = None
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def write(self, entries: list[dict[str, object]]) -> None:
        """Replace the file with ``entries`` and the malformed ones (as many as fit in
        ``max_entries``); the next :meth:`reload` reads it."""
        room = None if self.max_entries is None else max(0, self.max_entries - len(entries))
        write_json(self.path, {self.key: [*entries, *self.malformed[:room]]})
        self._stamp = None


class JsonListStore(Generic[Entry]):
    """A store of the entries of its :class:`JsonListFile` (``_file``), with the file's counts."""

    _file: JsonListFile[Entry]

    @property
    def skipped(self) -> int:
        """Malformed entries in the file as last read (each logged with its index)."""
        return self._file.skipped

    @property
    def skipped_total(self) -> int:
        """Malformed entries skipped by every read so far (a changed file is read again)."""
        return self._file.skipped_total
