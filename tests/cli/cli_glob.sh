#!/usr/bin/env bash
# URL globbing ({a,b}, [1-10], [01-10], [a-z], [0-100:5], #N in -o, -g) run by
# `sluice` and by real curl on the same arguments: the same URLs are requested, in
# the same order, and the same files are written. A bad glob sends nothing and
# writes nothing. The nginx cases need the real_servers fixture; the others none.
# Usage: cli_glob.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"

use_nginx() {
  load_servers
  HTTP=$SLUICE_NGINX_HTTP_URL
}

have_curl() {
  command -v curl > /dev/null && return
  echo "note: no curl installed; not compared with curl" >&2
  return 1
}

# Each file of directory $1 is in $2 with the same bytes, and no other is.
expect_same_files() {
  [ "$(ls -A "$1")" = "$(ls -A "$2")" ] \
    || fail "files differ: sluice wrote '$(ls -A "$1" | tr '\n' ' ')', curl '$(ls -A "$2" | tr '\n' ' ')'"
  local name
  for name in $(ls -A "$1"); do
    cmp -s "$1/$name" "$2/$name" || fail "$name differs from curl's"
  done
}

case_set_names_each_output_file_as_curl_does() {
  use_nginx
  mkdir -p "$SCRATCH/ours" "$SCRATCH/curls"
  run_sluice -s -o "$SCRATCH/ours/out_#1" "$HTTP/{small.txt,large.txt,empty.bin}"
  expect_code 0
  expect_no_stderr
  local name
  for name in small.txt large.txt empty.bin; do
    [ "$(sha_of "$SCRATCH/ours/out_$name")" = "$(expected_sha "$name")" ] || fail "out_$name differs"
  done
  have_curl || return 0
  curl -q -s -o "$SCRATCH/curls/out_#1" "$HTTP/{small.txt,large.txt,empty.bin}" \
    || fail "curl failed"
  expect_same_files "$SCRATCH/ours" "$SCRATCH/curls"
}

# Several patterns: every combination, the rightmost varying fastest; ranges with
# zero padding, steps and letters. -w prints each URL requested, in order.
case_patterns_request_the_urls_curl_requests_in_its_order() {
  use_nginx
  mkdir -p "$SCRATCH/ours" "$SCRATCH/curls"
  local glob="$HTTP/small.txt?set={x,y}&n=[08-12:2]&c=[a-e:2]"
  run_sluice -s -o "$SCRATCH/ours/#1_#2_#3" -w '%{url_effective}\n' "$glob"
  expect_code 0
  expect_no_stderr
  [ "$(wc -l < "$OUT")" -eq 18 ] || fail "expected 18 URLs, got $(wc -l < "$OUT")"
  [ "$(head -n 2 "$OUT")" = "$HTTP/small.txt?set=x&n=08&c=a"$'\n'"$HTTP/small.txt?set=x&n=08&c=c" ] \
    || fail "unexpected first URLs: $(head -n 2 "$OUT")"
  [ -f "$SCRATCH/ours/y_12_e" ] || fail "no file y_12_e"
  have_curl || return 0
  cp "$OUT" "$SCRATCH/ours.urls"
  curl -q -s -o "$SCRATCH/curls/#1_#2_#3" -w '%{url_effective}\n' "$glob" > "$SCRATCH/curls.urls" \
    || fail "curl failed"
  cmp -s "$SCRATCH/ours.urls" "$SCRATCH/curls.urls" \
    || fail "URLs differ from curl's: $(diff "$SCRATCH/ours.urls" "$SCRATCH/curls.urls" | head -5)"
  expect_same_files "$SCRATCH/ours" "$SCRATCH/curls"
}

