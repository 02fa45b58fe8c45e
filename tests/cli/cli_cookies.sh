#!/usr/bin/env bash
# The cookie options (-b, -c, -j) against the real nginx of the real_servers fixture:
# /cookies/set sets cookies and redirects to /cookies/echo, which answers with the
# Cookie header it received (tests/support/servers/nginx.conf.in).
# Usage: cli_cookies.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL
HTTPS=$SLUICE_NGINX_HTTPS_URL

# The cookie lines of a Netscape file, without its comments and blank lines.
cookie_lines() {
  grep -v -e '^# ' -e '^$' "$1" | sort
}

case_cookie_jar_writes_the_netscape_file_curl_writes() {
  run_sluice -L -c "$SCRATCH/jar.txt" "$HTTP/cookies/set"
  expect_code 0
  # Carried across the redirect; the one for another domain was refused. The
  # Secure one stays: curl, like browsers, trusts http on loopback names.
  expect_stdout "cookie=[sid=abc123; sec=1]"$'\n'
  [ "$(head -n 1 "$SCRATCH/jar.txt")" = "# Netscape HTTP Cookie File" ] || fail "no Netscape header"
  local want
  want=$(printf '#HttpOnly_127.0.0.1\tFALSE\t/cookies\tFALSE\t0\tsid\tabc123\n127.0.0.1\tFALSE\t/\tTRUE\t0\tsec\t1\n' | sort)
  [ "$(cookie_lines "$SCRATCH/jar.txt")" = "$want" ] || fail "unexpected jar: $(cat "$SCRATCH/jar.txt")"
  if command -v curl > /dev/null; then
    curl -s -L -c "$SCRATCH/curl-jar.txt" -o /dev/null "$HTTP/cookies/set" || fail "curl failed"
    [ "$(cookie_lines "$SCRATCH/jar.txt")" = "$(cookie_lines "$SCRATCH/curl-jar.txt")" ] \
      || fail "curl wrote $(cat "$SCRATCH/curl-jar.txt")"
  fi
}

