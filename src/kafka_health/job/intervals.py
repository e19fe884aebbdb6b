"""Spark interval strings from the config's seconds."""

from __future__ import annotations


def interval(seconds: float) -> str:
    """``interval(1.5)`` -> ``"1500 milliseconds"`` (Spark's window/watermark/trigger syntax)."""
    return f"{round(seconds * 1000)} milliseconds"


def interval_ms(seconds: float) -> str:
    """Whole milliseconds as a string, for Spark settings in ms."""
    return str(round(seconds * 1000))
