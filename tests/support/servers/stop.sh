#!/usr/bin/env bash
# Stops the real servers started by start.sh (ctest fixture servers.stop).
# Usage: stop.sh BUILD_DIR
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
state=$(cd "$1" && pwd)/test-env
# shellcheck source=tests/support/servers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/support/servers/peers.sh
. "$(dirname "$0")/peers.sh"
# shellcheck source=tests/support/servers/proxies.sh
. "$(dirname "$0")/proxies.sh"
# shellcheck source=tests/support/servers/lighttpd.sh
. "$(dirname "$0")/lighttpd.sh"

[ -d "$state" ] || exit 0
stop_lighttpd "$state"
stop_proxies "$state"
stop_peers "$state"
stop_nginx "$state"
rm -f "$state/env"
echo "servers: stopped (state $state)"