# A name that is not loopback (cookies.test, resolved to nginx with --resolve), so
# that http is insecure: Secure cookies are neither set from nor sent over it.
case_secure_cookie_goes_over_https_only() {
  local http_port=${HTTP##*:} https_port=${HTTPS##*:}
  local route=(--resolve "cookies.test:$http_port:127.0.0.1" --resolve "cookies.test:$https_port:127.0.0.1")
  run_sluice "${route[@]}" -L -c "$SCRATCH/http.txt" "http://cookies.test:$http_port/cookies/set"
  expect_code 0
  expect_stdout "cookie=[sid=abc123]"$'\n'
  # -k: the test certificate names localhost, not cookies.test.
  run_sluice "${route[@]}" -k -L -c "$SCRATCH/jar.txt" "https://cookies.test:$https_port/cookies/set"
  expect_code 0
  expect_stdout "cookie=[sid=abc123; sec=1]"$'\n'
  grep -q $'^cookies.test\tFALSE\t/\tTRUE\t0\tsec\t1$' "$SCRATCH/jar.txt" || fail "sec is not saved as Secure"
  run_sluice "${route[@]}" -b "$SCRATCH/jar.txt" "http://cookies.test:$http_port/cookies/echo"
  expect_code 0
  expect_stdout "cookie=[sid=abc123]"$'\n'
}

case_cookie_file_is_sent_with_b() {
  printf '# Netscape HTTP Cookie File\n\n127.0.0.1\tFALSE\t/\tFALSE\t0\tfromfile\t1\n' > "$SCRATCH/in.txt"
  printf '127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tx\nnot a cookie line\n' >> "$SCRATCH/in.txt"
  printf '127.0.0.1\tFALSE\t/elsewhere\tFALSE\t0\tother\tpath\n' >> "$SCRATCH/in.txt"
  run_sluice -b "$SCRATCH/in.txt" "$HTTP/cookies/echo"
  expect_code 0
  expect_no_stderr
  expect_stdout "cookie=[fromfile=1]"$'\n'
  # A file that does not exist only turns the engine on, as in curl.
  run_sluice -L -b "$SCRATCH/missing.txt" "$HTTP/cookies/set"
  expect_code 0
  expect_no_stderr
  expect_stdout "cookie=[sid=abc123; sec=1]"$'\n'
}

# curl's -v shows the Cookie field the jar adds ("> Cookie: ..."): -v prints the
# fields the Client sent, the jar's cookie and -b DATA's in the one header, and
# after -L the redirect's Set-Cookie in the last hop's.
case_verbose_shows_the_cookie_the_jar_sends() {
  printf '127.0.0.1\tFALSE\t/\tFALSE\t0\tfromfile\t1\n' > "$SCRATCH/in.txt"
  run_sluice -v -b "$SCRATCH/in.txt" -o /dev/null "$HTTP/cookies/echo"
  expect_code 0
  grep -qxF "> Cookie: fromfile=1" "$ERR" || fail "-v shows no jar cookie: $(grep '^>' "$ERR")"
  grep -qxF "> GET /cookies/echo HTTP/1.1" "$ERR" || fail "-v request line: $(grep '^> [A-Z]* /' "$ERR")"
  run_sluice -v -L -c "$SCRATCH/jar.txt" -b 'y=2' -o /dev/null "$HTTP/cookies/set"
  expect_code 0
  grep -qxF "> Cookie: sid=abc123; sec=1; y=2" "$ERR" || fail "-v -L shows: $(grep '^> Cookie' "$ERR")"
  [ "$(grep -c '^> Cookie' "$ERR")" -eq 1 ] || fail "more than one Cookie line: $(grep '^> Cookie' "$ERR")"
  grep -qxF "> GET /cookies/echo HTTP/1.1" "$ERR" || fail "-v -L shows another hop: $(grep '^> GET' "$ERR")"
}

case_cookie_data_is_sent_as_is() {
  run_sluice -b 'a=b; c=d' "$HTTP/cookies/echo"
  expect_code 0
  expect_stdout "cookie=[a=b; c=d]"$'\n'
  # The last -b DATA counts; the jar's cookies come first in the same header.
  run_sluice -L -b 'x=1' -b 'y=2' -c "$SCRATCH/jar.txt" "$HTTP/cookies/set"
  expect_code 0
  expect_stdout "cookie=[sid=abc123; sec=1; y=2]"$'\n'
  run_sluice -b $'a=b\r\nX-Evil: 1' "$HTTP/cookies/echo"
  expect_code 2
}

case_junk_session_cookies_drops_session_cookies() {
  run_sluice -c "$SCRATCH/jar.txt" "$HTTP/cookies/lasting"
  expect_code 0
  run_sluice -b "$SCRATCH/jar.txt" "$HTTP/cookies/echo"
  expect_stdout "cookie=[lasting=l1; session=s1]"$'\n'
  run_sluice -j -b "$SCRATCH/jar.txt" "$HTTP/cookies/echo"
  expect_code 0
  expect_stdout "cookie=[lasting=l1]"$'\n'
}

case_cookie_jar_to_stdout_follows_the_body() {
  run_sluice -c - "$HTTP/cookies/lasting"
  expect_code 0
  head -n 2 "$OUT" | grep -qx "# Netscape HTTP Cookie File" || fail "no jar after the body: $(cat "$OUT")"
  [ "$(head -n 1 "$OUT")" = "set" ] || fail "the body is not first"
  grep -q $'^127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts1$' "$OUT" || fail "no session cookie line"
}

case_downloads_share_one_jar() {
  mkdir -p "$SCRATCH/out"
  run_sluice --no-progress --output-dir "$SCRATCH/out" -c "$SCRATCH/jar.txt" \
    "$HTTP/cookies/lasting" "$HTTP/cookies/echo"
  expect_code 0
  [ "$(cat "$SCRATCH/out/echo")" = "cookie=[session=s1; lasting=l1]" ] \
    || fail "the second download got $(cat "$SCRATCH/out/echo")"
  [ "$(cookie_lines "$SCRATCH/jar.txt" | wc -l)" -eq 2 ] || fail "jar: $(cat "$SCRATCH/jar.txt")"
}

case_help_and_usage_errors() {
  run_sluice --help http
  local word
  for word in --cookie --cookie-jar --junk-session-cookies; do
    grep -qF -- "$word" "$OUT" || fail "--help does not mention $word"
  done
  run_sluice -c '' "$HTTP/cookies/echo"
  expect_code 2
  expect_one_error "cookie-jar"
}

run_case "$2"
