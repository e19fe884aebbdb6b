"""Spark's Kafka connector jars for the installed PySpark, fetched once into a cache.

Spark's own resolution (``spark.jars.packages``) asks Ivy for ``spark-sql-kafka-0-10`` and its
``spark-token-provider-kafka-0-10`` of the same version; where the registry lacks the latter
(as for 4.2.0 on the registry this project is built against) Ivy fails the whole session. Here
Maven resolves the same coordinates from the checked-in ``spark-kafka.pom.xml``; if the token
provider of the same version is missing, the newest published one is used (the connector only
calls its delegation-token helpers, unchanged since 4.0). Jars PySpark already ships are left out.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from kafka_health.maven import MavenError, copy_dependencies

# The newest spark-token-provider-kafka-0-10_2.13 on Maven Central as of this writing.
TOKEN_PROVIDER_FALLBACK = "4.0.0"
UNAVAILABLE = ".unavailable"
RETRY_UNAVAILABLE_AFTER_S = 24 * 3600


def _recent(marker: Path) -> bool:
    """Whether a failed resolution was recorded less than a day ago."""
    try:
        return time.time() - marker.stat().st_mtime < RETRY_UNAVAILABLE_AFTER_S
    except FileNotFoundError:
        return False


def pyspark_jar_names() -> set[str]:
    """Artifact names (without version) of the jars bundled with the installed PySpark."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    return {artifact_name(p.name) for p in jars.glob("*.jar")}


def artifact_name(jar: str) -> str:
    """``kafka-clients-3.9.2.jar`` -> ``kafka-clients``."""
    return re.sub(r"-\d[\w.]*?(-[A-Za-z]+\d*)?\.jar$", "", jar)


def ensure_kafka_connector_jars(cache_dir: Path, spark_version: str) -> list[Path]:
    """Return the connector jars to add to ``spark.jars``, fetching them on first use."""
    base = cache_dir.expanduser()
    attempts = [spark_version, TOKEN_PROVIDER_FALLBACK]
    errors = []
    for token_version in dict.fromkeys(attempts):
        target = base / f"spark-kafka-{spark_version}-tp{token_version}"
        unavailable = target / UNAVAILABLE
        if _recent(unavailable):
            errors.append(unavailable.read_text(encoding="utf-8"))
            continue
        try:
            libs = copy_dependencies(
                "kafka_health.spark",
                "spark-kafka.pom.xml",
                target,
                {"spark.version": spark_version, "token.provider.version": token_version},
            )
        except MavenError as exc:
            errors.append(str(exc))
            target.mkdir(parents=True, exist_ok=True)
            unavailable.write_text(str(exc), encoding="utf-8")  # retried after a day
            continue
        bundled = pyspark_jar_names()
        return sorted(p for p in libs.glob("*.jar") if artifact_name(p.name) not in bundled)
    raise MavenError("\n".join(errors))
