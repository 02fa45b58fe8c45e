#!/usr/bin/env bash
# How fast a transfer must go and may go, and the exit codes of failures curl numbers
# apart, each beside real curl 7.88 where curl has the same option: --speed-limit /
# --speed-time (28) in fetch and downloader mode, --limit-rate-total over parallel
# downloads, -w %{size_download} of a gzip-encoded body, and the empty reply (52), a
# close inside the head (8), a reset (56), a send that fails (55), a bad gzip body
# (61), an unreadable CA file (77) and a proxy that does not speak SOCKS5 (97).
# Usage: cli_speed_exit.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# start_peer MODE: a loopback peer in the background that misbehaves as MODE says;
# sets PEER_PORT and PEER_URL.
#   trickle      200 with Content-Length: 100000, then one byte every 0.2 s
#   empty        reads the request, closes without a byte
#   midhead      sends half a head, closes
#   reset        sends a head and 3 body bytes of 100, then resets the connection
#   badgzip      200 with Content-Encoding: gzip and a body that is not gzip
#   stopread     reads the head of an upload, then resets without reading the body
#   notsocks     answers a SOCKS5 greeting with an HTTP status line
start_peer() {
  local port_file=$SCRATCH/peer.port
  rm -f "$port_file"
  python3 - "$1" "$port_file" <<'PY' &
import os, socket, struct, sys, threading, time
mode, port_file = sys.argv[1], sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)

def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data

def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()

def serve(conn):
    if mode == "notsocks":
        conn.recv(64)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        time.sleep(1)
        conn.close()
        return
    if read_head(conn) is None:
        return
    if mode == "trickle":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        try:
            for _ in range(100000):
                conn.sendall(b"x")
                time.sleep(0.2)
        except OSError:
            pass
    elif mode == "midhead":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Le")
    elif mode == "reset":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
        time.sleep(0.2)
        reset(conn)
        return
    elif mode == "badgzip":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
                     b"Content-Length: 10\r\n\r\nnotgzip!!!")
    elif mode == "stopread":
        reset(conn)
        return
    conn.close()

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" "$1"
  PEER_PORT=$(cat "$port_file")
  PEER_URL=http://127.0.0.1:$PEER_PORT
}

case_speed_limit_aborts_a_trickle_with_28_as_curl() {
  start_peer trickle
  run_sluice -s -S -Y 1000 -y 2 -o "$SCRATCH/out" "$PEER_URL/slow"
  expect_code 28
  expect_one_error "operation too slow: less than 1000 bytes/sec transferred the last 2 seconds"
  expect_curls_code -s -Y 1000 -y 2 -o "$SCRATCH/curl.out" "$PEER_URL/slow"
  # --speed-time alone is a limit of 1 byte a second, as in curl: the trickle's
  # five bytes a second pass it.
  run_sluice -s -S -y 2 -m 4 -o "$SCRATCH/out" "$PEER_URL/slow"
  expect_code 28
  grep -q "total timeout" "$ERR" || fail "-y alone stopped the trickle before -m did"
}

case_speed_limit_aborts_a_download_with_28() {
  start_peer trickle
  run_sluice -s -S -Y 1000 -y 2 --output-dir "$SCRATCH" -O "$PEER_URL/slow.bin"
  expect_code 28
  grep -q "operation too slow" "$ERR" || fail "the download did not stop for --speed-limit"
}

case_speed_limit_leaves_a_fast_transfer_alone() {
  load_servers
  run_sluice -s -S -Y 1 -y 5 -o "$SCRATCH/1m.bin" "$SLUICE_NGINX_HTTP_URL/1m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
}

case_speed_options_check_their_values() {
  run_sluice -Y fast http://127.0.0.1:1/
  expect_code 2
  expect_one_error "--speed-limit: 'fast' is not a whole number"
  run_sluice --speed-time -1 http://127.0.0.1:1/
  expect_code 2
  expect_one_error "--speed-time: '-1' is not a whole number"
  run_sluice --limit-rate-total 0 http://127.0.0.1:1/
  expect_code 2
  expect_one_error "--limit-rate-total"
}

