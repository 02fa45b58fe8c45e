#!/usr/bin/env bash
# `sluice` against local peers that misbehave on purpose (a refused port, a server
# that never answers, a body cut short), plus output failures on the local side.
# Usage: cli_local.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# start_peer MODE: a loopback HTTP peer in the background; sets PEER_URL.
#   ok        answers every request with 200 and the body "hello from the peer\n"
#   silent    accepts, reads the request, never answers
#   truncated announces Content-Length: 100000, sends 1000 bytes, closes
#   http10    answers with an HTTP/1.0 status line, then closes
start_peer() {
  local port_file=$SCRATCH/peer.port
  rm -f "$port_file"
  python3 - "$1" "$port_file" <<'PY' &
import socket, sys, threading, time
mode, port_file = sys.argv[1], sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
import os
os.rename(port_file + ".tmp", port_file)

def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data

def serve(conn):
    with conn:
        while True:
            if read_head(conn) is None:
                return
            if mode == "silent":
                time.sleep(60)
                return
            if mode == "truncated":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n"
                             b"Content-Type: application/octet-stream\r\n\r\n" + b"x" * 1000)
                return
            body = b"hello from the peer\n"
            if mode == "http10":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" "$1"
  PEER_URL=http://127.0.0.1:$(cat "$port_file")
}

case_connection_refused_exits_7() {
  local url=http://127.0.0.1:$(free_port)/
  run_sluice -w '%{exitcode} %{http_code}' "$url"
  expect_code 7
  expect_one_error "127.0.0.1"
  expect_stdout "7 000"
}

case_silent_hides_errors_and_show_error_brings_them_back() {
  local url=http://127.0.0.1:$(free_port)/
  run_sluice -s "$url"
  expect_code 7
  expect_no_stderr
  run_sluice -sS "$url"
  expect_code 7
  expect_one_error "127.0.0.1"
}

case_max_time_expires_exits_28() {
  start_peer silent
  run_sluice -m 0.5 -w '%{exitcode}' "$PEER_URL/"
  expect_code 28
  expect_one_error ""
  expect_stdout "28"
}

case_truncated_body_exits_8_and_names_the_incomplete_file() {
  start_peer truncated
  run_sluice -o "$SCRATCH/part.bin" -w '%{exitcode} %{size_download}' "$PEER_URL/big"
  expect_code 8
  expect_one_error "'$SCRATCH/part.bin' is incomplete: 1000 bytes written"
  expect_stdout "8 1000"
  [ "$(stat -c %s "$SCRATCH/part.bin")" -eq 1000 ] || fail "the partial file is not 1000 bytes"
}

case_http10_answer_is_reported_as_1_0() {
  start_peer http10
  run_sluice -v -o /dev/null -w '%{http_version}' "$PEER_URL/old"
  expect_code 0
  expect_stdout "1.0"
  grep -q "^< HTTP/1.0 200" "$ERR" || fail "-v does not show HTTP/1.0"
}

case_truncated_body_to_stdout_is_an_error() {
  start_peer truncated
  run_sluice "$PEER_URL/big"
  expect_code 8
  expect_one_error ""
  [ "$(stat -c %s "$OUT")" -eq 1000 ] || fail "stdout did not get the 1000 bytes that came"
}

case_full_disk_exits_23() {
  start_peer ok
  run_sluice -o /dev/full "$PEER_URL/"
  expect_code 23
  expect_one_error "/dev/full"
}

case_unwritable_output_path_exits_23() {
  start_peer ok
  run_sluice -o "$SCRATCH/no/such/dir/out.txt" "$PEER_URL/"
  expect_code 23
  expect_one_error "$SCRATCH/no/such/dir/out.txt"
}

case_output_file_and_write_out_after_the_body() {
  start_peer ok
  run_sluice -o "$SCRATCH/out.txt" -w '%{http_code}|%{content_type}|%{size_download}\n' "$PEER_URL/x"
  expect_code 0
  expect_no_stderr
  expect_stdout $'200|text/plain|20\n'
  [ "$(cat "$SCRATCH/out.txt")" = "hello from the peer" ] || fail "-o file has the wrong content"
  run_sluice -w '[%{http_code}]' "$PEER_URL/x"
  expect_code 0
  expect_stdout $'hello from the peer\n[200]'
}

case_verbose_prints_request_and_response_heads() {
  start_peer ok
  run_sluice -v -A "cli-test/1" -H "X-Extra: yes" "$PEER_URL/path?q=1"
  expect_code 0
  expect_stdout $'hello from the peer\n'
  local line
  for line in "> GET /path?q=1 HTTP/1.1" "> Host: ${PEER_URL#http://}" "> User-Agent: cli-test/1" \
      "> X-Extra: yes" "< HTTP/1.1 200" "< Content-Type: text/plain" "< Content-Length: 20"; do
    grep -qxF -- "$line" "$ERR" || fail "-v output lacks the line '$line'"
  done
  # What the Client holds once the body is read: nothing in flight, nothing staged.
  grep -qE '^\* memory: 0 in flight, 0 paused, 0 B staged, .* scratch kept, 0 B of request bodies held, 1 connection, sweep freed [0-9]+ ' "$ERR" \
    || fail "-v output lacks the '* memory:' line: $(grep -F memory "$ERR")"
}

case_data_makes_a_form_post_and_header_options_replace_or_drop() {
  start_peer ok
  run_sluice -v -d 'a=1' -H "Accept: text/html" "$PEER_URL/form"
  expect_code 0
  local line
  for line in "> POST /form HTTP/1.1" "> Content-Type: application/x-www-form-urlencoded" \
      "> Accept: text/html" "> Content-Length: 3"; do
    grep -qxF -- "$line" "$ERR" || fail "-v output lacks the line '$line'"
  done
  grep -qxF "> Accept: */*" "$ERR" && fail "-H Accept did not replace the default Accept"
  run_sluice -v -X PUT -d 'a=1' -H "Content-Type:" "$PEER_URL/form"
  expect_code 0
  grep -qxF "> PUT /form HTTP/1.1" "$ERR" || fail "-X PUT did not set the method"
  grep -qi "^> Content-Type" "$ERR" && fail "-H 'Content-Type:' did not drop the header"
  return 0
}

run_case "$2"
