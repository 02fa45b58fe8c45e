#!/usr/bin/env bash
# HTTP/1.0 (-0, --http1.0), international host names, -v's TLS lines and an HTTP/2
# server's per-connection request limit, each run by
# `sluice` and by real curl 7.88 on the same arguments: the same request line and Host
# header reach a local echo peer, the same exit codes, and -v names the same TLS
# version, cipher, ALPN and certificate fields. The nginx and caddy cases need the
# real_servers fixture; the others none.
# Usage: cli_protocols.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"

have_curl() {
  command -v curl > /dev/null && return
  echo "note: no curl installed; not compared with curl" >&2
  return 1
}

# start_echo: a loopback peer that answers each request with its own head as the body
# (HTTP/1.1 200, Connection: close); sets PEER_PORT.
start_echo() {
  local port_file=$SCRATCH/echo.port
  python3 - "$port_file" <<'PY' &
import os, socket, sys, threading
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])

def serve(conn):
    with conn:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head = data.split(b"\r\n\r\n")[0] + b"\r\n"
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                     % len(head) + head)

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" echo
  PEER_PORT=$(cat "$port_file")
}

# The echoed head's line starting with $1 (CR dropped), from file $2.
echoed_line() {
  tr -d '\r' < "$2" | grep -m1 "^$1" || true
}

case_http10_request_line_on_the_wire_as_curl_sends_it() {
  start_echo
  local url=http://127.0.0.1:$PEER_PORT/old?x=1 flag
  for flag in -0 --http1.0; do
    run_sluice -s "$flag" "$url"
    expect_code 0
    [ "$(echoed_line GET "$OUT")" = "GET /old?x=1 HTTP/1.0" ] \
      || fail "$flag sent '$(echoed_line GET "$OUT")'"
  done
  run_sluice -s -v -0 -o /dev/null "$url"
  grep -qxF "> GET /old?x=1 HTTP/1.0" "$ERR" || fail "-v does not show the 1.0 request line"
  if have_curl; then
    curl -q -s -0 "$url" > "$SCRATCH/curl.out" || fail "curl failed"
    [ "$(echoed_line GET "$SCRATCH/curl.out")" = "GET /old?x=1 HTTP/1.0" ] \
      || fail "curl sent '$(echoed_line GET "$SCRATCH/curl.out")'"
  fi
}

case_http10_upload_of_unknown_length_is_refused() {
  start_echo
  run_sluice -s -S -0 -T - "http://127.0.0.1:$PEER_PORT/up" < <(echo hello)
  # curl fails too ("chunky upload is not supported by HTTP 1.0"), with 25; sluice
  # refuses the combination before connecting, as bad input.
  expect_code 2
  expect_one_error "HTTP/1.0"
}

case_idn_host_goes_out_as_its_a_label_as_curl_sends_it() {
  start_echo
  local route=xn--bcher-kva.example:$PEER_PORT:127.0.0.1
  local url=http://Bücher.example:$PEER_PORT/ü
  run_sluice -s --resolve "$route" -w '\n%{url_effective}' "$url"
  expect_code 0
  [ "$(echoed_line Host: "$OUT")" = "Host: xn--bcher-kva.example:$PEER_PORT" ] \
    || fail "sluice sent '$(echoed_line Host: "$OUT")'"
  # curl shows the URL as it was given; sluice in its Unicode form, lowercased.
  [ "$(tail -n1 "$OUT")" = "http://bücher.example:$PEER_PORT/%C3%BC" ] \
    || fail "url_effective is '$(tail -n1 "$OUT")'"
  run_sluice -s --connect-to "xn--bcher-kva.example:$PEER_PORT:127.0.0.1:$PEER_PORT" "$url"
  expect_code 0
  [ "$(echoed_line Host: "$OUT")" = "Host: xn--bcher-kva.example:$PEER_PORT" ] \
    || fail "with --connect-to sluice sent '$(echoed_line Host: "$OUT")'"
  if have_curl; then
    curl -q -s --resolve "$route" "$url" > "$SCRATCH/curl.out" || fail "curl failed"
    [ "$(echoed_line Host: "$SCRATCH/curl.out")" = "Host: xn--bcher-kva.example:$PEER_PORT" ] \
      || fail "curl sent '$(echoed_line Host: "$SCRATCH/curl.out")'"
  fi
}

case_idn_host_that_does_not_convert_exits_3_as_curl() {
  run_sluice -s -S "http://-bücher.example/"
  expect_code 3
  expect_one_error "not a valid international name"
  expect_curls_code -s "http://-bücher.example/"
}

use_servers() {
  load_servers
  [ -n "${SLUICE_TEST_CA:-}" ] || fail "the env file has no SLUICE_TEST_CA"
}

# The TLS lines of a -v run in file $1: what curl 7.88 prints over OpenSSL.
tls_lines() {
  grep -E '^\* (SSL connection using|ALPN: server (accepted|did not)|Server certificate:| (subject|start date|expire date|subjectAltName|issuer):| SSL certificate verify)' "$1"
}

