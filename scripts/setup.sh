#!/usr/bin/env bash
# Set up kafka-health on this machine: a virtual environment with the package and its test
# tools, Apache Kafka's jars, Spark's Kafka connector and the parser's jar (built from
# src/kafka_health/spark/parser by Maven) in ~/.cache/kafka-health.
# Idempotent: a second run only checks that everything is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

"$PYTHON" - <<'PY' || { echo "setup: Python 3.11 or 3.12 is needed (set PYTHON=...)" >&2; exit 1; }
import sys
sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 12) else 1)
PY
command -v java >/dev/null || { echo "setup: Java 17+ (java) is needed" >&2; exit 1; }
command -v mvn >/dev/null || { echo "setup: Maven (mvn) is needed to fetch Kafka's jars and build the parser's" >&2; exit 1; }
{ command -v javac >/dev/null || [ -x "${JAVA_HOME:-/nonexistent}/bin/javac" ]; } \
  || { echo "setup: a JDK 17+ (javac) is needed to build the parser's jar; a JRE has none" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.kafka-health-installed"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing kafka-health and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e ".[test]"
  echo "$want" > "$stamp"
fi

"$VENV/bin/kafka-health" fetch-jars

# promtool and amtool (Debian packages) for the alert-rule tests and alerts/ checks.
bash scripts/install-system-deps.sh
