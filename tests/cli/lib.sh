# Shell helpers for the `sluice` command tests (tests/cli/*.sh). Source it after
# setting SLUICE (the binary). Defines functions and a scratch directory, nothing else.
#
# run_sluice ARGS...     runs $SLUICE; stdout -> $OUT, stderr -> $ERR, status -> $CODE
# expect_code N          $CODE is N
# expect_curls_code ARGS...  real curl, run with ARGS, exits with $CODE (skipped,
#                        with a note, where curl is not installed)
# expect_one_error LINE  stderr is exactly one line starting "sluice: " and containing LINE
# expect_no_stderr       stderr is empty
# expect_stdout TEXT     stdout is exactly TEXT
# load_servers           reads $SLUICE_TEST_ENV_FILE (the real_servers fixture's env)
# expected_sha NAME      the sha256 of file NAME from $SLUICE_FILES_DIR/sha256sums
# run_case NAME          runs the function case_NAME of the sourcing script, then "PASS"
# free_port              a TCP port on 127.0.0.1 with nothing listening (bound, then freed)
# wait_for_port_file F N waits for background peer N to write its port into file F
# start_peer_script S L  runs the Python peer tests/cli/S, which notes requests in L

set -uo pipefail

# `sluice` reads proxies from the environment, as curl does: a proxy set where the
# tests run (a CI runner's) must not carry the tests' loopback traffic. The proxy
# cases export the variables they test, then unset them.
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sluice-cli-test.XXXXXX")
BACKGROUND_PIDS=()
cleanup() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
# `sluice` reads a default config file first ($XDG_CONFIG_HOME/sluice/config, else
# ~/.config/sluice/config), as curl reads its .curlrc: a developer's own must not change
# what the tests send, so it is looked for in the (empty) scratch directory.
export XDG_CONFIG_HOME=$SCRATCH/xdg-config
OUT=$SCRATCH/stdout
ERR=$SCRATCH/stderr
CODE=0

fail() {
  echo "FAIL: $*" >&2
  if [ -s "$ERR" ]; then
    echo "--- sluice stderr:" >&2
    head -c 4000 "$ERR" >&2
  fi
  exit 1
}

run_sluice() {
  echo "+ sluice $*" >&2
  "$SLUICE" "$@" > "$OUT" 2> "$ERR"
  CODE=$?
}

expect_code() {
  [ "$CODE" -eq "$1" ] || fail "expected exit status $1, got $CODE"
}

# The exit codes are curl's: the same command line under curl must end the same way.
# Its output goes to the scratch directory, so the sluice run's files stay as they are.
expect_curls_code() {
  if ! command -v curl > /dev/null; then
    echo "note: no curl installed; exit code $CODE not compared" >&2
    return
  fi
  echo "+ curl $*" >&2
  local curl_code=0
  curl -q "$@" > "$SCRATCH/curl.stdout" 2> "$SCRATCH/curl.stderr" || curl_code=$?
  [ "$curl_code" -eq "$CODE" ] \
    || fail "sluice exited $CODE, curl $curl_code ($(head -c 300 "$SCRATCH/curl.stderr"))"
}

expect_one_error() {
  local lines
  lines=$(wc -l < "$ERR")
  [ "$lines" -eq 1 ] || fail "expected exactly one line on stderr, got $lines"
  grep -q '^sluice: ' "$ERR" || fail "the error line does not start with 'sluice: '"
  grep -qF -- "$1" "$ERR" || fail "the error line does not mention '$1'"
}

expect_no_stderr() {
  [ ! -s "$ERR" ] || fail "expected nothing on stderr"
}

expect_stdout() {
  local actual
  actual=$(cat "$OUT"; echo x)
  actual=${actual%x}
  [ "$actual" = "$1" ] || fail "expected stdout '$1', got '$actual'"
}

load_servers() {
  local file=${SLUICE_TEST_ENV_FILE:-}
  [ -n "$file" ] && [ -f "$file" ] \
    || fail "no server env file '$file' (run with the real_servers ctest fixture)"
  local line key value
  # Split at the first '=' by hand: read with IFS='=' would drop a value's trailing
  # '=' (base64 pins end in one).
  while IFS= read -r line; do
    key=${line%%=*}
    value=${line#*=}
    case $key in
      SLUICE_NGINX_HTTP_URL|SLUICE_NGINX_HTTPS_URL|SLUICE_NGINX_H2_URL|SLUICE_NGINX_*UNIX_SOCKET|SLUICE_NGHTTPD_H2C_URL|SLUICE_CADDY_URL|SLUICE_TEST_CA|SLUICE_FILES_DIR|SLUICE_SQUID_*|SLUICE_SOCKS5_PROXY|SLUICE_HTTPS_PROXY|SLUICE_NGINX_MTLS_URL|SLUICE_NGINX_ONESHOT_URL|SLUICE_CLIENT_*|SLUICE_SERVER_PUBKEY*|SLUICE_AUTH_*|SLUICE_LIGHTTPD_URL|SLUICE_DIGEST_*)
        printf -v "$key" '%s' "$value" ;;
    esac
  done < "$file"
  [ -n "${SLUICE_NGINX_HTTP_URL:-}" ] || fail "$file has no SLUICE_NGINX_HTTP_URL"
  [ -n "${SLUICE_FILES_DIR:-}" ] || fail "$file has no SLUICE_FILES_DIR"
}

expected_sha() {
  local sha
  sha=$(awk -v name="$1" '$2 == name || $2 == "*" name { print $1 }' \
    "$SLUICE_FILES_DIR/sha256sums")
  [ -n "$sha" ] || fail "no sha256 for $1 in $SLUICE_FILES_DIR/sha256sums"
  echo "$sha"
}

sha_of() {
  sha256sum "$1" | cut -d' ' -f1
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for_port_file FILE NAME: waits (up to 5 s) for a background peer to write its
# port into FILE; fails naming the peer otherwise.
wait_for_port_file() {
  local _
  for _ in $(seq 100); do
    [ -s "$1" ] && return
    sleep 0.05
  done
  fail "the $2 peer did not start"
}

# start_peer_script SCRIPT LOG: runs tests/cli/SCRIPT PORT_FILE LOG in the background
# (a Python peer that writes its port or ports to PORT_FILE, then notes each request
# in LOG), emptying LOG first; sets PEER_PORTS to what it wrote.
start_peer_script() {
  local port_file=$SCRATCH/$1.port
  : > "$2"
  python3 "$(dirname "$0")/$1" "$port_file" "$2" &
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" "$1"
  PEER_PORTS=$(cat "$port_file")
}

# start_listener: a loopback peer that accepts each connection, notes it as a line
# of $SCRATCH/connections ("probe" when its first bytes are "probe", else "other")
# and closes it at once; sets LISTENER_PORT. The line is written before the close,
# so a client that waited for the close finds it there.
start_listener() {
  local port_file=$SCRATCH/listener.port
  python3 - "$port_file" "$SCRATCH/connections" <<'PY' &
import os, socket, sys
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    conn, _ = listener.accept()
    first = conn.recv(5)
    with open(sys.argv[2], "a") as log:
        log.write(("probe" if first == b"probe" else "other") + "\n")
    conn.close()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" listener
  LISTENER_PORT=$(cat "$port_file")
}

run_case() {
  declare -F "case_$1" > /dev/null || fail "no test case '$1' in $0"
  "case_$1"
  echo "PASS: $1"
}