case_http10_against_nginx_over_http_and_https() {
  use_servers
  local url
  for url in "$SLUICE_NGINX_HTTP_URL/small.txt" "$SLUICE_NGINX_HTTPS_URL/small.txt"; do
    run_sluice -s -v -0 --cacert "$SLUICE_TEST_CA" -o /dev/null "$url"
    expect_code 0
    grep -qxF "> GET /small.txt HTTP/1.0" "$ERR" || fail "$url: no 1.0 request line"
  done
  grep -qxF "* ALPN: server accepted http/1.0" "$ERR" || fail "no ALPN http/1.0 over TLS"
  if have_curl; then
    curl -q -s -v -0 --cacert "$SLUICE_TEST_CA" -o /dev/null "$url" 2> "$SCRATCH/curl.err"
    grep -qxF "* ALPN: server accepted http/1.0" "$SCRATCH/curl.err" || fail "curl's ALPN differs"
  fi
}

# nginx's one-request-per-connection server (keepalive_requests 1) answers the first
# stream of each HTTP/2 connection and refuses the rest with GOAWAY(last stream 1).
# Four parallel downloads on one connection: sluice learns the limit from the first
# GOAWAY and sends each refused request on a connection of its own, so all four
# finish (before, each was refused on every new connection until its resends ran
# out). A --split download's ranges too.
case_parallel_downloads_finish_against_one_request_per_connection() {
  use_servers
  local url=${SLUICE_NGINX_ONESHOT_URL:?the env file has no SLUICE_NGINX_ONESHOT_URL}
  run_sluice -s --http2 --cacert "$SLUICE_TEST_CA" -Z --trace-ascii "$SCRATCH/trace" \
    -o "$SCRATCH/a" -o "$SCRATCH/b" -o "$SCRATCH/c" -o "$SCRATCH/d" \
    "$url/large.txt" "$url/1m.bin" "$url/large.txt" "$url/1m.bin"
  expect_code 0
  grep -q "GOAWAY received: last stream 1" "$SCRATCH/trace" || fail "nginx sent no GOAWAY"
  local name
  for name in a c; do
    [ "$(sha_of "$SCRATCH/$name")" = "$(expected_sha large.txt)" ] || fail "$name differs"
  done
  for name in b d; do
    [ "$(sha_of "$SCRATCH/$name")" = "$(expected_sha 1m.bin)" ] || fail "$name differs"
  done
  local connections
  connections=$(grep -c "connect: connected to" "$SCRATCH/trace")
  [ "$connections" -eq 4 ] || fail "expected 4 connections (1 + one per refused), got $connections"

  run_sluice -s --http2 --cacert "$SLUICE_TEST_CA" --split 4 -o "$SCRATCH/split" \
    "$url/64m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/split")" = "$(expected_sha 64m.bin)" ] || fail "the split download differs"
}

case_verbose_tls_lines_match_curls() {
  use_servers
  local url=$SLUICE_NGINX_H2_URL/small.txt
  run_sluice -s -v --cacert "$SLUICE_TEST_CA" -o /dev/null "$url"
  expect_code 0
  tls_lines "$ERR" > "$SCRATCH/ours.tls"
  grep -qxF "* ALPN: server accepted h2" "$SCRATCH/ours.tls" || fail "no ALPN line"
  grep -qxF '*  subjectAltName: host "localhost" matched cert'"'"'s "localhost"' "$SCRATCH/ours.tls" \
    || fail "no subjectAltName line: $(cat "$SCRATCH/ours.tls")"
  grep -qxF "*  SSL certificate verify ok." "$SCRATCH/ours.tls" || fail "no verify line"
  [ "$(wc -l < "$SCRATCH/ours.tls")" -eq 9 ] || fail "expected curl's 9 TLS lines: $(cat "$SCRATCH/ours.tls")"
  if have_curl; then
    curl -q -s -v --cacert "$SLUICE_TEST_CA" -o /dev/null "$url" 2> "$SCRATCH/curl.err"
    tls_lines "$SCRATCH/curl.err" > "$SCRATCH/curls.tls"
    # The same fields with the same values: version, cipher, ALPN, subject, dates,
    # the name matched, issuer and the verdict.
    diff "$SCRATCH/curls.tls" "$SCRATCH/ours.tls" > "$SCRATCH/tls.diff" \
      || fail "TLS lines differ from curl's: $(cat "$SCRATCH/tls.diff")"
  fi
}

case_verbose_tls_lines_over_http3() {
  use_servers
  run_sluice -s -v --http3-only --cacert "$SLUICE_TEST_CA" -o /dev/null "$SLUICE_CADDY_URL/small.txt"
  expect_code 0
  tls_lines "$ERR" > "$SCRATCH/ours.tls"
  grep -qE '^\* SSL connection using TLSv1\.3 / TLS_' "$SCRATCH/ours.tls" \
    || fail "no version and cipher line: $(cat "$SCRATCH/ours.tls")"
  grep -qxF "* ALPN: server accepted h3" "$SCRATCH/ours.tls" || fail "no ALPN h3 line"
  grep -qxF "*  subject: CN=localhost" "$SCRATCH/ours.tls" || fail "no subject line"
  grep -qxF "*  SSL certificate verify ok." "$SCRATCH/ours.tls" || fail "no verify line"
}

case_verbose_tls_says_nothing_over_plain_http() {
  use_servers
  run_sluice -s -v -o /dev/null "$SLUICE_NGINX_HTTP_URL/small.txt"
  expect_code 0
  ! tls_lines "$ERR" > /dev/null || fail "TLS lines over plain HTTP"
}

run_case "$2"
