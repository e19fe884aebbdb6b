#!/usr/bin/env bash
# Quickstart, first command: set up, then run the demo (a local Kafka cluster under the monitor).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/kafka-health demo "$@"
