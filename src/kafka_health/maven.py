"""Resolve checked-in Maven descriptors into a cache folder of jars, once.

Used for the dev cluster's Kafka runtime and for Spark's Kafka connector. A marker file written
last makes a half-finished fetch start over instead of being reused.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

MARKER = ".complete"


class MavenError(Exception):
    """Maven is missing or could not resolve the descriptor."""


def copy_dependencies(
    package: str, pom_name: str, target: Path, properties: dict[str, str], profile: str = ""
) -> Path:
    """Copy the runtime dependencies of ``package``'s ``pom_name`` into ``target/libs``.

    Returns the ``libs`` folder; does nothing when ``target`` was completed before.
    """
    libs = target / "libs"
    if (target / MARKER).exists():
        return libs
    if shutil.which("mvn") is None:
        raise MavenError(
            "Maven (mvn) is needed to fetch jars from Maven Central; it is not on PATH"
        )
    if libs.exists():
        shutil.rmtree(libs)
    libs.mkdir(parents=True)
    pom = resources.files(package).joinpath(pom_name)
    with resources.as_file(pom) as pom_path:
        command = ["mvn", "-B", "-q", "-f", str(pom_path)]
        if profile:
            command.append(f"-P{profile}")
        command += [f"-D{k}={v}" for k, v in properties.items()]
        command += [
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={libs}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = (result.stdout + result.stderr).strip().splitlines()[-15:]
        raise MavenError(
            f"Maven could not resolve {pom_name} with {properties}:\n" + "\n".join(tail)
        )
    (target / MARKER).write_text(repr(properties) + "\n", encoding="utf-8")
    return libs
