#!/usr/bin/env bash
# Install the system tools the alert-rule, dashboard and replay-report tests need: promtool and
# the prometheus server (Debian package `prometheus`), amtool and Alertmanager
# (`prometheus-alertmanager`) and a headless Chromium (`chromium-headless-shell`, to screenshot the replay's HTML report).
# Idempotent: does nothing when all of them are on PATH.
# Installs with apt-get as root (CI runs as root on a fresh machine), else through sudo.
# Services of these packages are never started: a policy-rc.d denies it during the install.
set -euo pipefail

missing=()
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  missing+=(prometheus)
fi
# Alertmanager itself too: a test hands alerts to a real one (test_alertmanager_handover).
if ! command -v amtool >/dev/null || ! command -v prometheus-alertmanager >/dev/null; then
  missing+=(prometheus-alertmanager)
fi
command -v chromium-headless-shell >/dev/null || missing+=(chromium-headless-shell)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "install-system-deps: apt-get not found; install ${missing[*]} (promtool, prometheus, amtool, chromium-headless-shell)" >&2
  exit 1
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-system-deps: run as root or install sudo" >&2; exit 1; }
  SUDO=(sudo)
fi

policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$policy" >/dev/null
  "${SUDO[@]}" chmod 755 "$policy"
  added_policy=1
fi
cleanup() { if [ "$added_policy" -eq 1 ]; then "${SUDO[@]}" rm -f "$policy"; fi; }
trap cleanup EXIT

echo "install-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
command -v promtool >/dev/null && command -v prometheus >/dev/null && command -v amtool >/dev/null \
  && command -v chromium-headless-shell >/dev/null
