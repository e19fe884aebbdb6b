"""The effective config as plain data or YAML, every secret replaced by where it comes from
and every URL cut to ``scheme://host[:port]`` (user info, path and query may be secrets)."""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from typing import Any

import yaml

from kafka_health.configuration.secrets import REDACTED, Secret
from kafka_health.configuration.urls import is_url_field

INVALID_URL = "<invalid url>"
_HOST = re.compile(r"[A-Za-z0-9._~%!$&'()*+,;=:-]+")


def safe_url(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, for logs and errors; ``<invalid url>`` when it
    cannot be parsed. Never raises; never returns user info, path, query or fragment."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host, port = parts.hostname, parts.port
        if not parts.scheme or not host or not _HOST.fullmatch(host):
            return INVALID_URL
        shown = f"[{host}]" if ":" in host else host
        return f"{parts.scheme.lower()}://{shown}" + (f":{port}" if port is not None else "")
    except Exception:  # never raises, whatever it is given
        return INVALID_URL


def to_redacted_dict(config: Any) -> Any:
    """The effective config as plain data: every secret replaced by where it comes from,
    every URL field by its :func:`safe_url` form."""
    if isinstance(config, Secret):
        return f"{REDACTED} ({config.source})"
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return {
            f.name: _field(getattr(config, f.name), is_url_field(f.metadata))
            for f in dataclasses.fields(config)
        }
    if isinstance(config, list):
        return [to_redacted_dict(v) for v in config]
    if isinstance(config, dict):
        return {k: to_redacted_dict(v) for k, v in config.items()}
    return config


def _field(value: Any, url: bool) -> Any:
    if url and isinstance(value, str) and value:
        return safe_url(value)
    if url and isinstance(value, list):
        return [_field(v, url) for v in value]
    return to_redacted_dict(value)


def dump_redacted(config: Any) -> str:
    """YAML text of the effective config with secrets and URLs redacted."""
    return yaml.safe_dump(to_redacted_dict(config), sort_keys=False)
