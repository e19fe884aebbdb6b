"""A batch cut short by its query's stop, told to Spark in a few words.

Spark 4.2 decides whether a ``foreachBatch`` failure was its query's own stop by matching the
Python side's error message with ``StreamExecution.PROXY_ERROR``::

    py4j.protocol.Py4JJavaError: An error occurred while calling((.|\\r\\n|\\r|\\n)*)(
    java.lang.InterruptedException|java.io.InterruptedIOException|...)

``(.|\\r\\n|\\r|\\n)*`` recurses once per character in ``java.util.regex``. Over a
``Py4JJavaError``'s message, which carries the whole Java stack trace of the interrupted
``collect`` (several KB), it overflowed the stack of the query's stream execution thread: a
stop that cut a batch short ended in a ``StackOverflowError`` instead of Spark's clean
"Stopped" (seen in 4 of 16 runs of ``benchmarks/sustained_batches.py``, and in CI's job logs).

:func:`stop_aware` wraps a ``foreachBatch`` body: a Java interruption anywhere in the cause
chain of what it raised is raised again as :class:`BatchInterrupted`, whose message is only
the words Spark matches; any other error passes unchanged. py4j logs every error a Python
callback raises, with its traceback, at ERROR: a :class:`BatchInterrupted` is the query's own
stop, not an error, and :func:`stop_aware` keeps it out of py4j's log
(:class:`QuietInterruptions`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

INTERRUPTIONS = (
    "java.lang.InterruptedException",
    "java.io.InterruptedIOException",
    "java.nio.channels.ClosedByInterruptException",
)
"""The Java exceptions Spark takes for an interruption (``StreamExecution.IO_EXCEPTION_NAMES``)."""

MAX_CAUSES = 16
"""How deep the cause chain is walked."""

Body = TypeVar("Body", bound=Callable[..., None])


class BatchInterrupted(Exception):
    """A batch's Spark call was interrupted (the query stopping); the message is what Spark's
    ``PROXY_ERROR`` looks for, and nothing after it."""

    def __init__(self, method: str, interruption: str) -> None:
        super().__init__(
            f"py4j.protocol.Py4JJavaError: An error occurred while calling {method}.\n"
            f": {interruption}"
        )


def interruption_of(java_exception: Any) -> str | None:
    """The class name of the first Java interruption in ``java_exception``'s cause chain."""
    current = java_exception
    for _ in range(MAX_CAUSES):
        if current is None:
            return None
        name = str(current.getClass().getName())
        if name in INTERRUPTIONS:
            return name
        current = current.getCause()
    return None


PY4J_CALLBACK_LOGGERS = ("py4j.clientserver", "py4j.java_gateway")
"""The loggers of py4j's callback servers (pinned-thread and classic), which log an error a
Python callback raised."""


class QuietInterruptions(logging.Filter):
    """Drops a log record whose exception is a :class:`BatchInterrupted`."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, BatchInterrupted)


def quiet_py4j_interruptions() -> None:
    """Keep :class:`BatchInterrupted` out of py4j's callback loggers (once each)."""
    for name in PY4J_CALLBACK_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietInterruptions) for f in logger.filters):
            logger.addFilter(QuietInterruptions())


def stop_aware(body: Body) -> Body:
    """``body`` with a Java interruption re-raised as :class:`BatchInterrupted`."""
    from py4j.protocol import Py4JJavaError

    quiet_py4j_interruptions()

    @functools.wraps(body)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            body(*args, **kwargs)
        except Py4JJavaError as exc:
            try:
                interruption = interruption_of(exc.java_exception)
            except Exception:  # the gateway going away: keep the original error
                interruption = None
            if interruption is None:
                raise
            raise BatchInterrupted(_method(exc), interruption) from None

    return run  # type: ignore[return-value]


def _method(exc: Any) -> str:
    """``o123.collectToPython`` from a Py4JJavaError's first line, or ``a Spark method``."""
    error = str(getattr(exc, "errmsg", "") or "")
    prefix = "An error occurred while calling "
    if error.startswith(prefix):
        return error[len(prefix) :].rstrip(".\n ") or "a Spark method"
    return "a Spark method"
