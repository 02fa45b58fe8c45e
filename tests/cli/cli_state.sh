#!/usr/bin/env bash
# State kept between runs (--alt-svc, --hsts, --ssl-sessions) against the real_servers fixture:
# caddy announces HTTP/3 in Alt-Svc on its TCP responses; nginx's TLS server sends
# Strict-Transport-Security at /hsts/ (tests/support/servers/nginx.conf.in). Each
# file is compared with the one curl 7.88 writes for the same run, where curl has
# the option.
# Usage: cli_state.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
CADDY=$SLUICE_CADDY_URL

# The entry lines of a curl state file: comments and blank lines dropped.
entry_lines() {
  grep -v -e '^#' -e '^$' "$1"
}

case_alt_svc_file_takes_the_second_run_to_http3() {
  run_sluice --alt-svc "$SCRATCH/alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    -w '%{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "2"
  local port=${CADDY##*:}
  entry_lines "$SCRATCH/alt-svc" | grep -qE "^h2 localhost $port h3 localhost $port \"[0-9]{8} [0-9:]{8}\" 0 0\$" \
    || fail "unexpected alt-svc file: $(cat "$SCRATCH/alt-svc")"
  [ "$(entry_lines "$SCRATCH/alt-svc" | wc -l)" = 1 ] || fail "caddy's repeated entry was written twice"
  [ "$(stat -c %a "$SCRATCH/alt-svc")" = 600 ] || fail "mode $(stat -c %a "$SCRATCH/alt-svc")"
  run_sluice --alt-svc "$SCRATCH/alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    -w '%{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "3"
  # Without the file, a new run starts over TCP again.
  run_sluice --cacert "$SLUICE_TEST_CA" -o /dev/null -w '%{http_version}' "$CADDY/small.txt"
  expect_stdout "2"
}

# curl 7.88 has no HTTP/3 here, but learns and writes the same entry: its file takes
# sluice to HTTP/3 at once, and sluice's line equals curl's (but for the expiry).
case_alt_svc_file_is_curls() {
  command -v curl > /dev/null || { echo "note: no curl installed; skipped" >&2; return; }
  curl -q -s --alt-svc "$SCRATCH/curl-alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    "$CADDY/small.txt" || fail "curl failed"
  run_sluice --alt-svc "$SCRATCH/curl-alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    -w '%{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "3"
  run_sluice --alt-svc "$SCRATCH/alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null "$CADDY/small.txt"
  local ours theirs
  ours=$(entry_lines "$SCRATCH/alt-svc" | cut -d' ' -f1-6)
  theirs=$(entry_lines "$SCRATCH/curl-alt-svc" | cut -d' ' -f1-6)
  [ "$ours" = "$theirs" ] || fail "sluice wrote '$ours', curl '$theirs'"
}

# Lines that do not parse are skipped (-v names them), an expired entry is not used
# and not written back, and an entry of another origin serves only that origin.
case_alt_svc_file_skips_bad_expired_and_foreign_lines() {
  local port=${CADDY##*:}
  {
    echo "h2 localhost $port h3 localhost $port \"20200101 00:00:00\" 0 0"
    echo "h2 localhost $port h3 localhost"
    echo "h2 elsewhere.example 443 h3 localhost $port \"20991231 00:00:00\" 0 0"
  } > "$SCRATCH/alt-svc"
  run_sluice -v --alt-svc "$SCRATCH/alt-svc" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    -w '%{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "2"
  grep -qF "alt-svc file $SCRATCH/alt-svc:2: skipped: expected 9 fields, found 5" "$ERR" \
    || fail "-v did not name the bad line"
  ! grep -q '"20200101' "$SCRATCH/alt-svc" || fail "the expired entry was written back"
  grep -q "^h2 elsewhere.example 443 h3 localhost $port " "$SCRATCH/alt-svc" \
    || fail "another origin's entry was lost: $(cat "$SCRATCH/alt-svc")"
}

HTTP=$SLUICE_NGINX_HTTP_URL
HTTPS=$SLUICE_NGINX_HTTPS_URL
HTTPS_PORT=${HTTPS##*:}
HTTP_PORT=${HTTP##*:}
HSTS_HTTPS=https://localhost:$HTTPS_PORT

# nginx's TLS port says Strict-Transport-Security: the file gets the host (with a
# dot: includeSubDomains), as curl's does; then http://localhost/ goes to https://
# before any connection (port 80 becomes 443, which --connect-to sends to nginx).
case_hsts_file_upgrades_the_next_run_to_https() {
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "$HSTS_HTTPS/hsts/set"
  expect_code 0
  expect_stdout "hsts"$'\n'
  entry_lines "$SCRATCH/hsts" | grep -qE '^\.localhost "[0-9]{8} [0-9:]{8}"$' \
    || fail "unexpected hsts file: $(cat "$SCRATCH/hsts")"
  local route=(--connect-to "localhost:443:127.0.0.1:$HTTPS_PORT")
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "${route[@]}" \
    -o /dev/null -w '%{url_effective} %{http_code}' "http://localhost/small.txt"
  expect_code 0
  expect_stdout "https://localhost/small.txt 200"
  # Another port than 80 is kept, as curl keeps it: TLS to nginx's plain port fails.
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    "http://localhost:$HTTP_PORT/small.txt"
  expect_code 35
  grep -q "is the port plain HTTP" "$ERR" || fail "not upgraded to https on port $HTTP_PORT"
  if command -v curl > /dev/null; then
    curl -q -s --hsts "$SCRATCH/curl-hsts" --cacert "$SLUICE_TEST_CA" -o /dev/null \
      "$HSTS_HTTPS/hsts/set" || fail "curl failed"
    [ "$(entry_lines "$SCRATCH/hsts" | cut -d' ' -f1)" = "$(entry_lines "$SCRATCH/curl-hsts" | cut -d' ' -f1)" ] \
      || fail "curl wrote $(cat "$SCRATCH/curl-hsts")"
    expect_curls_code --hsts "$SCRATCH/curl-hsts" --cacert "$SLUICE_TEST_CA" -o /dev/null \
      "http://localhost:$HTTP_PORT/small.txt"
    # curl's file upgrades sluice's run the same way.
    run_sluice --hsts "$SCRATCH/curl-hsts" --cacert "$SLUICE_TEST_CA" "${route[@]}" \
      -o /dev/null -w '%{url_effective}' "http://localhost/small.txt"
    expect_stdout "https://localhost/small.txt"
  fi
}

# The header of a redirect that is followed counts too: an https 301 is where sites
# usually send it.
case_hsts_is_learned_from_a_followed_redirect() {
  run_sluice -L --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "$HSTS_HTTPS/hsts/redirect"
  expect_code 0
  [ "$(cat "$OUT")" = "$(cat "$SLUICE_FILES_DIR/small.txt")" ] || fail "the redirect's target differs"
  entry_lines "$SCRATCH/hsts" | grep -qE '^localhost "[0-9]{8} [0-9:]{8}"$' \
    || fail "the 301's Strict-Transport-Security was not kept: $(cat "$SCRATCH/hsts")"
}

# RFC 6797 section 8.1: not over http, not without a verified certificate (-k), not
# for an IP address; max-age=0 removes the host.
case_hsts_is_learned_only_where_the_rfc_allows() {
  run_sluice --hsts "$SCRATCH/hsts" "http://localhost:$HTTP_PORT/hsts/set"
  expect_code 0
  [ -z "$(entry_lines "$SCRATCH/hsts")" ] || fail "learned over http: $(cat "$SCRATCH/hsts")"
  run_sluice --hsts "$SCRATCH/hsts" -k "$HSTS_HTTPS/hsts/set"
  [ -z "$(entry_lines "$SCRATCH/hsts")" ] || fail "learned with -k: $(cat "$SCRATCH/hsts")"
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "https://127.0.0.1:$HTTPS_PORT/hsts/set"
  expect_code 0
  [ -z "$(entry_lines "$SCRATCH/hsts")" ] || fail "learned for an address: $(cat "$SCRATCH/hsts")"
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "$HSTS_HTTPS/hsts/set"
  [ -n "$(entry_lines "$SCRATCH/hsts")" ] || fail "not learned over verified https"
  run_sluice --hsts "$SCRATCH/hsts" --cacert "$SLUICE_TEST_CA" "$HSTS_HTTPS/hsts/clear"
  expect_stdout "cleared"$'\n'
  [ -z "$(entry_lines "$SCRATCH/hsts")" ] || fail "max-age=0 kept: $(cat "$SCRATCH/hsts")"
}

# --ssl-sessions (curl 8.11's; curl 7.88 has no such option): the second run resumes
# over TCP (nginx) and over QUIC (caddy), where --tls-earlydata then sends 0-RTT.
# -v's "tls:" line counts the handshakes. Sessions of other TLS settings (-k) are
# kept apart and carried through the file.
case_ssl_sessions_file_resumes_the_next_run() {
  local tcp=(--ssl-sessions "$SCRATCH/sessions" --cacert "$SLUICE_TEST_CA" -o /dev/null -v)
  run_sluice "${tcp[@]}" "$HSTS_HTTPS/small.txt"
  expect_code 0
  grep -q '^\* tls: 1 full handshake, 0 resumed' "$ERR" || fail "first run: $(grep '^\* tls:' "$ERR")"
  [ "$(stat -c %a "$SCRATCH/sessions")" = 600 ] || fail "mode $(stat -c %a "$SCRATCH/sessions")"
  grep -q "^tcp [0-9a-f]* localhost:$HTTPS_PORT [0-9]* [0-9a-f]*\$" "$SCRATCH/sessions" \
    || fail "no TCP session in the file: $(cut -c1-80 "$SCRATCH/sessions")"
  run_sluice "${tcp[@]}" "$HSTS_HTTPS/small.txt"
  grep -q '^\* tls: 0 full handshakes, 1 resumed' "$ERR" || fail "second run: $(grep '^\* tls:' "$ERR")"
  # Another origin (nginx's HTTP/2 port) is not offered this session.
  run_sluice "${tcp[@]}" "$SLUICE_NGINX_H2_URL/small.txt"
  grep -q '^\* tls: 1 full handshake, 0 resumed' "$ERR" || fail "another origin resumed"
  # QUIC: a full handshake, then a resumed one that sends its request as 0-RTT.
  run_sluice "${tcp[@]}" --http3-only "$CADDY/small.txt"
  expect_code 0
  grep -q 'h3: 1 full, 0 resumed' "$ERR" || fail "first h3 run: $(grep '^\* tls:' "$ERR")"
  run_sluice "${tcp[@]}" --http3-only --tls-earlydata "$CADDY/small.txt"
  expect_code 0
  grep -q 'h3: 0 full, 1 resumed; 0-RTT: 1 request sent early, 1 accepted' "$ERR" \
    || fail "second h3 run: $(grep '^\* tls:' "$ERR")"
  # Other settings (-k) do not take these sessions, and do not lose them.
  run_sluice --ssl-sessions "$SCRATCH/sessions" -k -o /dev/null -v "$HSTS_HTTPS/small.txt"
  grep -q '^\* tls: 1 full handshake, 0 resumed' "$ERR" || fail "-k resumed another setting's session"
  run_sluice "${tcp[@]}" "$HSTS_HTTPS/small.txt"
  grep -q '^\* tls: 0 full handshakes, 1 resumed' "$ERR" || fail "the -k run lost the session"
}

run_case "$2"
