#!/usr/bin/env bash
# Starts the real servers for the integration tests (ctest fixture servers.start):
# nginx (HTTP/1.1 plain and TLS, HTTP/2 over TLS), nghttpd (HTTP/2 over TLS and h2c),
# caddy (h1/h2 over TLS, h3 over UDP) and gtlsserver (h3 over UDP only); and the
# proxies: squid (HTTP proxy, open and with Basic auth) and microsocks (SOCKS5).
# Usage: start.sh BUILD_DIR
# State goes to BUILD_DIR/test-env: generated files, certificates, configs, pid
# files, logs, and `env` (KEY=VALUE lines) that tests read through
# sluice::test::TestEnv (tests/support/test_env.hpp documents every key).
# The generated files are kept between runs; the certificates and ports are new.
# Running it again restarts everything; stop.sh stops everything.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
state=$build/test-env
files=$state/files
# shellcheck source=tests/support/servers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/support/servers/peers.sh
. "$(dirname "$0")/peers.sh"
# shellcheck source=tests/support/servers/proxies.sh
. "$(dirname "$0")/proxies.sh"
# shellcheck source=tests/support/servers/lighttpd.sh
. "$(dirname "$0")/lighttpd.sh"

command -v nginx >/dev/null || servers_die "nginx not found: run ./dev deps (installs nginx-light)"
command -v nghttpd >/dev/null || servers_die "nghttpd not found: run ./dev deps (installs nghttp2-server)"
command -v caddy >/dev/null || servers_die "caddy not found: run ./dev deps (installs caddy)"
command -v gtlsserver >/dev/null \
  || servers_die "gtlsserver not found: run ./dev deps (installs ngtcp2-server)"
squid_program >/dev/null || servers_die "squid not found: run ./dev deps (installs squid)"
command -v microsocks >/dev/null \
  || servers_die "microsocks not found: run ./dev deps (installs microsocks)"
command -v lighttpd >/dev/null \
  || servers_die "lighttpd not found: run ./dev deps (installs lighttpd)"
mkdir -p "$state" "$files"
rm -f "$state/env"
# A start that fails half way leaves nothing running.
stop_all_on_failure() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    stop_lighttpd "$state"
    stop_proxies "$state"
    stop_peers "$state"
    stop_nginx "$state"
  fi
}
trap stop_all_on_failure EXIT

# make_files DIR: the files every server serves, with DIR/sha256sums. Random bytes for the
# binaries (incompressible), repetitive text for gzip.
make_files() {
  local dir=$1
  head -c 0 /dev/null > "$dir/empty.bin"
  head -c 1048576 /dev/urandom > "$dir/1m.bin"
  head -c 67108864 /dev/urandom > "$dir/64m.bin"
  # What a segmented download is checked with (sluice --split).
  head -c 268435456 /dev/urandom > "$dir/256m.bin"
  printf 'sluice: a gate that lets water through at the rate the channel below can take.\n' > "$dir/small.txt"
  for _ in 1 2 3 4 5 6 7 8; do
    printf 'Backpressure: a reader that stops reading stops the transport.\n'
  done >> "$dir/small.txt"
  awk 'BEGIN { for (i = 1; i <= 60000; i++)
    printf "%08d the sluice lets water through at the rate the channel below can take\n", i }' \
    > "$dir/large.txt"
  # 64 MiB of text: what a held gzip body is measured with (sluice-bench held).
  awk 'BEGIN { for (i = 1; i <= 900000; i++)
    printf "%08d a reader that stops reading stops the transport, however long the body\n", i }' \
    > "$dir/64m.txt"
  truncate -s 67108864 "$dir/64m.txt"
  (cd "$dir" && sha256sum empty.bin 1m.bin 64m.bin 256m.bin small.txt large.txt 64m.txt > sha256sums.tmp \
    && mv sha256sums.tmp sha256sums)
}

# make_bomb DIR: a decompression bomb, DIR/bomb.bin.gz (one gzip stream of 256 MiB of
# zeros, about 250 KiB: 1030:1), which nginx and caddy send for /bomb.bin as
# Content-Encoding: gzip, beside bomb.bin itself (the zeros, a sparse file: caddy
# serves a precompressed file only when the original exists). DIR/bomb.sha256 checks
# the gzip, which `gzip -n` makes the same every time.
make_bomb() {
  local dir=$1
  rm -f "$dir/bomb.bin"
  truncate -s 268435456 "$dir/bomb.bin"
  gzip -9 -n -c "$dir/bomb.bin" > "$dir/bomb.bin.gz"
  (cd "$dir" && sha256sum bomb.bin.gz > bomb.sha256)
}

if ! (cd "$files" && sha256sum --quiet --check sha256sums >/dev/null 2>&1); then
  echo "servers: generating test files in $files"
  make_files "$files"
fi
if ! (cd "$files" && [ "$(stat -c %s bomb.bin 2>/dev/null)" = 268435456 ] \
    && sha256sum --quiet --check bomb.sha256 >/dev/null 2>&1); then
  make_bomb "$files"
