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
# The layers of pyproject.toml's [tool.importlinter]: imports point from the entry points down.
.venv/bin/lint-imports
# Two pytest-xdist workers, whole files each: the real-parts tests mostly wait on brokers and
# Spark, so two run side by side in about half the time (serial: about 50 min here, over the
# 30-min budget). Arguments come after and win: `bash scripts/test.sh -n 0` runs serially,
# `bash scripts/test.sh tests/unit` a part.
exec .venv/bin/pytest -n 2 --dist loadfile "$@"
