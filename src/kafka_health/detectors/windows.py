"""Sliding event-time windows as the board reports them, and exact quantiles."""

from __future__ import annotations

import math
from collections.abc import Sequence


def current_window_end_ms(latest_ms: int, slide_s: float) -> int:
    """End of the window that covers the last ``window_s`` up to ``latest_ms``: the first slide
    boundary after it, so the window holds the newest data."""
    slide_ms = round(slide_s * 1000)
    return (latest_ms // slide_ms + 1) * slide_ms


def window_start_ms(end_ms: int, window_s: float) -> int:
    return end_ms - round(window_s * 1000)


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of ascending values (not empty): the smallest value with at least
    ``q`` of the values at or below it."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])