case_remote_name_names_each_file_from_its_url() {
  use_nginx
  mkdir -p "$SCRATCH/ours" "$SCRATCH/curls"
  run_sluice -s -O --output-dir "$SCRATCH/ours" "$HTTP/{small.txt,1m.bin}"
  expect_code 0
  [ "$(sha_of "$SCRATCH/ours/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "1m.bin differs"
  have_curl || return 0
  curl -q -s -O --output-dir "$SCRATCH/curls" "$HTTP/{small.txt,1m.bin}" || fail "curl failed"
  expect_same_files "$SCRATCH/ours" "$SCRATCH/curls"
}

# A glob that makes one URL is still a single fetch, to -o with #1 filled in.
case_glob_of_one_url_is_a_single_fetch() {
  use_nginx
  run_sluice -o "$SCRATCH/one_#1" "$HTTP/{small.txt}"
  expect_code 0
  expect_no_stderr
  [ "$(sha_of "$SCRATCH/one_small.txt")" = "$(expected_sha small.txt)" ] || fail "one_small.txt differs"
}

case_input_file_lines_are_globbed() {
  use_nginx
  printf '%s\n' "# a batch" "$HTTP/{small.txt,large.txt}" > "$SCRATCH/list"
  mkdir -p "$SCRATCH/files"
  run_sluice -s --input-file "$SCRATCH/list" --output-dir "$SCRATCH/files"
  expect_code 0
  [ "$(ls "$SCRATCH/files" | tr '\n' ' ')" = "large.txt small.txt " ] \
    || fail "the list made '$(ls "$SCRATCH/files" | tr '\n' ' ')'"
}

case_globoff_sends_braces_as_text() {
  use_nginx
  run_sluice -g "$HTTP/small.txt?x={a,b}"
  expect_code 0
  expect_no_stderr
  [ "$(sha_of "$OUT")" = "$(expected_sha small.txt)" ] || fail "the body differs"
  run_sluice -g -o "$SCRATCH/#1" "$HTTP/small.txt?x=[1-2]"
  expect_code 0
  [ -f "$SCRATCH/#1" ] || fail "with -g, -o '#1' is not the file's name"
}

# The listener notes every connection; after sluice exits, a probe connects. Had
# sluice connected, its connection would have been queued, and accepted, first.
expect_no_connection() {
  python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(b"probe"); s.recv(1)' \
    "$LISTENER_PORT"
  local _
  for _ in $(seq 100); do
    [ -s "$SCRATCH/connections" ] && break
    sleep 0.05
  done
  [ "$(head -n 1 "$SCRATCH/connections")" = probe ] || fail "sluice connected before failing"
}

case_bad_glob_exits_2_naming_the_position_and_sends_nothing() {
  start_listener
  mkdir -p "$SCRATCH/out"
  local prefix="http://127.0.0.1:$LISTENER_PORT/"
  local url="$prefix{a,b"
  run_sluice -o "$SCRATCH/out/f_#1" "$url"
  expect_code 2
  expect_one_error "position $((${#prefix} + 1)): unmatched brace"
  grep -qF -- "$url" "$ERR" || fail "the error does not name the URL"
  for bad in "[1-" "[5-1]" "[a-Z]" "[1-10:20]" "a}" "{}" "{a,{b}}"; do
    run_sluice -o "$SCRATCH/out/f_#1" "http://127.0.0.1:$LISTENER_PORT/$bad"
    expect_code 2
    expect_one_error "position "
  done
  printf '%s\n' "http://127.0.0.1:$LISTENER_PORT/ok" "http://127.0.0.1:$LISTENER_PORT/[1-" \
    > "$SCRATCH/list"
  run_sluice --input-file "$SCRATCH/list" --output-dir "$SCRATCH/out"
  expect_code 2
  expect_one_error "--input-file $SCRATCH/list line 2: bad URL glob"
  [ -z "$(ls -A "$SCRATCH/out")" ] || fail "a bad glob wrote '$(ls -A "$SCRATCH/out")'"
  expect_no_connection
}

case_one_output_name_for_several_urls_is_refused() {
  start_listener
  run_sluice -o "$SCRATCH/same" "http://127.0.0.1:$LISTENER_PORT/[1-2]"
  expect_code 2
  expect_one_error "#1"
  [ ! -e "$SCRATCH/same" ] || fail "the refused command wrote its file"
  expect_no_connection
}

# Several -o: the n-th names the n-th URL argument's file (its #N filled from that
# URL's glob), wherever the options stand, as curl pairs them.
case_each_output_pairs_with_its_url_as_curl_does() {
  use_nginx
  mkdir -p "$SCRATCH/ours" "$SCRATCH/curls"
  local args=(-o "$SCRATCH/DIR/first" "$HTTP/small.txt" "$HTTP/{large.txt,empty.bin}"
    -o "$SCRATCH/DIR/second_#1")
  run_sluice -s "${args[@]//DIR/ours}"
  expect_code 0
  expect_no_stderr
  [ "$(sha_of "$SCRATCH/ours/first")" = "$(expected_sha small.txt)" ] || fail "first is not small.txt"
  [ "$(sha_of "$SCRATCH/ours/second_large.txt")" = "$(expected_sha large.txt)" ] \
    || fail "second_large.txt differs"
  have_curl || return 0
  curl -q -s "${args[@]//DIR/curls}" || fail "curl failed"
  expect_same_files "$SCRATCH/ours" "$SCRATCH/curls"
}

# Two -o for one URL (or one -o short of the URLs) is refused before anything is
# sent: curl writes what it can and warns, which a script does not see.
case_more_or_fewer_outputs_than_urls_are_refused() {
  start_listener
  run_sluice -o "$SCRATCH/a" -o "$SCRATCH/b" "http://127.0.0.1:$LISTENER_PORT/x"
  expect_code 2
  expect_one_error "2 -o options for 1 URL: give one -o per URL"
  run_sluice -o "$SCRATCH/a" -o "$SCRATCH/b" "http://127.0.0.1:$LISTENER_PORT/"{x,y,z}
  expect_code 2
  expect_one_error "2 -o options for 3 URLs"
  run_sluice -o "$SCRATCH/a" "http://127.0.0.1:$LISTENER_PORT/x" -o - "http://127.0.0.1:$LISTENER_PORT/y"
  expect_code 2
  expect_one_error "-o -: with several URLs each -o names a file"
  [ ! -e "$SCRATCH/a" ] || fail "the refused command wrote a file"
  expect_no_connection
}

# A bracketed IPv6 host is not a range: both tools try [::1] (nothing listens there).
case_ipv6_host_is_not_a_glob() {
  local port
  port=$(free_port)
  run_sluice -s -w '%{url_effective}' "http://[::1]:$port/x"
  expect_code 7
  expect_stdout "http://[::1]:$port/x"
  expect_curls_code -s "http://[::1]:$port/x"
}

run_case "$2"