fi
rm -rf "$files/upload"
mkdir -p "$files/upload"

make_certs "$state/certs"
start_nginx "$state" "$files"
start_nghttpd "$state" "$files" nghttpd-tls tls
nghttpd_tls_port=$NGHTTPD_PORT
start_nghttpd "$state" "$files" nghttpd-h2c h2c
nghttpd_h2c_port=$NGHTTPD_PORT
start_caddy "$state" "$files" "$NGINX_HTTP_PORT"
start_gtlsserver "$state" "$files"
start_squid "$state"
start_stunnel "$state" "$SQUID_PORT"
start_microsocks "$state"
start_lighttpd "$state" "$files"

cat > "$state/env.tmp" <<ENV
SLUICE_NGINX_HTTP_URL=http://127.0.0.1:$NGINX_HTTP_PORT
SLUICE_NGINX_HTTPS_URL=https://localhost:$NGINX_HTTPS_PORT
SLUICE_NGINX_H2_URL=https://localhost:$NGINX_H2_PORT
SLUICE_NGINX_UNIX_SOCKET=$state/nginx.sock
SLUICE_IPV6_LOOPBACK=$(ipv6_loopback && echo yes || echo no)
SLUICE_NGINX_H2C_UNIX_SOCKET=$state/nginx-h2c.sock
SLUICE_NGHTTPD_URL=https://localhost:$nghttpd_tls_port
SLUICE_NGHTTPD_H2C_URL=http://127.0.0.1:$nghttpd_h2c_port
SLUICE_CADDY_URL=https://localhost:$CADDY_PORT
SLUICE_CADDY_MTLS_URL=https://localhost:$CADDY_MTLS_PORT
SLUICE_GTLSSERVER_URL=https://localhost:$GTLSSERVER_PORT
SLUICE_GTLSSERVER_V4_URL=https://127.0.0.1:$GTLSSERVER_PORT
SLUICE_TEST_CA=$state/certs/ca.pem
SLUICE_NGINX_MTLS_URL=https://localhost:$NGINX_MTLS_PORT
SLUICE_NGINX_ONESHOT_URL=https://localhost:$NGINX_ONESHOT_PORT
SLUICE_CLIENT_CERT=$state/certs/client.pem
SLUICE_CLIENT_KEY=$state/certs/client.key
SLUICE_CLIENT_COMBINED=$state/certs/client-combined.pem
SLUICE_CLIENT_KEY_ENCRYPTED=$state/certs/client-encrypted.key
SLUICE_CLIENT_KEY_PASSPHRASE=$(cat "$state/certs/client-key-passphrase")
SLUICE_TEST_CAPATH=$state/certs/capath
SLUICE_SERVER_PUBKEY=$state/certs/server-pubkey.pem
SLUICE_SERVER_PUBKEY_PIN=$(cat "$state/certs/server-pubkey.pin")
SLUICE_FILES_DIR=$files
SLUICE_SQUID_PROXY=http://127.0.0.1:$SQUID_PORT
SLUICE_SQUID_AUTH_PROXY=http://127.0.0.1:$SQUID_AUTH_PORT
SLUICE_SQUID_AUTH_USER=$SLUICE_SQUID_AUTH_USER
SLUICE_AUTH_USER=$SLUICE_AUTH_USER
SLUICE_AUTH_PASSWORD=$SLUICE_AUTH_PASSWORD
SLUICE_AUTH_TOKEN=$SLUICE_AUTH_TOKEN
SLUICE_SQUID_AUTH_PASSWORD=$SLUICE_SQUID_AUTH_PASSWORD
SLUICE_SOCKS5_PROXY=socks5://127.0.0.1:$MICROSOCKS_PORT
SLUICE_HTTPS_PROXY=https://localhost:$STUNNEL_PORT
SLUICE_LIGHTTPD_URL=http://127.0.0.1:$LIGHTTPD_PORT
SLUICE_DIGEST_USER=$SLUICE_DIGEST_USER
SLUICE_DIGEST_PASSWORD=$SLUICE_DIGEST_PASSWORD
ENV
mv "$state/env.tmp" "$state/env"
echo "servers: nginx on http://127.0.0.1:$NGINX_HTTP_PORT, https://localhost:$NGINX_HTTPS_PORT (h1)" \
  "and https://localhost:$NGINX_H2_PORT (h2)"
echo "servers: nghttpd on https://localhost:$nghttpd_tls_port and h2c http://127.0.0.1:$nghttpd_h2c_port"
echo "servers: caddy on https://localhost:$CADDY_PORT (h1/h2 TCP, h3 UDP)"
echo "servers: gtlsserver on https://localhost:$GTLSSERVER_PORT (h3 UDP only)"
echo "servers: squid on http://127.0.0.1:$SQUID_PORT and, with Basic auth," \
  "http://127.0.0.1:$SQUID_AUTH_PORT; microsocks on socks5://127.0.0.1:$MICROSOCKS_PORT"
echo "servers: lighttpd (Digest) on http://127.0.0.1:$LIGHTTPD_PORT"
echo "servers: state $state"
