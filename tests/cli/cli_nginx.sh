#!/usr/bin/env bash
# `sluice` against the real nginx of the real_servers fixture: downloads checked
# with sha256sum, -w, -f, -o, -L, --compressed, uploads, and TLS trust.
# Usage: cli_nginx.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL
HTTPS=$SLUICE_NGINX_HTTPS_URL
H2=$SLUICE_NGINX_H2_URL
H2C=$SLUICE_NGHTTPD_H2C_URL
CADDY=$SLUICE_CADDY_URL

case_downloads_to_stdout_match_sha256sums() {
  local name
  for name in empty.bin small.txt large.txt 1m.bin 64m.bin; do
    run_sluice "$HTTP/$name"
    expect_code 0
    expect_no_stderr
    [ "$(sha_of "$OUT")" = "$(expected_sha "$name")" ] || fail "$name differs on stdout"
  done
}

case_downloads_to_output_file_match_sha256sums() {
  local name
  for name in empty.bin small.txt 1m.bin 64m.bin; do
    run_sluice -o "$SCRATCH/$name" "$HTTP/$name"
    expect_code 0
    expect_no_stderr
    expect_stdout ""
    [ "$(sha_of "$SCRATCH/$name")" = "$(expected_sha "$name")" ] || fail "-o $name differs"
  done
}

case_write_out_reports_the_transfer() {
  local size
  size=$(stat -c %s "$SLUICE_FILES_DIR/small.txt")
  run_sluice -o /dev/null \
    -w '%{http_code} %{http_version} %{size_download} %{num_redirects}\t%{content_type}|%{url_effective}|%{exitcode}|%{errormsg}|100%%\\\n' \
    "$HTTP/small.txt"
  expect_code 0
  expect_stdout "200 1.1 $size 0"$'\t'"text/plain|$HTTP/small.txt|0||100%\\"$'\n'
  run_sluice -o /dev/null -w '%{time_total}' "$HTTP/1m.bin"
  expect_code 0
  grep -Eqx '[0-9]+\.[0-9]{6}' "$OUT" || fail "time_total '$(cat "$OUT")' is not seconds with 6 decimals"
}

# The variables curl has for the request and the response head print what curl
# prints for the same command; %{header_json} has the same names and values (but
# Date, which may tick between the two runs).
case_write_out_names_the_request_and_its_head_as_curl_does() {
  local format='%{response_code} %{url} %{redirect_url} %{filename_effective} %{method} %{num_headers}'
  run_sluice -o "$SCRATCH/r.html" -w "$format" "$HTTP/redirect-relative"
  expect_code 0
  grep -Eqx "302 $HTTP/redirect-relative $HTTP/small.txt $SCRATCH/r.html GET [0-9]+" "$OUT" \
    || fail "unexpected -w output '$(cat "$OUT")'"
  cp "$OUT" "$SCRATCH/ours.txt"
  run_sluice -o /dev/null -w '%{header_json}' "$HTTP/small.txt"
  expect_code 0
  cp "$OUT" "$SCRATCH/ours.json"
  if command -v curl > /dev/null; then
    curl -q -s -o "$SCRATCH/curl.html" -w "$format" "$HTTP/redirect-relative" \
      > "$SCRATCH/theirs.txt"
    [ "$(sed "s|r.html|curl.html|" "$SCRATCH/ours.txt")" = "$(cat "$SCRATCH/theirs.txt")" ] \
      || fail "sluice printed '$(cat "$SCRATCH/ours.txt")', curl '$(cat "$SCRATCH/theirs.txt")'"
    curl -q -s -o /dev/null -w '%{header_json}' "$HTTP/small.txt" > "$SCRATCH/theirs.json"
    python3 -c 'import json, sys
ours, theirs = (json.load(open(p)) for p in sys.argv[1:3])
for d in (ours, theirs):
    d.pop("date", None)
assert ours == theirs, (ours, theirs)
assert open(sys.argv[1]).read().count("\n") == len(ours) + 1, "not one line per name"' \
      "$SCRATCH/ours.json" "$SCRATCH/theirs.json" || fail "header_json differs from curl's"
  fi
}

# %{onerror} keeps the rest for a failure; %output{FILE} sends the rest to FILE,
# %output{>>FILE} appends to it.
case_write_out_onerror_and_output_file() {
  run_sluice -o /dev/null -w "ok%{onerror}failed" "$HTTP/small.txt"
  expect_code 0
  expect_stdout "ok"
  run_sluice -o /dev/null -w "ok%{onerror}failed %{exitcode}" "http://127.0.0.1:$(free_port)/"
  expect_code 7
  expect_stdout "okfailed $CODE"
  run_sluice -o /dev/null -w "a%output{$SCRATCH/w.txt}%{http_code}\n" "$HTTP/small.txt"
  expect_code 0
  expect_stdout "a"
  run_sluice -o /dev/null -w "%output{>>$SCRATCH/w.txt}%{method}\n" "$HTTP/small.txt"
  expect_code 0
  expect_stdout ""
  [ "$(cat "$SCRATCH/w.txt")" = $'200\nGET' ] || fail "the -w file holds '$(cat "$SCRATCH/w.txt")'"
}

