"""The parser's jar, built from this package's Java sources by Maven, once per source digest.

The job's parse is a Spark Java UDF (``kafkahealth.parse``, Maven project ``spark/parser``,
shipped as package data). The jar is built into ``<spark.cache_dir>/parser-<digest>/``, the
digest of the pom and every Java source, so an edited source builds a new jar and an unchanged
one is reused; a marker written last makes a half-finished build start over. Maven fetches the
compile-time APIs (Spark's and Jackson's, ``provided``: PySpark's own jars serve at run time).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from kafka_health.jdk import jdk_tool
from kafka_health.maven import MARKER, MavenError

PACKAGE = "kafka_health.spark"
PROJECT = "parser"
JAR_NAME = "kafka-health-parser.jar"


class ParserJarError(MavenError):
    """The parser's jar cannot be built here (no JDK compiler, no Maven, a failed build)."""


def _files(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """Every file under ``folder`` as (relative path, file), sorted, build output left out."""
    out: list[tuple[str, Traversable]] = []
    for child in folder.iterdir():
        name = f"{prefix}{child.name}"
        if child.is_dir():
            if child.name != "target":
                out += _files(child, f"{name}/")
        elif child.name == "pom.xml" or child.name.endswith(".java"):
            out.append((name, child))
    return sorted(out, key=lambda item: item[0])


def project_files() -> list[tuple[str, Traversable]]:
    """The Maven project's pom and Java sources, as installed with the package."""
    return _files(resources.files(PACKAGE).joinpath(PROJECT))


def source_digest() -> str:
    """A digest of the project's file names and contents (the build folder's name)."""
    digest = hashlib.sha256()
    for name, file in project_files():
        digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def parser_jar_path(cache_dir: Path) -> Path:
    """Where the jar of the installed sources is (or will be) built."""
    return cache_dir.expanduser() / f"parser-{source_digest()}" / JAR_NAME


def _missing_tools() -> list[str]:
    missing = []
    if jdk_tool("javac") is None:
        missing.append("a JDK's compiler (javac; a JRE has none)")
    if shutil.which("mvn") is None:
        missing.append("Maven (mvn)")
    return missing


def ensure_parser_jar(cache_dir: Path) -> Path:
    """The parser's jar, built by Maven on first use; raises :class:`ParserJarError` naming
    what is missing when it cannot be built."""
    jar = parser_jar_path(cache_dir)
    target = jar.parent
    if (target / MARKER).exists() and jar.exists():
        return jar
    missing = _missing_tools()
    if missing:
        raise ParserJarError(
            f"the parser's jar ({jar}) is not built and cannot be here: "
            + " and ".join(missing)
            + " needed (scripts/setup.sh builds it; or run `kafka-health fetch-jars` where they"
            " are, and copy the cache)"
        )
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target, prefix="build-") as build:
        root = Path(build)
        for name, file in project_files():
            dest = root / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(file.read_bytes())
        javac = jdk_tool("javac")
        env = None
        if javac is not None:
            # Maven compiles with $JAVA_HOME's JDK, else the PATH's java's: point it at the
            # JDK whose javac was found.
            env = {**os.environ, "JAVA_HOME": str(Path(javac).resolve().parents[1])}
        result = subprocess.run(
            ["mvn", "-B", "-q", "package"], cwd=root, capture_output=True, text=True,
            env=env, check=False,
        )  # fmt: skip
        built = root / "target" / JAR_NAME
        if result.returncode != 0 or not built.exists():
            tail = (result.stdout + result.stderr).strip().splitlines()[-20:]
            raise ParserJarError("Maven could not build the parser's jar:\n" + "\n".join(tail))
        shutil.move(str(built), jar)
    (target / MARKER).write_text(source_digest() + "\n", encoding="utf-8")
    return jar
