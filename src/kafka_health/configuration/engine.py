"""YAML (already parsed) to typed, frozen dataclasses: every problem collected with its key
path and reason (unknown keys with a suggestion, wrong types, each section's own ``check``)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from kafka_health.configuration.secrets import Secret
from kafka_health.configuration.urls import is_url_field
from kafka_health.errors import ConfigError, ConfigProblem

T = TypeVar("T")


def parse_section(tp: type[T], raw: Any, path: str = "") -> T:
    """Validate parsed YAML of a separate file (e.g. the alert rules) into dataclass ``tp``."""
    problems: list[ConfigProblem] = []
    section = build(tp, raw, path, problems)
    if problems:
        raise ConfigError(problems)
    assert isinstance(section, tp)
    return section


def join_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def build(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """Convert ``value`` to type ``tp``, appending problems instead of raising."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _build_union(tp, value, path, problems)
    if origin is Literal:
        return _build_literal(tp, value, path, problems)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _build_dataclass(tp, value, path, problems)
    if origin is list:
        return _build_list(tp, value, path, problems)
    if origin is dict:
        return _build_dict(tp, value, path, problems)
    return _build_scalar(tp, value, path, problems)


def _shown(path: str) -> str:
    """``path`` as a problem names it."""
    return path or "<top level>"


def _build_union(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """An optional or union type: null where allowed, else the first member that fits."""
    args = typing.get_args(tp)
    if value is None and type(None) in args:
        return None
    non_none = [a for a in args if a is not type(None)]
    if Secret in non_none and len(non_none) > 1:  # e.g. ``str | Secret``: a mapping is
        secret = isinstance(value, Mapping)  # the secret, anything else the plain value
        non_none = [a for a in non_none if (a is Secret) == secret]
    return build(non_none[0], value, path, problems)


def _build_literal(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """One of a ``Literal``'s values (its first, with a problem, for any other)."""
    args = typing.get_args(tp)
    if value not in args:
        choices = ", ".join(repr(a) for a in args)
        problems.append(ConfigProblem(_shown(path), f"{value!r} is not one of {choices}"))
        return args[0]
    return value


def _build_dataclass(tp: type, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """A section: each known key built to its field's type, unknown keys reported (with a
    suggestion), then the section's own ``check``. A secret is never inline."""
    shown = _shown(path)
    if value is None:
        value = {}
    if tp is Secret and not isinstance(value, Mapping):  # the value is never echoed
        problems.append(
            ConfigProblem(shown, "secrets are never inline: use {env: VARIABLE} or {file: /path}")
        )
        return None
    if not isinstance(value, Mapping):
        problems.append(ConfigProblem(shown, f"expected a mapping, got {_kind(value)}"))
        return tp()
    hints = typing.get_type_hints(tp)
    fields = {f.name: f for f in dataclasses.fields(tp)}
    known = set(fields)
    for key in value:
        if key not in known:
            hint = _suggest(str(key), known)
            problems.append(ConfigProblem(join_path(path, str(key)), f"unknown key{hint}"))
    kwargs = {
        name: _mark(
            build(hints[name], value[name], join_path(path, name), problems),
            join_path(path, name),
            is_url_field(fields[name].metadata),
        )
        for name in known
        if name in value
    }
    obj = tp(**kwargs)
    check = getattr(obj, "check", None)
    if check is not None:
        problems.extend(check(path))
    return obj


def _build_list(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """A list, each item built to its element type."""
    if not isinstance(value, list):
        problems.append(ConfigProblem(_shown(path), f"expected a list, got {_kind(value)}"))
        return []
    item = typing.get_args(tp)[0]
    return [build(item, v, f"{path}[{i}]", problems) for i, v in enumerate(value)]


def _build_dict(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """A mapping with text keys, each value built to its value type."""
    if not isinstance(value, Mapping):
        problems.append(ConfigProblem(_shown(path), f"expected a mapping, got {_kind(value)}"))
        return {}
    item = typing.get_args(tp)[1]
    return {str(k): build(item, v, join_path(path, str(k)), problems) for k, v in value.items()}


def _build_scalar(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """A bool, int, float or str (a number or bool is not taken for another kind); the
    type's zero, with a problem, for anything else."""
    shown = _shown(path)
    if tp is bool:
        if not isinstance(value, bool):
            problems.append(ConfigProblem(shown, f"expected true or false, got {_kind(value)}"))
            return False
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(ConfigProblem(shown, f"expected an integer, got {_kind(value)}"))
            return 0
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(ConfigProblem(shown, f"expected a number, got {_kind(value)}"))
            return 0.0
        return float(value)
    if tp is str:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            problems.append(ConfigProblem(shown, f"expected a string, got {_kind(value)}"))
            return ""
        return str(value)
    raise TypeError(f"config type {tp!r} at {shown} is not supported")  # a bug, not bad input


def _mark(value: Any, path: str, url: bool) -> Any:
    """A secret knows its key path (named by its errors) and whether it holds a URL."""
    if isinstance(value, Secret):
        return value.at(path, is_url=url)
    if isinstance(value, list):  # a list of URLs: each item its own key path
        return [_mark(v, f"{path}[{i}]", url) for i, v in enumerate(value)]
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), f"{type(value).__name__} {value!r}"
    )


def _suggest(key: str, known: set[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(sorted(known))})"


# --------------------------------------------------------------------------------------------