case_write_out_times_each_step_and_names_the_address() {
  run_sluice --cacert "$SLUICE_TEST_CA" -o /dev/null \
    -w '%{remote_ip} %{remote_port} %{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total}' \
    "$HTTPS/1m.bin"
  expect_code 0
  local ip port steps
  read -r ip port steps < "$OUT"
  [ "$ip" = 127.0.0.1 ] || fail "remote_ip '$ip'"
  [[ "$HTTPS" == *":$port" ]] || fail "remote_port '$port' is not the port of $HTTPS"
  # Each step comes no earlier than the one before it, all after 0 over a new TLS
  # connection, and the total last.
  awk '{ for (i = 1; i <= NF; ++i) { if ($i <= 0 || (i > 1 && $i < $(i - 1))) exit 1 } }' \
    <<<"$steps" || fail "steps out of order or zero: $steps"
  # Plain http has no TLS step: time_appconnect is 0, as curl prints it.
  run_sluice -o /dev/null -w '%{time_appconnect} %{time_connect}' "$HTTP/small.txt"
  expect_code 0
  read -r tls connect < "$OUT"
  [ "$tls" = 0.000000 ] || fail "time_appconnect over http is '$tls'"
  [ "$connect" != 0.000000 ] || fail "time_connect over a new connection is 0"
}

