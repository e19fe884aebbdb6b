"""Secrets the config references by an environment variable or a file, never inline."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kafka_health.errors import ConfigError, ConfigProblem

REDACTED = "<redacted>"


@dataclass(frozen=True)
class Secret:
    """A secret referenced by the config: read from an environment variable or a file.

    Secrets are never written inline in the config file; ``resolve()`` reads the value when a
    client is built, so the loaded config can be printed without revealing it.
    """

    env: str | None = None
    file: str | None = None

    def check(self, path: str) -> list[ConfigProblem]:
        if (self.env is None) == (self.file is None):
            return [ConfigProblem(path, "a secret needs exactly one of 'env' or 'file'")]
        return []

    def resolve(self) -> str:
        """Return the secret's value; raise ``ConfigError`` when it cannot be read."""
        if self.env is not None:
            value = os.environ.get(self.env)
            if value is None:
                raise ConfigError([ConfigProblem("secret.env", f"variable {self.env} is not set")])
            return value
        assert self.file is not None
        try:
            return Path(self.file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                [ConfigProblem("secret.file", f"cannot read {self.file}: {exc.strerror}")]
            ) from exc