# Two downloads at once share --limit-rate-total: together they take at least their
# bytes over the rate, less the bucket's first tenth of a second. A lower bound on the
# time is all that is asserted (a slow machine only makes it longer); the library's
# test checks the bound at every progress event.
case_limit_rate_total_holds_parallel_downloads_under_it() {
  load_servers
  local started ended
  started=$(date +%s%N)
  run_sluice -s -S -Z --limit-rate-total 1M -o "$SCRATCH/copy#1.bin" \
    "$SLUICE_NGINX_HTTP_URL/1m.bin?copy=[1-2]"
  ended=$(date +%s%N)
  expect_code 0
  [ "$(sha_of "$SCRATCH/copy1.bin")" = "$(expected_sha 1m.bin)" ] || fail "copy 1 differs"
  [ "$(sha_of "$SCRATCH/copy2.bin")" = "$(expected_sha 1m.bin)" ] || fail "copy 2 differs"
  # 2 MiB at 1 MiB/s: 2 s, less 0.1 s of burst.
  [ $(( (ended - started) / 1000000 )) -ge 1900 ] \
    || fail "two 1 MiB downloads under --limit-rate-total 1M took $(( (ended - started) / 1000000 )) ms"
}

# curl's %{size_download} is the bytes received, before --compressed decodes them.
case_size_download_counts_the_encoded_bytes_as_curl() {
  load_servers
  local ours theirs decoded
  run_sluice -s --compressed -o "$SCRATCH/text" -w '%{size_download}' \
    "$SLUICE_NGINX_HTTP_URL/large.txt"
  expect_code 0
  ours=$(cat "$OUT")
  decoded=$(stat -c %s "$SCRATCH/text")
  [ "$ours" -lt "$decoded" ] || fail "size_download $ours is not the gzip size (decoded: $decoded)"
  if command -v curl > /dev/null; then
    theirs=$(curl -q -s --compressed -o /dev/null -w '%{size_download}' \
      "$SLUICE_NGINX_HTTP_URL/large.txt")
    [ "$ours" = "$theirs" ] || fail "size_download: sluice $ours, curl $theirs"
  fi
}

case_empty_reply_exits_52_as_curl() {
  start_peer empty
  run_sluice -s -S "$PEER_URL/"
  expect_code 52
  expect_one_error "empty reply from server"
  expect_curls_code -s "$PEER_URL/"
}

# curl 7.88 exits 0 here, having written nothing: sluice calls half a head what it is.
case_close_inside_the_head_exits_8() {
  start_peer midhead
  run_sluice -s -S "$PEER_URL/"
  expect_code 8
  expect_one_error "connection closed before the response headers were complete"
}

case_reset_mid_body_exits_56_as_curl() {
  start_peer reset
  run_sluice -s -S -o "$SCRATCH/out" "$PEER_URL/"
  expect_code 56
  expect_one_error "connection reset by peer"
  expect_curls_code -s -o "$SCRATCH/curl.out" "$PEER_URL/"
}

case_bad_gzip_exits_61_as_curl() {
  start_peer badgzip
  run_sluice -s -S --compressed "$PEER_URL/"
  expect_code 61
  expect_curls_code -s --compressed "$PEER_URL/"
}

case_unreadable_ca_file_exits_77_as_curl() {
  load_servers
  run_sluice -s -S --cacert "$SCRATCH/no-such-ca.pem" "$SLUICE_NGINX_HTTPS_URL/small.txt"
  expect_code 77
  expect_one_error "cannot read CA file $SCRATCH/no-such-ca.pem"
  expect_curls_code -s --cacert "$SCRATCH/no-such-ca.pem" "$SLUICE_NGINX_HTTPS_URL/small.txt"
}

case_proxy_that_is_not_socks5_exits_97_as_curl() {
  start_peer notsocks
  run_sluice -s -S -x "socks5h://127.0.0.1:$PEER_PORT" "http://example.invalid/"
  expect_code 97
  expect_curls_code -s -x "socks5h://127.0.0.1:$PEER_PORT" "http://example.invalid/"
}

run_case "$2"
