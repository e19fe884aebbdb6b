"""The JVM that pyspark starts for us ignores SIGTERM: the Python process that owns it stops it.

A stop sent to the job's whole process group (systemd's default ``KillMode``, the fault bench,
``kill -- -PGID``) also reaches Spark's JVM. Its shutdown hook then stops the SparkContext
while the job's Python is still stopping its queries, and the stop ends in py4j's tracebacks
("Answer from Java side is empty") instead of the queries' clean "Stopped". pyspark already
starts that JVM with SIGINT ignored for the same reason (a terminal's Ctrl-C reaches the whole
group); this adds SIGTERM.

Only the child gets it, between fork and exec, from the same ``preexec_fn`` pyspark passes:
the Python process's own handlers never change, so no signal to it can be lost. HotSpot keeps
an inherited SIG_IGN for its shutdown signals (it installs no handler over one), and the JVM
still ends with its Python process however that ends, SIGKILL included: pyspark's gateway exits
when its standard input, a pipe from the Python process, closes.

``spark-submit`` starts the JVM first, which then starts Python: there this module is not used;
docs/operations.md ("Running on a Spark cluster") starts that JVM with SIGTERM ignored the same way
(``bash -c "trap '' TERM; exec spark-submit ..."``).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

LAUNCH = "Popen"
"""The name through which ``pyspark.java_gateway`` starts the JVM (``subprocess.Popen``)."""


def ignoring_sigterm(preexec: Callable[[], object] | None) -> Callable[[], None]:
    """A ``preexec_fn`` that runs ``preexec`` (pyspark's), then ignores SIGTERM in the child."""

    def run() -> None:
        if preexec is not None:
            preexec()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    return run


@contextmanager
def gateway_ignores_sigterm() -> Iterator[bool]:
    """While inside, a JVM that pyspark launches starts with SIGTERM ignored; yields whether
    that could be arranged (POSIX, and pyspark's gateway launched through ``Popen`` as in
    PySpark 3 and 4). A test on the real JVM holds it to the installed PySpark."""
    from pyspark import java_gateway

    launch = getattr(java_gateway, LAUNCH, None)
    if os.name != "posix" or launch is None:
        log.warning("cannot keep SIGTERM from Spark's JVM: a group stop will race the job's")
        yield False
        return

    def popen(*args: Any, **kwargs: Any) -> Any:
        kwargs["preexec_fn"] = ignoring_sigterm(kwargs.get("preexec_fn"))
        return launch(*args, **kwargs)

    setattr(java_gateway, LAUNCH, popen)
    try:
        yield True
    finally:
        setattr(java_gateway, LAUNCH, launch)
