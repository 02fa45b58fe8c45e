#!/usr/bin/env bash
# Runs sluice-soak for SECONDS against freshly started real servers, then stops them
# (also when the soak fails or is interrupted). Returns the soak's exit status.
# Usage: tests/soak/run.sh BUILD_DIR SECONDS [SOAK ARGS...]
# BUILD_DIR must hold bin/sluice-soak (tests ON). An ASan build is the one that also
# checks for leaks; ASan's quarantine is kept at 16 MiB so that RSS is measurable
# (soak_main.cpp says why). Extra arguments go to sluice-soak (--workers, --seed ...).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR SECONDS [SOAK ARGS...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
seconds=$2
shift 2
servers=$(cd "$(dirname "$0")/../support/servers" && pwd)
soak=$build/bin/sluice-soak
[ -x "$soak" ] || { echo "run.sh: $soak not found (build the sluice_soak target)" >&2; exit 2; }

stop_servers() { "$servers/stop.sh" "$build" >/dev/null 2>&1 || true; }
trap stop_servers EXIT
trap 'exit 130' INT TERM

"$servers/start.sh" "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
"$soak" --seconds "$seconds" --env "$build/test-env/env" "$@" || status=$?
echo "run.sh: sluice-soak exited $status"
exit "$status"