port_of() { local rest=${1##*:}; echo "${rest%%/*}"; }

case_proxy_option_forwards_http_and_tunnels_https() {
  local proxy_port
  proxy_port=$(port_of "$SLUICE_SQUID_PROXY")
  run_sluice -x "$SLUICE_SQUID_PROXY" -o "$SCRATCH/plain" -w '%{remote_port}' "$HTTP/1m.bin"
  expect_code 0
  expect_stdout "$proxy_port"
  [ "$(sha_of "$SCRATCH/plain")" = "$(expected_sha 1m.bin)" ] || fail "the proxied body differs"
  run_sluice -x "$SLUICE_SQUID_PROXY" --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/tls" \
    -w '%{remote_port} %{http_version}' "$SLUICE_NGINX_H2_URL/1m.bin"
  expect_code 0
  expect_stdout "$proxy_port 2"
  [ "$(sha_of "$SCRATCH/tls")" = "$(expected_sha 1m.bin)" ] || fail "the tunnelled body differs"
}

case_proxy_comes_from_the_environment_as_in_curl() {
  local proxy_port server_port
  proxy_port=$(port_of "$SLUICE_SQUID_PROXY")
  server_port=$(port_of "$HTTP")
  export http_proxy=$SLUICE_SQUID_PROXY
  run_sluice -o /dev/null -w '%{remote_port}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "$proxy_port"
  run_sluice --noproxy 127.0.0.1 -o /dev/null -w '%{remote_port}' "$HTTP/small.txt"
  expect_stdout "$server_port"
  run_sluice -x "" -o /dev/null -w '%{remote_port}' "$HTTP/small.txt"
  expect_stdout "$server_port"
  unset http_proxy
  # HTTP_PROXY in capitals is what a CGI request's "Proxy:" header becomes: ignored.
  export HTTP_PROXY=$SLUICE_SQUID_PROXY
  run_sluice -o /dev/null -w '%{remote_port}' "$HTTP/small.txt"
  expect_stdout "$server_port"
  unset HTTP_PROXY
}

case_socks5_carries_http_and_https() {
  local socks=${SLUICE_SOCKS5_PROXY#*://} socks_port
  socks_port=$(port_of "$SLUICE_SOCKS5_PROXY")
  run_sluice --socks5-hostname "$socks" -o "$SCRATCH/plain" -w '%{remote_port}' "$HTTP/1m.bin"
  expect_code 0
  expect_stdout "$socks_port"
  [ "$(sha_of "$SCRATCH/plain")" = "$(expected_sha 1m.bin)" ] || fail "the body differs"
  run_sluice -x "socks5://$socks" --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/tls" \
    -w '%{remote_port}' "$HTTPS/1m.bin"
  expect_code 0
  expect_stdout "$socks_port"
  [ "$(sha_of "$SCRATCH/tls")" = "$(expected_sha 1m.bin)" ] || fail "the TLS body differs"
}

case_proxy_refusal_names_the_proxy_and_credentials_open_it() {
  local proxy_port
  proxy_port=$(port_of "$SLUICE_SQUID_AUTH_PROXY")
  run_sluice -x "$SLUICE_SQUID_AUTH_PROXY" --cacert "$SLUICE_TEST_CA" -o /dev/null "$HTTPS/small.txt"
  expect_code 56
  expect_one_error "proxy 127.0.0.1:$proxy_port refused the tunnel to localhost:"
  grep -q "407" "$ERR" || fail "the refusal does not say 407"
  expect_curls_code -s -x "$SLUICE_SQUID_AUTH_PROXY" --cacert "$SLUICE_TEST_CA" -o /dev/null \
    "$HTTPS/small.txt"
  run_sluice -x "$SLUICE_SQUID_AUTH_PROXY" \
    --proxy-user "$SLUICE_SQUID_AUTH_USER:$SLUICE_SQUID_AUTH_PASSWORD" \
    --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/small.txt" "$HTTPS/small.txt"
  expect_code 0
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "body differs"
}

case_resolve_and_connect_to_choose_where_to_connect() {
  local port https_port
  port=$(port_of "$HTTP")
  https_port=$(port_of "$HTTPS")
  run_sluice --resolve "files.test:$port:127.0.0.1" -o "$SCRATCH/small.txt" -w '%{remote_ip}' \
    "http://files.test:$port/small.txt"
  expect_code 0
  expect_stdout "127.0.0.1"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "body differs"
  # Port 1 has nothing; TLS still checks the URL's name (localhost), which passes.
  run_sluice --connect-to "localhost:1:127.0.0.1:$https_port" --cacert "$SLUICE_TEST_CA" \
    -o /dev/null -w '%{remote_port}' "https://localhost:1/small.txt"
  expect_code 0
  expect_stdout "$https_port"
  run_sluice --resolve "files.test:$port" -o /dev/null "http://files.test:$port/small.txt"
  expect_code 2
  expect_one_error "--resolve 'files.test:$port': missing a part"
}

case_unix_socket_carries_http1_and_h2c() {
  run_sluice --unix-socket "$SLUICE_NGINX_UNIX_SOCKET" -o "$SCRATCH/small.txt" \
    -w '%{http_version}' "http://localhost/small.txt"
  expect_code 0
  expect_stdout "1.1"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "body differs"
  run_sluice --unix-socket "$SLUICE_NGINX_H2C_UNIX_SOCKET" --http2-prior-knowledge \
    -o /dev/null -w '%{http_version}' "http://localhost/small.txt"
  expect_code 0
  expect_stdout "2"
}

case_ipv6_only_refuses_an_ipv4_server() {
  run_sluice -6 -o /dev/null "$HTTP/small.txt"
  expect_code 6
  expect_one_error "only IPv6 is allowed"
  run_sluice -4 -o /dev/null -w '%{remote_ip}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "127.0.0.1"
}

case_interface_and_local_port_choose_where_connections_leave_from() {
  run_sluice --interface lo --local-port 45000-45099 -o /dev/null \
    -w '%{local_ip} %{local_port}' "$HTTP/small.txt"
  expect_code 0
  local ip port
  read -r ip port < "$OUT"
  [ "$ip" = "127.0.0.1" ] || fail "left from '$ip', not 127.0.0.1"
  [ "$port" -ge 45000 ] && [ "$port" -le 45099 ] || fail "left from port $port, outside 45000-45099"
  run_sluice --interface nosuch0 -o /dev/null "$HTTP/small.txt"
  expect_code 45
  expect_one_error "no network interface named nosuch0"
  run_sluice --local-port 70000 -o /dev/null "$HTTP/small.txt"
  expect_code 2
  expect_one_error "'70000' is not a port number"
}

case_include_head_and_dump_header_show_the_response_head() {
  run_sluice -i "$HTTP/small.txt"
  expect_code 0
  head -1 "$OUT" | grep -q $'^HTTP/1.1 200\r$' || fail "-i: no status line first"
  grep -qi $'^content-length: [0-9]*\r$' "$OUT" || fail "-i: no Content-Length field"
  # The body follows the blank line, byte for byte.
  sed '1,/^\r$/d' "$OUT" > "$SCRATCH/body.txt"
  [ "$(sha_of "$SCRATCH/body.txt")" = "$(expected_sha small.txt)" ] || fail "-i: the body differs"

  run_sluice -I -w '%{size_download}' "$HTTP/small.txt"
  expect_code 0
  head -1 "$OUT" | grep -q $'^HTTP/1.1 200\r$' || fail "-I: no status line"
  # The head's blank line, then -w's 0: no body in between.
  [ "$(tail -c 5 "$OUT" | od -An -c | tr -d ' ')" = '\r\n\r\n0' ] || fail "-I: a body followed the head"

  run_sluice -D "$SCRATCH/head.txt" -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  head -1 "$SCRATCH/head.txt" | grep -q $'^HTTP/1.1 200\r$' || fail "-D: no status line in the file"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "-D: the body differs"

  run_sluice -I -d x "$HTTP/small.txt"
  expect_code 2
  expect_one_error "HEAD request"
}

case_user_and_bearer_authenticate() {
  run_sluice -o /dev/null -w '%{http_code}' "$HTTP/auth/small.txt"
  expect_stdout "401"
  run_sluice -o "$SCRATCH/small.txt" -w '%{http_code}' -u "$SLUICE_AUTH_USER:$SLUICE_AUTH_PASSWORD" \
    "$HTTP/auth/small.txt"
  expect_code 0
  expect_stdout "200"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "the body differs"
  run_sluice -o /dev/null -w '%{http_code}' --oauth2-bearer "$SLUICE_AUTH_TOKEN" "$HTTP/bearer/small.txt"
  expect_stdout "200"
  run_sluice -o /dev/null -u nopassword "$HTTP/auth/small.txt"
  expect_code 2
  expect_one_error "give USER:PASSWORD"
}

case_https_to_http_redirect_is_refused_unless_proto_redir_allows_it() {
  run_sluice -L --cacert "$SLUICE_TEST_CA" -o /dev/null "$HTTPS/to-http"
  expect_code 1
  expect_one_error "--proto-redir =http,https"
  run_sluice -L --proto-redir =http,https --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/small.txt" \
    -w '%{http_code} %{url_effective}' "$HTTPS/to-http"
  expect_code 0
  expect_stdout "200 $HTTP/small.txt"
  # Turning https off for redirects is curl's syntax too, and this URL does not redirect.
  run_sluice --proto-redir -https "$HTTP/small.txt"
  expect_code 0
  expect_curls_code -s --proto-redir -https "$HTTP/small.txt"
}

case_url_without_scheme_is_taken_as_http() {
  local bare=${HTTP#http://}
  run_sluice -o /dev/null -w '%{http_code} %{url_effective}' "$bare/small.txt"
  expect_code 0
  expect_stdout "200 http://$bare/small.txt"
}

case_https_proxy_carries_http_and_https() {
  local proxy_port
  proxy_port=$(port_of "$SLUICE_HTTPS_PROXY")
  run_sluice -x "$SLUICE_HTTPS_PROXY" --proxy-cacert "$SLUICE_TEST_CA" --cacert "$SLUICE_TEST_CA" \
    -o "$SCRATCH/tls" -w '%{remote_port} %{http_version}' "$H2/1m.bin"
  expect_code 0
  expect_stdout "$proxy_port 2"
  [ "$(sha_of "$SCRATCH/tls")" = "$(expected_sha 1m.bin)" ] || fail "the body differs"
  run_sluice -x "$SLUICE_HTTPS_PROXY" -o /dev/null "$HTTP/small.txt"
  expect_code 60
  expect_one_error "proxy localhost:$proxy_port: TLS: "
  expect_curls_code -s -x "$SLUICE_HTTPS_PROXY" -o /dev/null "$HTTP/small.txt"
  run_sluice -x "$SLUICE_HTTPS_PROXY" --proxy-insecure -o /dev/null -w '%{remote_port}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "$proxy_port"
}

case_fail_on_404_exits_22_without_output() {
  run_sluice -f -o "$SCRATCH/missing.out" -w '%{http_code} %{exitcode}' "$HTTP/no-such-file"
  expect_code 22
  expect_one_error "404"
  expect_stdout "404 22"
  [ ! -e "$SCRATCH/missing.out" ] || fail "-f created the output file for a 404"
  run_sluice -f "$HTTP/no-such-file"
  expect_code 22
  expect_stdout ""
}

case_404_without_fail_is_a_success_with_the_error_page() {
  run_sluice -w '\n%{http_code}' "$HTTP/no-such-file"
  expect_code 0
  expect_no_stderr
  [ "$(tail -n 1 "$OUT")" = "404" ] || fail "http_code is not 404"
  grep -q "404" <(head -n -1 "$OUT") || fail "the 404 page body was not written"
}

case_location_follows_one_redirect() {
  run_sluice -L -o "$SCRATCH/small.txt" -w '%{http_code} %{num_redirects} %{num_connects} %{url_effective}' \
    "$HTTP/redirect"
  expect_code 0
  # Both hops went to one origin over the connection the first opened.
  expect_stdout "200 1 1 $HTTP/small.txt"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "redirected body differs"
}

case_redirect_is_not_followed_without_location() {
  run_sluice -o /dev/null -w '%{http_code} %{num_redirects}' "$HTTP/redirect"
  expect_code 0
  expect_stdout "302 0"
}

case_max_redirs_stops_a_longer_chain() {
  run_sluice -L --max-redirs 3 -o /dev/null -w '%{num_redirects}' "$HTTP/redirect-chain/3"
  expect_code 0
  expect_stdout "3"
  run_sluice -L --max-redirs 1 -o /dev/null -w '%{exitcode} %{num_redirects}' \
    "$HTTP/redirect-chain/3"
  expect_code 47
  expect_one_error "redirect"
  expect_stdout "47 0"
  expect_curls_code -s -L --max-redirs 1 -o /dev/null "$HTTP/redirect-chain/3"
}

case_https_with_cacert_downloads() {
  run_sluice --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/1m.bin" -w '%{http_code} %{http_version}' \
    "$HTTPS/1m.bin"
  expect_code 0
  expect_no_stderr
  expect_stdout "200 1.1"
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "https body differs"
}

case_http2_is_negotiated_and_reported() {
  run_sluice --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/1m.bin" -w '%{http_code} %{http_version}' \
    "$H2/1m.bin"
  expect_code 0
  expect_no_stderr
  expect_stdout "200 2"
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "h2 body differs"
  run_sluice --http1.1 --cacert "$SLUICE_TEST_CA" -o /dev/null -w '%{http_version}' "$H2/1m.bin"
  expect_code 0
  expect_stdout "1.1"
}

case_http2_prior_knowledge_speaks_h2c() {
  run_sluice --http2-prior-knowledge -o "$SCRATCH/small.txt" -w '%{http_version}' "$H2C/small.txt"
  expect_code 0
  expect_stdout "2"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "h2c body differs"
}

case_http3_only_speaks_h3_to_caddy() {
  run_sluice --http3-only --cacert "$SLUICE_TEST_CA" -o "$SCRATCH/1m.bin" -w '%{http_version}' \
    "$CADDY/1m.bin"
  expect_code 0
  expect_no_stderr
  expect_stdout "3"
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "h3 body differs"
}

# --etag-save keeps nginx's ETag; --etag-compare with it gets a 304 that leaves
# the -o file as it was; another ETag gets the file.
case_etag_save_and_compare_fetch_only_what_changed() {
  run_sluice --etag-save "$SCRATCH/etag" -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  grep -qE '^"[^"]+"$' "$SCRATCH/etag" || fail "the saved ETag is '$(cat "$SCRATCH/etag")'"
  echo "kept" > "$SCRATCH/small.txt"
  run_sluice --etag-compare "$SCRATCH/etag" --etag-save "$SCRATCH/etag" -o "$SCRATCH/small.txt" \
    -w '%{http_code}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "304"
  [ "$(cat "$SCRATCH/small.txt")" = "kept" ] || fail "a 304 changed the -o file"
  echo '"stale"' > "$SCRATCH/old-etag"
  run_sluice --etag-compare "$SCRATCH/old-etag" -o "$SCRATCH/small.txt" -w '%{http_code}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "200"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "the changed file was not fetched"
}

# Fetches small.txt with -o over a file holding "kept" and the options given; expects
# exit 0 and status $1: a 200 fetched the file, a 304 or 412 left it as it was.
fetch_small_over_kept_expecting() {
  local status=$1
  shift
  echo "kept" > "$SCRATCH/small.txt"
  run_sluice "$@" -o "$SCRATCH/small.txt" -w '%{http_code}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "$status"
  if [ "$status" = 200 ]; then
    [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "the file was not fetched"
  else
    [ "$(cat "$SCRATCH/small.txt")" = "kept" ] || fail "a $status changed the -o file"
  fi
}

# -R gives the -o file nginx's Last-Modified; -z FILE then asks If-Modified-Since
# with exactly that time and nginx's 304 leaves the file untouched (exit 0, even
# with -f); an older date fetches the file again.
case_time_cond_fetches_only_a_newer_file() {
  run_sluice -R -o "$SCRATCH/small.txt" -w '%header{Last-Modified}' "$HTTP/small.txt"
  expect_code 0
  [ "$(stat -c %Y "$SCRATCH/small.txt")" = "$(date -d "$(cat "$OUT")" +%s)" ] \
    || fail "-R did not set the file's time to Last-Modified '$(cat "$OUT")'"
  touch -r "$SCRATCH/small.txt" "$SCRATCH/stamp"
  fetch_small_over_kept_expecting 304 -f -z "$SCRATCH/stamp"
  fetch_small_over_kept_expecting 200 -z "Sun, 06 Nov 1994 08:49:37 GMT"
}

# -z -DATE: If-Unmodified-Since; a file changed since DATE gets nginx's 412, which
# writes nothing; a date after the change gets the file.
case_time_cond_unmodified_since() {
  fetch_small_over_kept_expecting 412 -z "-Sun, 06 Nov 1994 08:49:37 GMT"
  fetch_small_over_kept_expecting 200 -z "-Fri, 31 Dec 9999 23:59:59 GMT"
}

# Download mode (-O) takes the same condition: -R then -z FILE gives a 304 that
# leaves the file as it was.
case_time_cond_in_download_mode() {
  mkdir -p "$SCRATCH/dl"
  run_sluice -s -R -O --output-dir "$SCRATCH/dl" "$HTTP/small.txt"
  expect_code 0
  [ "$(sha_of "$SCRATCH/dl/small.txt")" = "$(expected_sha small.txt)" ] || fail "the download differs"
  touch -r "$SCRATCH/dl/small.txt" "$SCRATCH/stamp"
  echo "kept" > "$SCRATCH/dl/small.txt"
  touch -r "$SCRATCH/stamp" "$SCRATCH/dl/small.txt"
  run_sluice -z "$SCRATCH/stamp" -O --output-dir "$SCRATCH/dl" "$HTTP/small.txt"
  expect_code 0
  grep -qF "not modified (HTTP 304)" "$ERR" || fail "no note of the 304"
  [ "$(cat "$SCRATCH/dl/small.txt")" = "kept" ] || fail "a 304 changed the downloaded file"
}

# --trace-ascii: the request as sent and the response as received, in curl's records.
case_trace_ascii_shows_the_request_and_response_bytes() {
  run_sluice --trace-ascii "$SCRATCH/trace" -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  expect_no_stderr
  local trace=$SCRATCH/trace
  grep -q '^== Info: ' "$trace" || fail "no Info records"
  grep -qE '^=> Send data, [0-9]+ bytes \(0x[0-9a-f]+\)$' "$trace" || fail "no Send record"
  grep -qE '^<= Recv data, [0-9]+ bytes \(0x[0-9a-f]+\)$' "$trace" || fail "no Recv record"
  grep -qx '0000: GET /small.txt HTTP/1.1' "$trace" || fail "the request line is not the first sent line"
  grep -qE '^[0-9a-f]{4}: Host: 127\.0\.0\.1:[0-9]+$' "$trace" || fail "no Host line"
  grep -qx '0000: HTTP/1.1 200 OK' "$trace" || fail "no status line"
  grep -qF "$(head -c 40 "$SCRATCH/small.txt")" "$trace" || fail "the body's first bytes are not in the trace"
}

# --trace over TLS and HTTP/2: the decrypted bytes, starting with the connection
# preface, as hex with the printable column beside it.
case_trace_over_https_h2_dumps_the_decrypted_frames() {
  run_sluice --cacert "$SLUICE_TEST_CA" --trace "$SCRATCH/trace" -o /dev/null "$H2/small.txt"
  expect_code 0
  grep -qx '0000: 50 52 49 20 2a 20 48 54 54 50 2f 32 2e 30 0d 0a PRI \* HTTP/2.0\.\.' "$SCRATCH/trace" \
    || fail "no HTTP/2 preface in clear text"
  grep -q 'TLS handshake done' "$SCRATCH/trace" || fail "no Info record of the handshake"
  # The printable columns (from column 55: "0000: " and 16 hex bytes), joined, hold
  # the body: small.txt begins "sluice: a gate" and went in a DATA frame.
  awk '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / { printf "%s", substr($0, 55) }' "$SCRATCH/trace" > "$SCRATCH/columns"
  grep -qF 'sluice: a gate that lets water through' "$SCRATCH/columns" \
    || fail "the decrypted body is not in the trace"
}

# --trace over HTTP/3: each QUIC stream's bytes, named by stream: the request on
# stream 0 (the first client-initiated bidirectional stream), our control stream 2
# opening with its type byte 0x00, and the response on stream 0 with the body in
# clear text (RFC 9000 2.1, RFC 9114 6.2.1).
case_trace_over_http3_dumps_each_streams_bytes() {
  run_sluice --http3-only --cacert "$SLUICE_TEST_CA" --trace "$SCRATCH/trace" -o /dev/null "$CADDY/small.txt"
  expect_code 0
  local trace=$SCRATCH/trace
  grep -qE '^=> Send data, [0-9]+ bytes \(0x[0-9a-f]+\), stream 0$' "$trace" || fail "no request on stream 0"
  grep -qE '^<= Recv data, [0-9]+ bytes \(0x[0-9a-f]+\), stream 0$' "$trace" || fail "no response on stream 0"
  grep -A1 -E '^=> Send data, [0-9]+ bytes \(0x[0-9a-f]+\), stream 2$' "$trace" | grep -qE '^0000: 00 ' \
    || fail "our control stream 2 does not begin with its type, 0x00"
  awk '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / { printf "%s", substr($0, 55) }' "$trace" > "$SCRATCH/columns"
  grep -qF 'sluice: a gate that lets water through' "$SCRATCH/columns" \
    || fail "the body is not in the trace"
}

# --trace - writes the trace to stdout, so the body must go elsewhere.
case_trace_to_stdout() {
  run_sluice --trace-ascii - -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  grep -qx '0000: GET /small.txt HTTP/1.1' "$OUT" || fail "no trace on stdout"
}

# -z with neither a date nor a file: curl's warning, then an unconditional fetch.
case_time_cond_that_is_no_date_nor_file_warns() {
  run_sluice -z "$SCRATCH/no-such-file" -o "$SCRATCH/small.txt" "$HTTP/small.txt"
  expect_code 0
  grep -qF "is neither a date" "$ERR" || fail "no warning about -z's argument"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "the file was not fetched"
}

# -v shows the request line with the version that carried it, as curl does.
case_verbose_request_line_names_h2_and_h3() {
  run_sluice -v --cacert "$SLUICE_TEST_CA" -o /dev/null "$H2/small.txt"
  expect_code 0
  grep -qxF "> GET /small.txt HTTP/2" "$ERR" || fail "-v over h2: $(grep '^> GET' "$ERR")"
  grep -qxF "< HTTP/2 200" "$ERR" || fail "-v over h2 lacks the status line"
  run_sluice -v --http3-only --cacert "$SLUICE_TEST_CA" -o /dev/null "$CADDY/1m.bin"
  expect_code 0
  grep -qxF "> GET /1m.bin HTTP/3" "$ERR" || fail "-v over h3: $(grep '^> GET' "$ERR")"
}

# A POST answered by a 302 goes on as a GET without its body (curl does the same):
# -v shows the request that went, not the one asked for.
case_verbose_after_a_redirect_shows_the_get_that_went() {
  run_sluice -v -L -d 'a=1' -o /dev/null "$HTTP/redirect"
  expect_code 0
  grep -qxF "> GET /small.txt HTTP/1.1" "$ERR" || fail "-v after the 302: $(grep '^> [A-Z]' "$ERR")"
  grep -q "^> POST" "$ERR" && fail "-v shows the POST that was asked for, not the GET sent"
  grep -qi "^> Content-Length" "$ERR" && fail "-v shows a body the GET did not carry"
  return 0
}

# nginx has no UDP listener: QUIC is refused at once, --http3 falls back to TCP and
# --http3-only fails with exit 7 (connect) or 28 (timeout) and says QUIC or HTTP/3.
case_http3_falls_back_and_http3_only_fails_without_quic() {
  run_sluice --http3 --cacert "$SLUICE_TEST_CA" -o /dev/null -w '%{http_version}' "$H2/small.txt"
  expect_code 0
  expect_stdout "2"
  run_sluice --http3-only --connect-timeout 3 --cacert "$SLUICE_TEST_CA" -o /dev/null "$H2/small.txt"
  case $CODE in 7|28|35|56) ;; *) fail "--http3-only without QUIC exited $CODE" ;; esac
  grep -qE "QUIC|HTTP/3" "$ERR" || fail "the error does not name QUIC or HTTP/3: $(cat "$ERR")"
}

case_https_untrusted_certificate_exits_60() {
  run_sluice -o "$SCRATCH/never.bin" "$HTTPS/small.txt"
  expect_code 60
  expect_one_error ""
  [ ! -e "$SCRATCH/never.bin" ] || fail "a failed handshake created the output file"
  expect_curls_code -s -o /dev/null "$HTTPS/small.txt"
}

case_client_certificate_opens_mutual_tls() {
  run_sluice --cacert "$SLUICE_TEST_CA" --cert "$SLUICE_CLIENT_CERT" --key "$SLUICE_CLIENT_KEY" \
    "$SLUICE_NGINX_MTLS_URL/whoami"
  expect_code 0
  expect_no_stderr
  expect_stdout "CN=sluice test client"$'\n'
  run_sluice -E "$SLUICE_CLIENT_CERT" --key "$SLUICE_CLIENT_KEY_ENCRYPTED" \
    --pass "$SLUICE_CLIENT_KEY_PASSPHRASE" --cacert "$SLUICE_TEST_CA" "$SLUICE_NGINX_MTLS_URL/whoami"
  expect_code 0
  expect_stdout "CN=sluice test client"$'\n'
  # Without a certificate nginx completes the handshake and answers 400.
  run_sluice -f --cacert "$SLUICE_TEST_CA" "$SLUICE_NGINX_MTLS_URL/whoami"
  expect_code 22
  run_sluice --cacert "$SLUICE_TEST_CA" --cert "$SLUICE_CLIENT_CERT" \
    --key "$SLUICE_CLIENT_KEY_ENCRYPTED" --pass wrong "$SLUICE_NGINX_MTLS_URL/whoami"
  expect_code 2
  expect_one_error "wrong passphrase for private key $SLUICE_CLIENT_KEY_ENCRYPTED"
}

case_pinnedpubkey_mismatch_names_both_pins() {
  run_sluice --cacert "$SLUICE_TEST_CA" --pinnedpubkey "$SLUICE_SERVER_PUBKEY_PIN" "$H2/small.txt"
  expect_code 0
  local wrong=sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
  run_sluice -k --pinnedpubkey "$wrong" "$H2/small.txt"
  expect_code 90  # curl's number for a pin that does not match
  expect_one_error "is $SLUICE_SERVER_PUBKEY_PIN, which does not match the pinned $wrong"
  expect_curls_code -k --pinnedpubkey "$wrong" "$H2/small.txt"
}

# --split 8 over HTTP/1.1 + TLS opens eight connections to one origin: the first
# does a full handshake, the seven others resume its session (-v says which, and
# the closing stats line counts them); --no-sessionid makes all eight full.
case_split_over_tls_resumes_after_the_first_handshake() {
  run_sluice -v --http1.1 --split 8 --no-progress --cacert "$SLUICE_TEST_CA" \
    -o "$SCRATCH/64m.bin" "$HTTPS/64m.bin"
  expect_code 0
  [ "$(sha_of "$SCRATCH/64m.bin")" = "$(expected_sha 64m.bin)" ] || fail "--split body differs"
  # Eight connections, and one more for each half of a rest a range that finished
  # early took (work stealing): every one after the first resumes the session.
  local resumed
  resumed=$(grep -c 'TLS handshake done, session resumed' "$ERR")
  [ "$(grep -c 'TLS handshake done, full handshake' "$ERR")" -eq 1 ] || fail "not one full handshake"
  [ "$resumed" -ge 7 ] || fail "only $resumed resumed"
  grep -q "^\\* tls: 1 full handshake, $resumed resumed\$" "$ERR" || fail "the stats line does not count them"
  rm -f "$SCRATCH/64m.bin"
  run_sluice -v --http1.1 --split 8 --no-progress --no-sessionid --cacert "$SLUICE_TEST_CA" \
    -o "$SCRATCH/64m.bin" "$HTTPS/64m.bin"
  expect_code 0
  [ "$(grep -c 'TLS handshake done, full handshake' "$ERR")" -ge 8 ] || fail "--no-sessionid: fewer full handshakes than connections"
  [ "$(grep -c 'TLS handshake done, session resumed' "$ERR")" -eq 0 ] || fail "--no-sessionid resumed"
}

case_insecure_skips_verification() {
  run_sluice -k "$HTTPS/small.txt"
  expect_code 0
  [ "$(sha_of "$OUT")" = "$(expected_sha small.txt)" ] || fail "-k body differs"
}

# curl's %{ssl_verify_result}: 0 for a certificate the CA vouches for and over plain
# http; with -k and no --cacert the real verify code of the unknown issuer (OpenSSL:
# 19 or 20, never 0), reported although the transfer goes ahead. Over h2 as over h1.
case_write_out_ssl_verify_result_reports_the_certificate_check() {
  run_sluice --cacert "$SLUICE_TEST_CA" -o /dev/null -w '%{ssl_verify_result}' "$HTTPS/small.txt"
  expect_code 0
  expect_stdout "0"
  run_sluice -k -o /dev/null -w '%{ssl_verify_result} %{http_code}' "$HTTPS/small.txt"
  expect_code 0
  local code status
  read -r code status < "$OUT"
  [ "$status" = 200 ] || fail "-k got status '$status'"
  [ "$code" = 19 ] || [ "$code" = 20 ] || [ "$code" = 21 ] || fail "-k without the CA reported verify result '$code'"
  run_sluice -k -o /dev/null -w '%{json}' "$H2/small.txt"
  expect_code 0
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["ssl_verify_result"] in (19, 20, 21), d' "$OUT" \
    || fail "%{json} over h2 with -k: $(cat "$OUT")"
  run_sluice -o /dev/null -w '%{ssl_verify_result}' "$HTTP/small.txt"
  expect_code 0
  expect_stdout "0"
}

# In download mode (--split) -w tells the first response's connection, head and
# certificate check as fetch mode does, not zeros.
case_write_out_in_download_mode_names_the_connection_and_the_check() {
  run_sluice -k --split 2 -o "$SCRATCH/1m.bin" \
    -w '%{ssl_verify_result} %{remote_ip} %{remote_port} %{local_ip} %{num_connects} %{content_type} %header{etag}' "$HTTPS/1m.bin"
  expect_code 0
  local code ip port local_ip connects type etag
  read -r code ip port local_ip connects type etag < "$OUT"
  [ "$connects" = 1 ] || fail "num_connects '$connects'"
  [ "$type" = application/octet-stream ] || fail "content_type '$type'"
  [ -n "$etag" ] && [ "$etag" = "$(curl -sk -I "$HTTPS/1m.bin" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')" ] \
    || fail "%header{etag} '$etag' is not the server's"
  [ "$code" = 19 ] || [ "$code" = 20 ] || [ "$code" = 21 ] || fail "download mode with -k reported verify result '$code'"
  [ "$ip" = 127.0.0.1 ] || fail "remote_ip '$ip'"
  [ "$port" = "${HTTPS##*:}" ] || fail "remote_port '$port', the URL's is ${HTTPS##*:}"
  [ "$local_ip" = 127.0.0.1 ] || fail "local_ip '$local_ip'"
  [ "$(sha_of "$SCRATCH/1m.bin")" = "$(expected_sha 1m.bin)" ] || fail "the file differs"
}

# Over HTTP/3 GnuTLS checks the certificate, and the result is given in OpenSSL's
# numbers: caddy's certificate with -k and no --cacert reports what the same check
# reports over h2 (never 0), and with the CA it is 0.
case_write_out_ssl_verify_result_over_http3_matches_tcp() {
  run_sluice --http3-only --cacert "$SLUICE_TEST_CA" -o /dev/null -w '%{ssl_verify_result} %{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "0 3"
  run_sluice --http2 -k -o /dev/null -w '%{ssl_verify_result}' "$CADDY/small.txt"
  expect_code 0
  local over_tcp
  over_tcp=$(cat "$OUT")
  [ "$over_tcp" != 0 ] || fail "-k over h2 to caddy reported 0"
  run_sluice --http3-only -k -o /dev/null -w '%{ssl_verify_result} %{http_version}' "$CADDY/small.txt"
  expect_code 0
  expect_stdout "$over_tcp 3"
}

# %{size_download} counts the gzip bytes received, as curl's does, not the decoded ones.
case_compressed_decodes_gzip() {
  local size
  size=$(stat -c %s "$SLUICE_FILES_DIR/large.txt")
  run_sluice --compressed -v -w '%{size_download}' -o "$SCRATCH/large.txt" "$HTTP/large.txt"
  expect_code 0
  grep -qix '< Content-Encoding: gzip' "$ERR" || fail "nginx did not send gzip; nothing was decoded"
  local received
  received=$(cat "$OUT")
  [ "$received" -gt 0 ] && [ "$received" -lt "$size" ] \
    || fail "size_download $received is not the encoded size (decoded: $size)"
  [ "$(sha_of "$SCRATCH/large.txt")" = "$(expected_sha large.txt)" ] || fail "decoded body differs"
}

case_upload_streams_a_file_with_data_binary() {
  run_sluice -X PUT --data-binary @"$SLUICE_FILES_DIR/1m.bin" -o /dev/null -w '%{http_code}' \
    "$HTTP/upload/cli-1m.bin"
  expect_code 0
  [ "$(cat "$OUT")" = 201 ] || [ "$(cat "$OUT")" = 204 ] || fail "PUT answered $(cat "$OUT")"
  run_sluice "$HTTP/upload/cli-1m.bin"
  expect_code 0
  [ "$(sha_of "$OUT")" = "$(expected_sha 1m.bin)" ] || fail "the uploaded file differs"
}

case_data_file_is_sent_without_newlines() {
  run_sluice -X PUT -d @"$SLUICE_FILES_DIR/small.txt" -d second=2 -o /dev/null -w '%{http_code}' \
    "$HTTP/upload/cli-form.txt"
  expect_code 0
  run_sluice "$HTTP/upload/cli-form.txt"
  expect_code 0
  local expected
  expected="$(tr -d '\r\n' < "$SLUICE_FILES_DIR/small.txt")&second=2"
  [ "$(cat "$OUT")" = "$expected" ] || fail "the server stored '$(head -c 200 "$OUT")'"
}

case_closed_stdout_exits_23() {
  "$SLUICE" "$HTTP/64m.bin" 2> "$ERR" | head -c 1000 > /dev/null
  CODE=${PIPESTATUS[0]}
  expect_code 23
  expect_one_error "stdout"
}

# A reader that stalls must hold sluice back, not make it buffer the body: while
# stdout is blocked for 2 s, 64 MiB could arrive over loopback many times over.
case_stalled_stdout_keeps_memory_flat() {
  python3 - "$SLUICE" "$HTTP/64m.bin" "$(expected_sha 64m.bin)" <<'PY' || fail "see above"
import hashlib, resource, subprocess, sys, time
binary, url, want = sys.argv[1:4]
child = subprocess.Popen([binary, url], stdout=subprocess.PIPE)
time.sleep(2)
digest = hashlib.sha256()
while True:
    chunk = child.stdout.read(1 << 16)
    if not chunk:
        break
    digest.update(chunk)
status = child.wait()
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"sluice exit {status}, peak RSS {peak_kib} KiB")
if status != 0 or digest.hexdigest() != want:
    sys.exit("the download failed or differs")
if peak_kib > 40 * 1024:
    sys.exit(f"peak RSS {peak_kib} KiB for a 64 MiB body: the body was buffered")
PY
}

run_case "$2"
