"""Secrets the config references by an environment variable or a file, never inline."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from kafka_health.configuration.urls import url_problem
from kafka_health.errors import ConfigError, ConfigProblem

REDACTED = "<redacted>"


@dataclass(frozen=True)
class Secret:
    """A secret referenced by the config: read from an environment variable or a file.

    Secrets are never written inline in the config file; ``resolve()`` reads the value when a
    client is built, so the loaded config can be printed without revealing it. The engine
    tells each secret its key path (``key``, named by its errors) and whether its field holds
    a URL (``is_url``: the value is then checked as one when it is read): attributes, not
    fields, so ``asdict`` and equality see only ``env`` and ``file``.
    """

    env: str | None = None
    file: str | None = None
    key: ClassVar[str] = ""
    is_url: ClassVar[bool] = False

    def at(self, key: str, is_url: bool = False) -> Secret:
        """This secret, told the key path it was read at and whether it holds a URL."""
        marked = Secret(self.env, self.file)
        object.__setattr__(marked, "key", key)  # frozen: set once, here
        object.__setattr__(marked, "is_url", is_url)
        return marked

    def check(self, path: str) -> list[ConfigProblem]:
        if (self.env is None) == (self.file is None):
            return [ConfigProblem(path, "a secret needs exactly one of 'env' or 'file'")]
        return []

    @property
    def source(self) -> str:
        """Where the value comes from (``env NAME`` or ``file PATH``), never the value."""
        return f"env {self.env}" if self.env is not None else f"file {self.file}"

    def resolve(self) -> str:
        """The value without surrounding whitespace; ``ConfigError`` naming the key when it
        cannot be read or, for a URL, is not a usable one (the value is never in the error)."""
        value = self._read().strip()
        if self.is_url:
            problem = url_problem(value)
            if problem is not None:
                raise ConfigError(
                    [ConfigProblem(self.key or "url", f"the URL from {self.source} {problem}")]
                )
        return value

    def _read(self) -> str:
        if self.env is not None:
            value = os.environ.get(self.env)
            if value is None:
                path = self.key or "secret.env"
                raise ConfigError([ConfigProblem(path, f"variable {self.env} is not set")])
            return value
        assert self.file is not None
        try:
            return Path(self.file).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise ConfigError(
                [ConfigProblem(self.key or "secret.file", f"cannot read {self.file}: {reason}")]
            ) from None


def url_secret(value: str | Secret, key: str) -> str | Secret:
    """``value`` as a URL field holds it: a secret is then checked as a URL when it is read
    (for configs built in code; the engine marks the secrets it reads itself)."""
    if isinstance(value, Secret) and not value.is_url:
        return value.at(value.key or key, is_url=True)
    return value


def resolve_value(value: str | Secret | None) -> str:
    """A config value that may be a secret: a string as it is, a secret read (stripped of
    surrounding whitespace, checked when it is a URL), None as ``""``."""
    if value is None:
        return ""
    if isinstance(value, Secret):
        return value.resolve()
    return value
