#!/usr/bin/env bash
# `sluice` as a downloader, against the real nginx of the real_servers fixture and
# local python peers: segmented downloads, resume after a kill, -C - on a truncated
# file, a server without ranges, checksums, the rate limit, -J, -Z, -i, --json-summary and
# the progress bar through a pseudo-terminal.
# Usage: cli_download.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL
H2=$SLUICE_NGINX_H2_URL

# start_file_peer MODE: a loopback HTTP/1.1 peer serving 3 MiB of fixed bytes
# ($SCRATCH/peer.bin); sets PEER_URL.
#   norange      ignores Range: always 200 with the whole body
#   disposition  sends Content-Disposition: attachment; filename="../../evil name.bin"
start_file_peer() {
  local port_file=$SCRATCH/peer.port
  head -c 3145728 "$SLUICE_FILES_DIR/64m.bin" > "$SCRATCH/peer.bin"
  python3 - "$1" "$port_file" "$SCRATCH/peer.bin" <<'PY' &
import os, socket, sys, threading
mode, port_file, body_file = sys.argv[1], sys.argv[2], sys.argv[3]
body = open(body_file, "rb").read()
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)

def serve(conn):
    with conn:
        data = b""
        while True:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            _, data = data.split(b"\r\n\r\n", 1)
            extra = b""
            if mode == "disposition":
                extra = b'Content-Disposition: attachment; filename="../../evil name.bin"\r\n'
            if mode == "rawname":  # a name that is not UTF-8
                extra = b'Content-Disposition: attachment; filename="caf\xff.bin"\r\n'
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n" % len(body) + extra +
                         b"\r\n" + body)

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" "$1"
  PEER_URL="http://127.0.0.1:$(cat "$port_file")"
}

case_names_that_are_not_utf8_stay_printable_and_json_parses() {
  start_file_peer rawname
  # %FF in the URL is not decoded into a raw byte: the name keeps the escape.
  run_sluice -O --create-dirs --output-dir "$SCRATCH/o" "$PEER_URL/a%FFb.bin"
  expect_code 0
  [ -f "$SCRATCH/o/a%FFb.bin" ] || fail "-O did not keep %FF escaped: $(ls "$SCRATCH/o")"
  # The server's raw 0xFF in Content-Disposition: the JSON line still parses.
  run_sluice -O -J --json-summary --create-dirs --output-dir "$SCRATCH/j" "$PEER_URL/x.bin"
  expect_code 0
  python3 -c 'import json, sys
for line in open(sys.argv[1], "rb"):
    record = json.loads(line)
    assert record["ok"], record
    assert record["path"].endswith("caf\ufffd.bin"), record["path"]' "$OUT" \
    || fail "the --json-summary output does not parse or names the file wrongly: $(cat "$OUT")"
}

case_resuming_a_complete_file_is_a_success() {
  run_sluice -C - -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  # The same command again: the server answers 416 for the range past the end, which
  # names the size; the file is complete, not failed.
  run_sluice -C - -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  grep -q "complete already" "$ERR" || fail "no note that the file was complete"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "small.txt differs"
}

case_segmented_download_matches() {
  run_sluice --split 8 -o "$SCRATCH/256m.bin" "$HTTP/256m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/256m.bin")" = "$(expected_sha 256m.bin)" ] || fail "256m.bin differs"
  [ ! -e "$SCRATCH/256m.bin.sluice" ] || fail "the control file is left after success"
  run_sluice --split 4 --http2 --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/h2.bin" "$H2/64m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/h2.bin")" = "$(expected_sha 64m.bin)" ] || fail "64m.bin over h2 differs"
}

case_killed_segmented_download_resumes() {
  local out=$SCRATCH/256m.bin pid _
  "$SLUICE" --split 4 --limit-rate 40M -o "$out" "$HTTP/256m.bin" > /dev/null 2> "$ERR" &
  pid=$!
  for _ in $(seq 200); do
    [ -e "$out.sluice" ] && [ "$(stat -c %s "$out")" -gt 0 ] && break
    sleep 0.05
  done
  sleep 1
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  [ -e "$out.sluice" ] || fail "no control file beside the killed download"
  run_sluice -C - --split 4 -o "$out" "$HTTP/256m.bin"
  expect_code 0
  [ "$(sha_of "$out")" = "$(expected_sha 256m.bin)" ] || fail "the resumed file differs"
  [ ! -e "$out.sluice" ] || fail "the control file is left after the resumed download"
}

case_continue_a_truncated_file() {
  head -c 10485760 "$SLUICE_FILES_DIR/64m.bin" > "$SCRATCH/64m.bin"
  run_sluice -C - --json-summary -o "$SCRATCH/64m.bin" "$HTTP/64m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/64m.bin")" = "$(expected_sha 64m.bin)" ] || fail "the continued file differs"
  grep -q '"resumed_from":10485760' "$OUT" || fail "--json-summary does not say it resumed: $(cat "$OUT")"
  grep -q '"transferred":56623104' "$OUT" || fail "more than the rest was transferred: $(cat "$OUT")"
}

