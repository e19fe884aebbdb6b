#!/usr/bin/env bash
# Quickstart, second command: set up, then run the checks and the whole test suite on real
# parts (real Kafka brokers, real Spark). pytest's "no tests collected" (exit 5) fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
exec .venv/bin/pytest "$@"
