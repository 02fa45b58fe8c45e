#!/usr/bin/env bash
# ./dev chaos: the real servers up for one sluice-chaos run of COUNT downloads and
# COUNT fetches with SEED, and down again however it ends. Prints the tally and
# returns sluice-chaos's status (BUILD_DIR holds bin/sluice-chaos and bin/sluice).
# Usage: tests/chaos/run.sh BUILD_DIR COUNT SEED [CHAOS ARGS...]
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR COUNT SEED [CHAOS ARGS...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) count=$2 seed=$3
shift 3
servers=$(dirname "$0")/../support/servers
trap '"$servers/stop.sh" "$build" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM
"$servers/start.sh" "$build"
"$build/bin/sluice-chaos" --downloads "$count" --fetches "$count" --seed "$seed" \
  --env "$build/test-env/env" --scratch "$build/chaos-scratch" "$@"
