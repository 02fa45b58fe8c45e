#!/usr/bin/env bash
# curl options that scripts pass along (--url, -e, -#, --no-progress-meter, -N,
# --http1.0, -H @FILE, --proto, --post30x, --location-trusted, --retry-connrefused,
# --retry-max-time), each compared with real curl 7.88 for the same command where the
# two should agree: the request sent (-v's "> " lines), the output and the exit code.
# Usage: cli_curl_compat.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL
HTTPS=$SLUICE_NGINX_HTTPS_URL

# The request header lines (-v's "> Name: value") that curl sends for ARGS; empty
# where curl is not installed.
curls_request_line() {
  local name=$1
  shift
  command -v curl > /dev/null || return 0
  curl -q -s -v "$@" 2>&1 >/dev/null | tr -d '\r' | grep -i "^> $name:" || true
}

# Several URLs make a download run (files, not stdout), so one --url is fetched here;
# the order of several is the parser's unit test.
case_url_option_adds_a_url_like_a_bare_argument() {
  run_sluice --url "$HTTP/small.txt"
  expect_code 0
  cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "--url URL differs"
  run_sluice --url="$HTTP/small.txt"
  expect_code 0
  cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "--url=URL differs"
  expect_curls_code -s --url "$HTTP/small.txt"
}

case_referer_is_sent_as_curl_sends_it() {
  local want
  run_sluice -v -o /dev/null -e "http://from.example/page" "$HTTP/small.txt"
  expect_code 0
  grep -qxF "> Referer: http://from.example/page" <(tr -d '\r' < "$ERR") \
    || fail "-v shows no Referer line"
  want=$(curls_request_line Referer -o /dev/null -e "http://from.example/page" "$HTTP/small.txt")
  [ -z "$want" ] || [ "$want" = "> Referer: http://from.example/page" ] \
    || fail "curl sent '$want'"
  # ";auto" alone sends no Referer on the first request, as in curl.
  run_sluice -v -o /dev/null --referer ";auto" "$HTTP/small.txt"
  expect_code 0
  ! grep -qi "^> Referer" "$ERR" || fail "';auto' alone sent a Referer"
  want=$(curls_request_line Referer -o /dev/null -e ";auto" "$HTTP/small.txt")
  [ -z "$want" ] || fail "curl sent '$want' for ';auto'"
  run_sluice -v -o /dev/null -e "http://a.example/;auto" "$HTTP/small.txt"
  grep -qxF "> Referer: http://a.example/" <(tr -d '\r' < "$ERR") \
    || fail "'URL;auto' did not send URL"
}

# The Referer line of each request in a --trace-ascii file, in order.
traced_referers() {
  grep -ao "Referer: [^[:space:]]*" "$1" || true
}