case_mirrors_share_the_ranges_and_a_dead_one_is_dropped() {
  # nginx serves the same files over http and https, with the same ETag: a mirror.
  # Nothing listens on port 1: that mirror is dropped and its range goes elsewhere.
  run_sluice --json-summary --cacert "$SLUICE_TEST_CA" --mirror "$SLUICE_NGINX_HTTPS_URL/64m.bin" \
    --mirror http://127.0.0.1:1/64m.bin -o "$SCRATCH/64m.bin" "$HTTP/64m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/64m.bin")" = "$(expected_sha 64m.bin)" ] || fail "the file differs"
  grep -q 'mirror http://127.0.0.1:1/64m.bin dropped' "$ERR" || fail "no note on the dead mirror: $(cat "$ERR")"
  /usr/bin/python3 - "$OUT" "$SLUICE_NGINX_HTTPS_URL/64m.bin" <<'PY' || fail "--json-summary sources: $(cat "$OUT")"
import json, sys
summary = json.loads(open(sys.argv[1]).read())
sources = summary["sources"]
assert [s["url"] for s in sources][1:] == [sys.argv[2], "http://127.0.0.1:1/64m.bin"], sources
assert sources[1]["bytes"] > 0 and sources[1]["dropped"] is None, sources
assert sources[2]["bytes"] == 0 and sources[2]["dropped"], sources
assert sum(s["bytes"] for s in sources) == summary["size"], sources
PY
}

case_server_without_ranges_gets_one_connection() {
  start_file_peer norange
  run_sluice --split 4 -o "$SCRATCH/peer.out" "$PEER_URL/file.bin"
  expect_code 0
  cmp -s "$SCRATCH/peer.out" "$SCRATCH/peer.bin" || fail "the file differs"
  grep -qi "range" "$ERR" || fail "no note that the server does not answer ranges"
  head -c 1000000 "$SCRATCH/peer.bin" > "$SCRATCH/partial.out"
  cp "$SCRATCH/partial.out" "$SCRATCH/fetched.out"
  # The downloader (--split) restarts the file; a single fetch, as curl, cannot resume.
  run_sluice -C - --split 1 -o "$SCRATCH/partial.out" "$PEER_URL/file.bin"
  expect_code 0
  cmp -s "$SCRATCH/partial.out" "$SCRATCH/peer.bin" || fail "the restarted file differs"
  grep -qi "restart" "$ERR" || fail "no note that the download restarted from the beginning"
  run_sluice -C - -o "$SCRATCH/fetched.out" "$PEER_URL/file.bin"
  expect_code 33
  expect_one_error "does not answer ranges"
  cp "$SCRATCH/fetched.out" "$SCRATCH/curl.out"
  expect_curls_code -s -C - -o "$SCRATCH/curl.out" "$PEER_URL/file.bin"
  # -C OFFSET keeps the first OFFSET bytes: the downloader does not start again from
  # byte 0 over them, it fails and leaves the file as it was.
  head -c 1000000 "$SCRATCH/peer.bin" > "$SCRATCH/kept.out"
  cp "$SCRATCH/kept.out" "$SCRATCH/kept.before"
  run_sluice -C 500000 --split 2 -o "$SCRATCH/kept.out" "$PEER_URL/file.bin"
  [ "$CODE" -ne 0 ] || fail "a 200 for -C 500000 was taken as success"
  grep -q "ignored the range 'bytes=500000-' (200)" "$ERR" || fail "unexpected error: $(cat "$ERR")"
  cmp -s "$SCRATCH/kept.out" "$SCRATCH/kept.before" || fail "the kept bytes were overwritten"
}

case_checksum_mismatch_is_an_error_and_the_file_is_not_complete() {
  local zeros
  zeros=$(printf '0%.0s' $(seq 64))
  run_sluice --checksum "sha256=$zeros" -o "$SCRATCH/1m.bin" "$HTTP/1m.bin"
  expect_code 8
  grep -q "SHA-256" "$ERR" || fail "the error does not name the checksum"
  [ ! -e "$SCRATCH/1m.bin" ] || fail "the unverified file is presented as complete"
  [ -e "$SCRATCH/1m.bin.sluice-bad" ] || fail "the bytes were not kept aside"
  run_sluice --checksum "sha256=$(expected_sha 1m.bin)" -o "$SCRATCH/1m.bin" "$HTTP/1m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
}

# 64 MiB at 6 MiB/s: about 10.7 s; the average rate must be within 10% of the limit.
case_limit_rate_is_accurate() {
  local start end rate
  start=$(date +%s.%N)
  run_sluice --limit-rate 6M -o "$SCRATCH/64m.bin" "$HTTP/64m.bin"
  end=$(date +%s.%N)
  expect_code 0
  rate=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", 67108864 / (e - s) }')
  [ "$rate" -le 6920601 ] || fail "rate $rate B/s is more than 10% above 6 MiB/s"
  [ "$rate" -ge 5662310 ] || fail "rate $rate B/s is more than 10% below 6 MiB/s"
}

