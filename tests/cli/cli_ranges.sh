#!/usr/bin/env bash
# Which bytes reach which output, in both modes (a single fetch, curl's way, and the
# downloader): -m as a hard deadline under --limit-rate, outputs that are not
# regular files (/dev/null, a FIFO, a pipe on stdout), -C - on a complete file, -C
# OFFSET, -r RANGE and --no-clobber; compared with curl 7.88 where curl has the option.
# Usage: cli_ranges.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL

# elapsed_ms COMMAND...: runs it (its status in $CODE), prints how long it took.
elapsed_ms() {
  local start end
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  ELAPSED_MS=$(( (end - start) / 1000000 ))
}

case_max_time_is_a_deadline_under_limit_rate() {
  # 10K a second reads 64 MiB for hours; what the transport staged before the
  # deadline once took seconds more to drain. Both modes end at -m (0.5 s), give or
  # take the time to connect: 3 s is far above that and far below the old drain.
  elapsed_ms run_sluice -m 0.5 --limit-rate 10K -o "$SCRATCH/a.bin" "$HTTP/64m.bin"
  expect_code 28
  [ "$ELAPSED_MS" -lt 3000 ] || fail "-m 0.5 took ${ELAPSED_MS} ms in a fetch"
  grep -q "total timeout" "$ERR" || fail "the error does not say which timeout"
  expect_curls_code -s -m 0.5 --limit-rate 10K -o "$SCRATCH/c.bin" "$HTTP/64m.bin"
  elapsed_ms run_sluice -m 0.5 --limit-rate 10K --split 2 -o "$SCRATCH/d.bin" "$HTTP/64m.bin"
  expect_code 28
  [ "$ELAPSED_MS" -lt 3000 ] || fail "-m 0.5 took ${ELAPSED_MS} ms in the downloader"
}

case_downloader_writes_to_dev_null_a_fifo_and_a_pipe() {
  [ ! -e /dev/null.sluice ] || fail "/dev/null.sluice is there before the test"
  run_sluice --split 4 -o /dev/null "$HTTP/1m.bin"
  expect_code 0
  [ ! -e /dev/null.sluice ] || { rm -f /dev/null.sluice; fail "a control file beside /dev/null"; }
  grep -q "'/dev/null' is not a regular file: one range, written in order" "$ERR" \
    || fail "no note that --split became one range"
  # A FIFO: written in order (a reader sees the file's bytes), nothing created beside it.
  mkfifo "$SCRATCH/fifo"
  sha256sum < "$SCRATCH/fifo" | cut -d' ' -f1 > "$SCRATCH/fifo.sha" &
  local reader=$!
  run_sluice --split 4 --checksum "sha256=$(expected_sha 1m.bin)" -o "$SCRATCH/fifo" "$HTTP/1m.bin"
  expect_code 0
  wait "$reader"
  [ "$(cat "$SCRATCH/fifo.sha")" = "$(expected_sha 1m.bin)" ] || fail "the FIFO's reader got other bytes"
  [ -p "$SCRATCH/fifo" ] && [ ! -e "$SCRATCH/fifo.sluice" ] \
    || fail "the FIFO was replaced or has a control file: $(ls "$SCRATCH")"
  # /dev/stdout on a pipe.
  "$SLUICE" --split 2 -o /dev/stdout "$HTTP/1m.bin" 2> "$ERR" | sha256sum | cut -d' ' -f1 > "$SCRATCH/pipe.sha"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "-o /dev/stdout on a pipe failed"
  [ "$(cat "$SCRATCH/pipe.sha")" = "$(expected_sha 1m.bin)" ] || fail "the pipe got other bytes"
}