# With -L, ";auto" gives each hop the URL it was redirected from (CURLOPT_AUTOREFERER):
# the same Referer lines as curl's, hop by hop (-v shows only the last hop: the trace
# has them all).
case_referer_auto_names_each_hops_previous_url() {
  local ours
  run_sluice -L -o /dev/null --trace-ascii "$SCRATCH/ours.trace" \
    -e "http://first.example/;auto" "$HTTP/redirect-chain/3"
  expect_code 0
  ours=$(traced_referers "$SCRATCH/ours.trace")
  [ "$ours" = "$(printf '%s\n' "Referer: http://first.example/" \
    "Referer: $HTTP/redirect-chain/3" "Referer: $HTTP/redirect-chain/2" \
    "Referer: $HTTP/redirect-chain/1")" ] || fail "the hops sent '$ours'"
  if command -v curl > /dev/null; then
    curl -q -s -L -o /dev/null --trace-ascii "$SCRATCH/curl.trace" \
      -e "http://first.example/;auto" "$HTTP/redirect-chain/3"
    [ "$(traced_referers "$SCRATCH/curl.trace")" = "$ours" ] \
      || fail "curl sent '$(traced_referers "$SCRATCH/curl.trace")', sluice '$ours'"
  fi
  # Without ";auto" every hop keeps the one given.
  run_sluice -L -o /dev/null --trace-ascii "$SCRATCH/plain.trace" \
    -e "http://first.example/" "$HTTP/redirect-chain/3"
  [ "$(traced_referers "$SCRATCH/plain.trace" | grep -c "Referer: http://first.example/$")" = 4 ] \
    || fail "a plain -e did not stay on every hop"
}

case_progress_bar_and_no_progress_meter_choose_the_meter() {
  run_sluice -# -o "$SCRATCH/1m.bin" "$HTTP/1m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
  [ -s "$ERR" ] || fail "-# drew no bar on stderr"
  run_sluice --progress-bar --no-progress-meter -o "$SCRATCH/1m.bin" "$HTTP/1m.bin"
  expect_code 0
  expect_no_stderr
  # --no-progress-meter alone does not turn the fetch into a download: the body
  # still goes to stdout.
  run_sluice --no-progress-meter "$HTTP/small.txt"
  expect_code 0
  expect_no_stderr
  cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "--no-progress-meter changed the output"
  expect_curls_code --no-progress-meter "$HTTP/small.txt"
}

case_no_buffer_is_accepted() {
  run_sluice -N "$HTTP/small.txt"
  expect_code 0
  expect_no_stderr
  cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "-N changed the output"
  expect_curls_code -s -N "$HTTP/small.txt"
}

# The last request's lines in -v output on stdin ("> " lines from its request line
# on: sluice -v shows only the request of the last hop), CR removed, matching the
# extended regex $1.
last_request_matching() {
  tr -d '\r' | awk '/^> [A-Z]+ \//{block=""} /^> /{block=block $0 "\n"} END{printf "%s", block}' \
    | grep -E "^> ($1)" || true
}

request_lines() {
  last_request_matching "$1" < "$ERR"
}

curls_request_lines() {
  local pattern=$1
  shift
  command -v curl > /dev/null || return 0
  curl -q -s -v "$@" 2>&1 >/dev/null | last_request_matching "$pattern"
}

# The lines matching $1 are curl's for the same command (when curl is installed).
expect_curls_request_lines() {
  local pattern=$1
  shift
  command -v curl > /dev/null || return 0
  local ours theirs
  ours=$(request_lines "$pattern")
  theirs=$(curls_request_lines "$pattern" "$@")
  [ "$ours" = "$theirs" ] || fail "sluice sent '$ours', curl '$theirs'"
}

case_header_file_sends_one_header_a_line() {
  printf 'X-One: 1\r\n\nX-Two: two words\n' > "$SCRATCH/headers"
  run_sluice -v -o /dev/null -H "@$SCRATCH/headers" "$HTTP/small.txt"
  expect_code 0
  [ "$(request_lines 'X-')" = $'> X-One: 1\n> X-Two: two words' ] \
    || fail "unexpected headers: $(request_lines 'X-')"
  expect_curls_request_lines 'X-' -o /dev/null -H "@$SCRATCH/headers" "$HTTP/small.txt"
  echo "X-Stdin: yes" | { "$SLUICE" -v -o /dev/null -H @- "$HTTP/small.txt" > "$OUT" 2> "$ERR"; }
  [ "$(request_lines 'X-')" = "> X-Stdin: yes" ] || fail "-H @- sent '$(request_lines 'X-')'"
  # A file that cannot be read is a warning, as in curl: the transfer runs.
  run_sluice -H "@$SCRATCH/missing" "$HTTP/small.txt"
  expect_code 0
  grep -q "warning: -H: cannot read" "$ERR" || fail "no warning for the missing file"
  expect_curls_code -s -H "@$SCRATCH/missing" "$HTTP/small.txt"
}

case_proto_refuses_a_url_with_exit_1() {
  local list
  for list in =https -all,https; do
    run_sluice --proto "$list" "$HTTP/small.txt"
    expect_code 1
    expect_one_error "--proto"
    expect_stdout ""
    expect_curls_code -s --proto "$list" "$HTTP/small.txt"
  done
  run_sluice --proto =https --proto +http "$HTTP/small.txt"
  expect_code 0
  expect_curls_code -s --proto =https --proto +http "$HTTP/small.txt"
}

case_proto_and_proto_redir_refuse_a_redirect_with_exit_1() {
  run_sluice -L --proto-redir =https -o /dev/null "$HTTP/redirect"
  expect_code 1
  expect_one_error "redirect"
  expect_curls_code -s -L --proto-redir =https -o /dev/null "$HTTP/redirect"
  run_sluice -L --proto -http,+https -o /dev/null "$HTTP/redirect"
  expect_code 1
  run_sluice -L --proto-redir =http -o /dev/null "$HTTP/redirect"
  expect_code 0
  expect_curls_code -s -L --proto-redir =http -o /dev/null "$HTTP/redirect"
}

# nginx answers a POST to a static file with 405, which shows the method that went.
case_post301_and_post302_keep_the_post() {
  local flag path
  for flag in --post301 --post302; do
    path=/moved
    [ "$flag" = --post302 ] && path=/redirect
    run_sluice -v -L "$flag" -d a=1 -o /dev/null "$HTTP$path"
    expect_code 0
    request_lines 'POST /small.txt' | grep -q . || fail "$flag did not keep the POST"
    expect_curls_request_lines 'POST|GET|Content-Length' -L "$flag" -d a=1 -o /dev/null "$HTTP$path"
  done
  run_sluice -v -L -d a=1 -o /dev/null "$HTTP/moved"
  request_lines 'GET /small.txt' | grep -q . || fail "a 301 without --post301 kept the POST"
  expect_curls_request_lines 'POST|GET|Content-Length' -L -d a=1 -o /dev/null "$HTTP/moved"
}

# /to-http leads from the https origin to the http one: credentials stay behind
# unless --location-trusted.
case_location_trusted_sends_credentials_to_the_next_origin() {
  local common=(-v -u user:secret --proto-redir =http,https --cacert "$SLUICE_TEST_CA" -o /dev/null)
  run_sluice "${common[@]}" -L "$HTTPS/to-http"
  expect_code 0
  [ -z "$(request_lines Authorization)" ] || fail "-L sent credentials to the next origin"
  expect_curls_request_lines Authorization "${common[@]}" -L "$HTTPS/to-http"
  run_sluice "${common[@]}" --location-trusted "$HTTPS/to-http"
  expect_code 0
  [ -n "$(request_lines Authorization)" ] || fail "--location-trusted did not send them"
  expect_curls_request_lines Authorization "${common[@]}" --location-trusted "$HTTPS/to-http"
}

# Nothing listens on the port: each attempt is refused at once.
case_retry_connrefused_retries_a_refused_connection() {
  local url="http://127.0.0.1:$(free_port)/"
  run_sluice --retry 1 --retry-delay 1 --retry-connrefused "$url"
  expect_code 7
  [ "$(grep -c 'retrying in' "$ERR")" -eq 1 ] || fail "expected one retry: $(cat "$ERR")"
  expect_curls_code -s --retry 1 --retry-delay 1 --retry-connrefused "$url"
}

# The wait is cut to what is left of the limit, so the second attempt starts at the
# limit and no third follows, however many retries --retry allows.
case_retry_max_time_stops_the_retries() {
  local url="http://127.0.0.1:$(free_port)/"
  run_sluice --retry 5 --retry-delay 1 --retry-max-time 1 "$url"
  expect_code 7
  [ "$(grep -c 'retrying in' "$ERR")" -eq 1 ] || fail "expected one retry: $(cat "$ERR")"
  expect_curls_code -s --retry 5 --retry-delay 1 --retry-max-time 1 --retry-connrefused "$url"
}

# The downloader (--split) applies it too: the listener resets every attempt (a
# reset is retried only with --retry-all-errors, as in curl) and counts them: the
# first, and one retry at the limit.
case_retry_max_time_bounds_a_downloads_retries() {
  start_listener
  run_sluice --split 2 --retry 5 --retry-all-errors --retry-delay 1 --retry-max-time 1 \
    -o "$SCRATCH/f.bin" "http://127.0.0.1:$LISTENER_PORT/f.bin"
  expect_code 56
  [ "$(grep -c other "$SCRATCH/connections")" -eq 2 ] \
    || fail "expected 2 attempts, the listener saw $(grep -c other "$SCRATCH/connections")"
}

run_case "$2"