case_remote_header_name_is_used_safely() {
  start_file_peer disposition
  mkdir -p "$SCRATCH/dl"
  run_sluice -O -J --output-dir "$SCRATCH/dl" "$PEER_URL/some/path/file.bin"
  expect_code 0
  [ -f "$SCRATCH/dl/evil name.bin" ] || fail "not saved as 'evil name.bin': $(ls -A "$SCRATCH/dl")"
  cmp -s "$SCRATCH/dl/evil name.bin" "$SCRATCH/peer.bin" || fail "the file differs"
  [ ! -e "$SCRATCH/evil name.bin" ] || fail "the name's path components were followed"
}

case_parallel_list_json_and_create_dirs() {
  printf '%s\n' "# files" "$HTTP/1m.bin" "" "$HTTP/small.txt" > "$SCRATCH/list.txt"
  run_sluice -Z -O --json-summary --create-dirs --output-dir "$SCRATCH/a/b" --input-file "$SCRATCH/list.txt" \
    "$HTTP/64m.bin"
  expect_code 0
  local name
  for name in 1m.bin small.txt 64m.bin; do
    [ "$(sha_of "$SCRATCH/a/b/$name")" = "$(expected_sha "$name")" ] || fail "$name differs"
  done
  [ "$(grep -c '"ok":true' "$OUT")" -eq 3 ] || fail "not three successful --json-summary lines: $(cat "$OUT")"
}

case_failed_download_in_a_list_sets_the_exit_code() {
  run_sluice -O --json-summary --output-dir "$SCRATCH" "$HTTP/1m.bin" "$HTTP/missing.bin"
  expect_code 22
  grep -q '"ok":false' "$OUT" || fail "no failed --json-summary line"
  grep -q "404" "$ERR" || fail "the error does not name the status"
  [ ! -e "$SCRATCH/missing.bin" ] || fail "a 404 left a file presented as complete"
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
}

# The bar through a pseudo-terminal: redrawn in place (carriage returns or cursor
# movement), and the last thing written is a newline: the shell's prompt starts on
# a clean line, with no escape code left after it.
case_progress_bar_on_a_terminal_ends_on_a_clean_line() {
  local typescript=$SCRATCH/typescript
  SLUICE_BIN=$SLUICE URL="$HTTP/64m.bin" OUTFILE="$SCRATCH/64m.bin" \
    script -qfec '"$SLUICE_BIN" --progress=bar --limit-rate 32M -o "$OUTFILE" "$URL"' "$typescript" > /dev/null
  [ "$(sha_of "$SCRATCH/64m.bin")" = "$(expected_sha 64m.bin)" ] || fail "64m.bin differs"
  grep -q "64m.bin" "$typescript" || fail "the bar does not name the file"
  grep -q "100%" "$typescript" || fail "the bar never reached 100%"
  [ "$(tr -cd '\r\033' < "$typescript" | wc -c)" -gt 2 ] || fail "the bar was not redrawn in place"
  local tail_bytes
  tail_bytes=$(tail -c 1 "$typescript" | od -An -c | tr -d ' ')
  [ "$tail_bytes" = '\n' ] || fail "the output does not end with a newline: '$tail_bytes'"
}

# Fetch mode (one URL, no downloader option) with -o FILE shows the same meter on a
# terminal, as curl shows its meter when the body goes to a file: its final line
# names the file and says 100%. Nothing with -s, nor when the body goes to stdout.
case_fetch_to_a_file_shows_the_meter_on_a_terminal() {
  local typescript=$SCRATCH/typescript
  SLUICE_BIN=$SLUICE URL="$HTTP/1m.bin" OUTFILE="$SCRATCH/1m.bin" \
    script -qfec '"$SLUICE_BIN" -o "$OUTFILE" "$URL"' "$typescript" > /dev/null
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
  grep -a '1m.bin' "$typescript" | grep -aq '100%' || fail "no final meter line: $(cat -A "$typescript")"
  rm -f "$SCRATCH/1m.bin"
  SLUICE_BIN=$SLUICE URL="$HTTP/1m.bin" OUTFILE="$SCRATCH/1m.bin" \
    script -qfec '"$SLUICE_BIN" -s -o "$OUTFILE" "$URL"' "$typescript" > /dev/null
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs with -s"
  ! grep -aq -e '100%' -e $'\033' "$typescript" || fail "-s drew a meter: $(cat -A "$typescript")"
  SLUICE_BIN=$SLUICE URL="$HTTP/small.txt" \
    script -qfec '"$SLUICE_BIN" "$URL"' "$typescript" > /dev/null
  ! grep -aq -e '100%' -e $'\033' "$typescript" || fail "a body on stdout got a meter: $(cat -A "$typescript")"
}

case_no_progress_when_not_a_terminal_unless_asked() {
  run_sluice -o "$SCRATCH/1m.bin" -O "$HTTP/1m.bin"
  expect_code 0
  expect_no_stderr
  run_sluice --progress=line --limit-rate 8M -o "$SCRATCH/64m.bin" "$HTTP/64m.bin"
  expect_code 0
  grep -q "64m.bin" "$ERR" || fail "--progress=line printed no line naming the file"
  ! grep -q $'\033' "$ERR" || fail "--progress=line wrote escape codes"
}

run_case "$2"
