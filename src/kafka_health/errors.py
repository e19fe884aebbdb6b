"""Errors of kafka-health with stable meanings; no retry policy lives here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with a configuration: the key path and the reason."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class KafkaHealthError(Exception):
    """Base class of the project's own errors."""


class ConfigError(KafkaHealthError):
    """The configuration is invalid; carries every problem found, each naming its key."""

    def __init__(self, problems: list[ConfigProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


class StateFormatError(KafkaHealthError):
    """A state file written by a newer release, in a format this one does not read."""