# nginx answers the range past the end with "Content-Range: bytes */SIZE", lighttpd
# with no Content-Range at all; curl takes either as complete.
case_continue_a_complete_file_succeeds_in_both_modes() {
  local base
  for base in "$HTTP" "$SLUICE_LIGHTTPD_URL"; do
    curl -s -o "$SCRATCH/small.txt" "$base/small.txt" || fail "curl could not fetch $base/small.txt"
    run_sluice -C - -o "$SCRATCH/small.txt" "$base/small.txt"
    expect_code 0
    grep -q "complete already" "$ERR" || fail "no note that the file was complete ($base)"
    expect_curls_code -s -C - -o "$SCRATCH/small.txt" "$base/small.txt"
    run_sluice -C - --split 2 -o "$SCRATCH/small.txt" "$base/small.txt"
    expect_code 0
    grep -q "complete already" "$ERR" || fail "no note in the downloader ($base)"
    cmp -s "$SCRATCH/small.txt" "$SLUICE_FILES_DIR/small.txt" || fail "small.txt changed ($base)"
  done
  # A file longer than the server's: the 416 names another size, nothing is done.
  { cat "$SLUICE_FILES_DIR/small.txt"; echo extra; } > "$SCRATCH/long.txt"
  run_sluice -C - -o "$SCRATCH/long.txt" "$HTTP/small.txt"
  expect_code 33
  expect_one_error "the file on the server has"
  run_sluice -C - --split 2 -o "$SCRATCH/long.txt" "$HTTP/small.txt"
  [ "$CODE" -ne 0 ] || fail "the downloader took a longer file as complete"
}

case_continue_at_an_offset_in_both_modes() {
  # Fetch mode appends the rest from the offset, as curl does.
  head -c 1000 "$SLUICE_FILES_DIR/1m.bin" > "$SCRATCH/f.bin"
  cp "$SCRATCH/f.bin" "$SCRATCH/c.bin"
  run_sluice -C 1000 -o "$SCRATCH/f.bin" "$HTTP/1m.bin"
  expect_code 0
  curl -s -C 1000 -o "$SCRATCH/c.bin" "$HTTP/1m.bin" || fail "curl -C 1000 failed"
  cmp -s "$SCRATCH/f.bin" "$SCRATCH/c.bin" || fail "sluice -C 1000 wrote other bytes than curl"
  [ "$(sha_of "$SCRATCH/f.bin")" = "$(expected_sha 1m.bin)" ] || fail "the continued file differs"
  # To stdout: the bytes from the offset.
  run_sluice -C 10 "$HTTP/small.txt"
  expect_code 0
  curl -s -C 10 "$HTTP/small.txt" > "$SCRATCH/c.txt"
  cmp -s "$OUT" "$SCRATCH/c.txt" || fail "-C 10 to stdout wrote other bytes than curl"
  # The downloader keeps the file's first OFFSET bytes and fetches the rest there.
  head -c 300000 "$SLUICE_FILES_DIR/1m.bin" > "$SCRATCH/d.bin"
  run_sluice -C 300000 --split 3 -o "$SCRATCH/d.bin" "$HTTP/1m.bin"
  expect_code 0
  grep -q "resumed at byte 300000" "$ERR" || fail "no note of the offset"
  [ "$(sha_of "$SCRATCH/d.bin")" = "$(expected_sha 1m.bin)" ] || fail "the downloader's file differs"
  # An offset past what the file holds would leave a hole: refused before any request.
  head -c 10 "$SLUICE_FILES_DIR/1m.bin" > "$SCRATCH/short.bin"
  run_sluice -C 5000 --split 2 -o "$SCRATCH/short.bin" "$HTTP/1m.bin"
  expect_code 2
  grep -q "fewer than the offset 5000" "$ERR" || fail "no reason for the refusal"
  run_sluice -C 12k "$HTTP/1m.bin"
  expect_code 2
  expect_one_error "-C: '12k'"
}

case_range_in_fetch_mode_is_what_curl_writes() {
  local range
  for range in 0-499 500- -500 100; do
    run_sluice -r "$range" -o "$SCRATCH/r.bin" "$HTTP/1m.bin"
    expect_code 0
    curl -s -r "$range" -o "$SCRATCH/c.bin" "$HTTP/1m.bin"
    cmp -s "$SCRATCH/r.bin" "$SCRATCH/c.bin" || fail "-r $range: other bytes than curl's"
  done
  # Several ranges: the multipart answer is written as it came (its boundary differs
  # from one response to the next, the parts do not).
  run_sluice --range 0-1,5-6 "$HTTP/small.txt"
  expect_code 0
  grep -q "^Content-Range: bytes 0-1/" "$OUT" && grep -q "^Content-Range: bytes 5-6/" "$OUT" \
    || fail "the multipart body is not written raw: $(head -c 400 "$OUT")"
  run_sluice -r 5-2 "$HTTP/small.txt"
  expect_code 2
  expect_one_error "-r: '5-2' is not a byte range"
}

