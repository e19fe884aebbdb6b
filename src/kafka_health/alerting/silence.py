"""Silences: label matchers with an expiry, from the config and from ``kafka-health silence``.

The command writes ``<state_dir>/silences.json`` (atomically, under a lock file:
:mod:`~.state_list`); the running service re-reads it when it changes. Matchers use
Alertmanager's syntax: ``name="value"``, ``!=``, ``=~`` and ``!~`` (regular expressions match
the whole value); quotes are optional.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from kafka_health.alerting.state_list import JsonListFile, JsonListStore, epoch_seconds

log = logging.getLogger(__name__)

MatchOp = Literal["=", "!=", "=~", "!~"]
_MATCHER = re.compile(
    r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|(\S*))\s*'
)


@dataclass(frozen=True)
class Matcher:
    """One condition on one label; an absent label has the value ``""``."""

    name: str
    op: MatchOp
    value: str

    def matches(self, labels: Mapping[str, str]) -> bool:
        actual = labels.get(self.name, "")
        if self.op == "=":
            return actual == self.value
        if self.op == "!=":
            return actual != self.value
        found = re.fullmatch(self.value, actual) is not None
        return found if self.op == "=~" else not found

    def __str__(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"')
        return f'{self.name}{self.op}"{escaped}"'


def parse_matcher(text: str) -> Matcher:
    """Parse ``name op value``; raise ``ValueError`` naming what is wrong."""
    found = _MATCHER.fullmatch(text)
    if not found:
        raise ValueError(f'{text!r} is not a matcher like alertname="FullGC" or broker_id=~"1|2"')
    name, op, quoted, bare = found.groups()
    value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
    if op in ("=~", "!~"):
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{text!r}: not a valid regular expression: {exc}") from exc
    return Matcher(name, op, value)  # type: ignore[arg-type]


def matches_all(matchers: Iterable[Matcher], labels: Mapping[str, str]) -> bool:
    return all(m.matches(labels) for m in matchers)


def parse_time(text: str) -> float:
    """Epoch seconds of an ISO 8601 time; a time without zone is UTC."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def format_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Silence:
    """Alerts matching every matcher between ``starts_at`` and ``ends_at`` are not notified."""

    id: str
    matchers: tuple[Matcher, ...]
    starts_at: float
    ends_at: float
    comment: str = ""
    created_by: str = ""

    def active(self, now: float) -> bool:
        return self.starts_at <= now < self.ends_at

    def mutes(self, labels: Mapping[str, str], now: float) -> bool:
        return self.active(now) and matches_all(self.matchers, labels)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["matchers"] = [str(m) for m in self.matchers]
        return data

    @staticmethod
    def from_json(data: object) -> Silence:
        """A silence of ``silences.json``; ``ValueError`` saying what is wrong with it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"not an object but {type(data).__name__}")
        for key in ("id", "matchers", "starts_at", "ends_at"):
            if key not in data:
                raise ValueError(f"no {key!r}")
        matchers = data["matchers"]
        if not isinstance(matchers, list) or not matchers:
            raise ValueError("'matchers' is not a list of at least one matcher")
        return Silence(
            id=str(data["id"]),
            matchers=tuple(parse_matcher(str(m)) for m in matchers),
            starts_at=epoch_seconds(data["starts_at"], "starts_at", text=True),
            ends_at=epoch_seconds(data["ends_at"], "ends_at", text=True),
            comment=str(data.get("comment", "")),
            created_by=str(data.get("created_by", "")),
        )


@dataclass
class SilenceStore(JsonListStore[Silence]):
    """The silences of the config plus those in ``path``, re-read when the file changes."""

    path: Path
    configured: list[Silence] = field(default_factory=list)
    _file: JsonListFile[Silence] = field(init=False)

    def __post_init__(self) -> None:
        self._file = JsonListFile(
            self.path, "silences", "silence", Silence.from_json, log, "id", "id", 40
        )

    def reload(self) -> None:
        """Re-read the file if it changed since the last read."""
        self._file.reload()

    def all(self) -> list[Silence]:
        return [*self.configured, *self._file.entries]

    def muting(self, labels: Mapping[str, str], now: float) -> list[str]:
        """Ids of the silences that mute an alert with ``labels`` at ``now``."""
        return [s.id for s in self.all() if s.mutes(labels, now)]

    # Writers (the ``silence`` command); the service only reads.

    def add(
        self,
        matchers: list[Matcher],
        starts_at: float,
        ends_at: float,
        comment: str,
        created_by: str,
        now: float,
    ) -> Silence:
        if not matchers:
            raise ValueError("a silence needs at least one matcher")
        if ends_at <= starts_at:
            raise ValueError("a silence must end after it starts")
        with self._file.locked():
            self.reload()
            silence = Silence(
                uuid.uuid4().hex[:12], tuple(matchers), starts_at, ends_at, comment, created_by
            )
            self._write([*self._kept(now), silence])
            return silence

    def expire(self, silence_id: str, now: float) -> bool:
        """End a stored silence now; False when no such active silence exists."""
        with self._file.locked():
            self.reload()
            found = False
            updated = []
            for s in self._file.entries:
                if s.id == silence_id and s.ends_at > now:
                    s = Silence(
                        s.id, s.matchers, min(s.starts_at, now), now, s.comment, s.created_by
                    )
                    found = True
                updated.append(s)
            if found:
                self._write(updated)
            return found

    def _kept(self, now: float, keep_expired_s: float = 7 * 86400) -> list[Silence]:
        return [s for s in self._file.entries if s.ends_at > now - keep_expired_s]

    def _write(self, silences: list[Silence]) -> None:
        self._file.write([s.to_json() for s in silences])
        self.reload()


def configured_silences(items: Iterable[tuple[list[str], str, str, str, str]]) -> list[Silence]:
    """Silences of the config: (matchers, starts_at, ends_at, comment, created_by) each."""
    result = []
    for i, (matchers, starts, ends, comment, author) in enumerate(items):
        result.append(
            Silence(
                f"config-{i}",
                tuple(parse_matcher(m) for m in matchers),
                parse_time(starts) if starts else 0.0,
                parse_time(ends),
                comment,
                author,
            )
        )
    return result
