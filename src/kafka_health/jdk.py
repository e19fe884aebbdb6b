"""The JDK's programs (``java``, ``jcmd``, ``jfr``) as this project runs them.

pyspark's launcher starts ``$JAVA_HOME/bin/java`` when ``JAVA_HOME`` is set, else the PATH's
``java``; the dev cluster's brokers, the tools that attach to them (``jcmd`` needs the same JDK
as the JVM it attaches to) and the checks of JVM options follow the same order, so that all of
them are one JDK. A tool missing from the PATH (a JRE's ``java`` on it, or only ``java`` linked
there) is also looked for beside the real file of the PATH's ``java``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def jdk_tool(name: str) -> str | None:
    """The path of the JDK program ``name`` (``java``, ``jcmd``, ...), or None if none is
    found: ``$JAVA_HOME/bin/<name>``, else ``<name>`` on the PATH, else beside the PATH's
    ``java``."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / name
        if _runnable(candidate):
            return str(candidate)
    found = shutil.which(name)
    if found is not None:
        return found
    java = shutil.which("java")
    if java is not None:
        beside = Path(java).resolve().parent / name
        if _runnable(beside):
            return str(beside)
    return None


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