# The downloader keeps a range in a file of its own and records it in the control
# file, so a killed range download continues with -C - and ends byte-exact.
case_range_download_resumes_byte_exact() {
  local out=$SCRATCH/part.bin pid _
  tail -c +50000001 "$SLUICE_FILES_DIR/64m.bin" | head -c 10000000 > "$SCRATCH/expected.bin"
  "$SLUICE" -r 50000000-59999999 --split 2 --limit-rate 2M -o "$out" "$HTTP/64m.bin" \
    > /dev/null 2> "$ERR" &
  pid=$!
  # Killed once the control file shows bytes written (it is saved as they arrive).
  for _ in $(seq 400); do
    [ -e "$out.sluice" ] && awk '$1 == "range" && $4 > 0 { found = 1 } END { exit !found }' \
      "$out.sluice" && break
    sleep 0.05
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  grep -q "^origin 50000000$" "$out.sluice" || fail "the control file does not record the range: $(cat "$out.sluice")"
  # The range starts past its own length: the file's size counts from the range's
  # first byte, the control file's offsets from the resource's.
  run_sluice -C - -r 50000000-59999999 --split 2 -o "$out" "$HTTP/64m.bin"
  expect_code 0
  ! grep -q "restarted" "$ERR" || fail "the resume started the range again: $(cat "$ERR")"
  cmp -s "$out" "$SCRATCH/expected.bin" || fail "the resumed range differs"
  [ ! -e "$out.sluice" ] || fail "the control file is left after the range completed"
  # The same file from curl -r.
  curl -s -r 50000000-59999999 -o "$SCRATCH/curl.bin" "$HTTP/64m.bin"
  cmp -s "$out" "$SCRATCH/curl.bin" || fail "curl -r wrote other bytes"
  # A range to the end, and a rerun of a complete one.
  run_sluice -r 67000000- --split 2 -o "$SCRATCH/tail.bin" "$HTTP/64m.bin"
  expect_code 0
  tail -c +67000001 "$SLUICE_FILES_DIR/64m.bin" | cmp -s - "$SCRATCH/tail.bin" || fail "the open range differs"
  run_sluice -C - -r 67000000- --split 2 -o "$SCRATCH/tail.bin" "$HTTP/64m.bin"
  expect_code 0
  grep -q "complete already" "$ERR" || fail "no note that the range was complete"
  # What the downloader cannot keep in one resumable file is refused, naming -r.
  run_sluice -r -500 --split 2 -o "$SCRATCH/x.bin" "$HTTP/64m.bin"
  expect_code 2
  expect_one_error "-r -500: the downloader takes one range"
}

case_no_clobber_keeps_existing_files_in_both_modes() {
  echo keep > "$SCRATCH/f.txt"
  run_sluice --no-clobber -w '%{filename_effective}' -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  expect_code 0
  expect_stdout "$SCRATCH/f.txt.1"
  [ "$(cat "$SCRATCH/f.txt")" = keep ] || fail "--no-clobber overwrote the file"
  cmp -s "$SCRATCH/f.txt.1" "$SLUICE_FILES_DIR/small.txt" || fail "f.txt.1 differs"
  curl -s --no-clobber -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  [ -f "$SCRATCH/f.txt.2" ] || fail "curl did not choose f.txt.2 (as sluice would)"
  run_sluice --no-clobber --split 2 -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  expect_code 0
  cmp -s "$SCRATCH/f.txt.3" "$SLUICE_FILES_DIR/small.txt" || fail "the downloader did not write f.txt.3"
  [ "$(cat "$SCRATCH/f.txt")" = keep ] || fail "the downloader overwrote the file"
  local n
  for n in $(seq 4 100); do : > "$SCRATCH/f.txt.$n"; done
  run_sluice --no-clobber -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  expect_code 23
  expect_curls_code -s --no-clobber -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  run_sluice --no-clobber --split 2 -o "$SCRATCH/f.txt" "$HTTP/small.txt"
  expect_code 23
}

run_case "$2"
