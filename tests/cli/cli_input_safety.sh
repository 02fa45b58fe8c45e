#!/usr/bin/env bash
# What comes in from the command line or the network is never trusted: line breaks in
# what goes on the wire are refused before anything is sent, a server's cookies keep
# to their origin (Secure, prefixes, public suffixes), its file names stay in the
# output directory and do not replace files, and lengths it or the user gives cannot
# make sluice send what it did not mean (SOCKS5's one length byte). Each beside curl
# 7.88 where curl has the option. docs/security.md lists the classes.
# Usage: cli_input_safety.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# start_peer: the loopback peer tests/cli/input_peer.py (what it answers is listed
# there), noting what it receives in $SCRATCH/received; sets PEER_PORT and PEER_URL.
start_peer() {
  start_peer_script input_peer.py "$SCRATCH/received"
  PEER_PORT=$PEER_PORTS
  PEER_URL=http://127.0.0.1:$PEER_PORT
}

# The query text for the peer: each argument %-encoded as the value of NAME.
query() {
  python3 -c 'import sys, urllib.parse
print("&".join(sys.argv[1] + "=" + urllib.parse.quote(v, safe="") for v in sys.argv[2:]))' "$@"
}

expect_nothing_received() {
  [ ! -s "$SCRATCH/received" ] || fail "the peer received: $(head -c 600 "$SCRATCH/received")"
}

# Every option whose text goes on the wire refuses CR, LF (and NUL, where a file can
# carry one) with exit 2 and one line naming the option; the URL with 3, as curl.
case_line_breaks_in_what_goes_on_the_wire_are_refused_and_nothing_is_sent() {
  start_peer
  local url=$PEER_URL/x injected=$'\r\nX-Injected: 1'
  run_sluice -H "X-A: a$injected" "$url"
  expect_code 2
  expect_one_error "-H 'X-A: a  X-Injected: 1': header 'X-A': value contains a carriage return (CR)"
  run_sluice -H $'X-A\nB: 1' "$url"
  expect_code 2
  expect_one_error "invalid header name 'X-A\\x0AB': line feed (LF) is not allowed in a name"
  printf 'X-Fine: 1\nX-A: a\0b\n' > "$SCRATCH/headers"
  run_sluice -H "@$SCRATCH/headers" "$url"
  expect_code 2
  expect_one_error "header 'X-A': value contains a NUL byte"
  run_sluice -X "GET / HTTP/1.1${injected}" "$url"
  expect_code 2
  expect_one_error "-X 'GET / HTTP/1.1  X-Injected: 1': a method is one token"
  run_sluice -u "me${injected}:pw" "$url"
  expect_code 2
  expect_one_error "Basic: the user name or password holds a control character"
  run_sluice -e "http://from.test/${injected}" "$url"
  expect_code 2
  expect_one_error "-e: invalid header value: value contains a carriage return (CR)"
  run_sluice -A "agent${injected}" "$url"
  expect_code 2
  expect_one_error "-A: invalid header value: value contains a carriage return (CR)"
  run_sluice -A $'agent\x01' "$url"
  expect_code 2
  expect_one_error "-A: invalid header value: value contains a control byte 0x01"
  run_sluice -b "a=b${injected}" "$url"
  expect_code 2
  expect_one_error "-b/--cookie: invalid header value: value contains a carriage return (CR)"
  run_sluice "$url${injected}"
  expect_code 3
  expect_one_error "URL: contains a carriage return (CR)"
  expect_curls_code -s "$url${injected}"
  expect_nothing_received
  # A space cannot split the request line either: it goes %-encoded (curl refuses it).
  run_sluice "$PEER_URL/a b"
  expect_code 0
  grep -qF $'GET /a%20b HTTP/1.1\r' "$SCRATCH/received" || fail "sent: $(grep '^GET' "$SCRATCH/received")"
}

# A Location is bytes from the server: raw control bytes in it end the exchange (a
# malformed field), and %-escaped ones stay escaped on the next request line.
case_redirect_location_cannot_inject_into_the_next_request() {
  start_peer
  local to
  # The peer %-decodes the query: these put a raw NUL, CR and VT in the Location.
  for to in /next%00X /next%0DX-Injected:%201 /next%0BX; do
    : > "$SCRATCH/received"
    run_sluice -L "$PEER_URL/location?to=$to"
    expect_code 8
    expect_one_error "HTTP/1.1: invalid header from server"
    [ "$(grep -c '^GET ' "$SCRATCH/received")" -eq 1 ] || fail "the redirect was followed"
  done
  : > "$SCRATCH/received"
  run_sluice -L "$PEER_URL/location?$(query to '/next%0D%0AX-Injected:%201')"
  expect_code 0
  grep -qF $'GET /next%0D%0AX-Injected:%201 HTTP/1.1\r' "$SCRATCH/received" \
    || fail "the second request line: $(grep '^GET /next' "$SCRATCH/received")"
  if grep -qi '^X-Injected' "$SCRATCH/received"; then fail "a header was injected"; fi
}

# cookies.test is not a loopback name, so http there is insecure (6265bis): it may
# not replace or shadow the Secure cookie the jar has, nor set a __Secure- or __Host-
# one; a Domain that is a public suffix (libpsl) is refused. The jars are curl's.
case_cookies_from_http_leave_secure_ones_alone_and_public_suffixes_are_refused() {
  start_peer
  local route=(--resolve "cookies.test:$PEER_PORT:127.0.0.1"
    --resolve "shop.example.co.uk:$PEER_PORT:127.0.0.1")
  printf 'cookies.test\tFALSE\t/\tTRUE\t0\tsid\tsecret\n' > "$SCRATCH/in.txt"
  local set
  set=$(query c 'sid=evil' 'sid=shadow; Path=/cookies' 'sid=parent; Domain=cookies.test' \
    '__Secure-a=1' '__Secure-b=1; Secure' '__Host-c=1; Path=/' 'ok=1')
  run_sluice "${route[@]}" -b "$SCRATCH/in.txt" -c "$SCRATCH/jar.txt" \
    "http://cookies.test:$PEER_PORT/cookies/set?$set"
  expect_code 0
  local want
  want=$(printf 'cookies.test\tFALSE\t/\tTRUE\t0\tsid\tsecret\ncookies.test\tFALSE\t/cookies\tFALSE\t0\tok\t1\n')
  [ "$(grep -v -e '^#' -e '^$' "$SCRATCH/jar.txt")" = "$want" ] \
    || fail "jar after http's Set-Cookie: $(cat "$SCRATCH/jar.txt")"
  # Nor is the Secure cookie sent back over http.
  run_sluice "${route[@]}" -b "$SCRATCH/jar.txt" "http://cookies.test:$PEER_PORT/cookies/echo"
  expect_stdout "cookie=[ok=1]"$'\n'

  set=$(query c 'ps=1; Domain=co.uk' 'ps2=1; Domain=.CO.UK' 'mine=1; Domain=example.co.uk')
  run_sluice "${route[@]}" -c "$SCRATCH/suffix.txt" \
    "http://shop.example.co.uk:$PEER_PORT/cookies/set?$set"
  expect_code 0
  [ "$(grep -v -e '^#' -e '^$' "$SCRATCH/suffix.txt")" = \
    "$(printf '.example.co.uk\tTRUE\t/cookies\tFALSE\t0\tmine\t1')" ] \
    || fail "jar after Domain=co.uk: $(cat "$SCRATCH/suffix.txt")"
  if command -v curl > /dev/null; then
    curl -s "${route[@]}" -c "$SCRATCH/curl-suffix.txt" -o /dev/null \
      "http://shop.example.co.uk:$PEER_PORT/cookies/set?$set"
    if grep -q -e $'\tps\t' -e $'\tps2\t' "$SCRATCH/curl-suffix.txt"; then
      fail "curl kept a public suffix cookie: $(cat "$SCRATCH/curl-suffix.txt")"
    fi
  fi
}

# -O -J: whatever the server names, the file lands in --output-dir under its last
# component, never '.', '..' or empty (then the URL's name is used).
case_server_file_names_stay_in_the_output_directory() {
  start_peer
  mkdir -p "$SCRATCH/out/deeper"
  local value name
  local -A want=(
    ['attachment; filename="../../escape1"']=escape1
    ['attachment; filename="/tmp/escape2"']=escape2
    ["attachment; filename*=UTF-8''..%2F..%2Fescape3"]=escape3
    ['attachment; filename="..\\..\\escape4"']=escape4
    ['attachment; filename=".."']=url.bin
    ['attachment; filename="."']=url.bin
    ['attachment; filename=""']=url.bin
    ["attachment; filename*=UTF-8''a%0Ab"]=url.bin
  )
  for value in "${!want[@]}"; do
    name=${want[$value]}
    rm -f "$SCRATCH/out/deeper/"*
    run_sluice -s -S --output-dir "$SCRATCH/out/deeper" -O -J "$PEER_URL/cd/url.bin?$(query v "$value")"
    expect_code 0
    [ "$(ls -A "$SCRATCH/out/deeper")" = "$name" ] \
      || fail "for $value: $(ls -A "$SCRATCH/out/deeper") in the directory, not $name"
  done
  [ "$(ls -A "$SCRATCH/out")" = deeper ] || fail "a file left --output-dir: $(ls -A "$SCRATCH/out")"
  [ ! -e /tmp/escape2 ] || fail "an absolute name was written"
  # The URL's name is reduced the same way.
  rm -f "$SCRATCH/out/deeper/"*
  run_sluice -s -S --output-dir "$SCRATCH/out/deeper" -O "$PEER_URL/a/..%2F..%2Fescape5"
  expect_code 0
  [ "$(ls -A "$SCRATCH/out/deeper")" = escape5 ] || fail "from the URL: $(ls -A "$SCRATCH/out/deeper")"
}

# curl's -J never replaces a file (exit 23); --no-clobber writes NAME.1, --clobber
# replaces it. A name from the URL (-O alone) replaces, as curl's does.
case_server_file_name_replaces_a_file_only_with_clobber() {
  start_peer
  mkdir -p "$SCRATCH/out" "$SCRATCH/curl"
  local url
  url="$PEER_URL/cd/url.bin?$(query v 'attachment; filename="kept.txt"')"
  echo precious > "$SCRATCH/out/kept.txt"
  run_sluice -s -S --output-dir "$SCRATCH/out" -O -J "$url"
  expect_code 23
  expect_one_error "'$SCRATCH/out/kept.txt' exists and the server chose its name (Content-Disposition): not overwritten"
  [ "$(cat "$SCRATCH/out/kept.txt")" = precious ] || fail "the file was replaced"
  [ "$(ls -A "$SCRATCH/out")" = kept.txt ] || fail "files left: $(ls -A "$SCRATCH/out")"
  echo precious > "$SCRATCH/curl/kept.txt"
  expect_curls_code -s --output-dir "$SCRATCH/curl" -O -J "$url"
  run_sluice -s -S --output-dir "$SCRATCH/out" -O -J --no-clobber "$url"
  expect_code 0
  [ "$(cat "$SCRATCH/out/kept.txt")" = precious ] || fail "--no-clobber replaced the file"
  [ "$(cat "$SCRATCH/out/kept.txt.1")" = payload ] || fail "--no-clobber did not write kept.txt.1"
  run_sluice -s -S --output-dir "$SCRATCH/out" -O -J --clobber "$url"
  expect_code 0
  [ "$(cat "$SCRATCH/out/kept.txt")" = payload ] || fail "--clobber did not replace the file"
  echo precious > "$SCRATCH/out/url.bin"
  run_sluice -s -S --output-dir "$SCRATCH/out" -O "$PEER_URL/url.bin"
  expect_code 0
  [ "$(cat "$SCRATCH/out/url.bin")" = payload ] || fail "-O did not replace the file as curl does"
}

# curl's CVE-2023-38545: a host name over 255 bytes cannot go in SOCKS5's one length
# byte. URLs hold at most 253; --connect-to can name any, and is refused after the
# greeting, before a CONNECT. 255 bytes go whole.
case_socks5_host_name_longer_than_its_length_byte_is_refused() {
  start_peer
  local long
  long=$(printf 'a%.0s' $(seq 300))
  run_sluice --socks5-hostname "127.0.0.1:$PEER_PORT" --connect-to "::$long:80" http://x.test/
  expect_code 2
  expect_one_error "SOCKS5: the host name is 300 bytes, longer than the 255 SOCKS5 carries"
  [ "$(grep -c '^socks then $' "$SCRATCH/received")" -eq 1 ] \
    || fail "the proxy got more than the greeting: $(head -c 300 "$SCRATCH/received")"
  run_sluice --socks5-hostname "127.0.0.1:$PEER_PORT" "http://${long:0:254}/"
  expect_code 3
  expect_one_error "host name longer than 253 characters"
}

# Lengths from the network size nothing in memory: a chunk of 2^63-1 bytes or a
# Content-Length of 2^63-1 announced, five bytes sent and the connection closed, is a
# cut body (18), as curl says; past 64 bits it is refused as malformed.
case_huge_lengths_from_the_server_are_a_cut_body_not_an_allocation() {
  start_peer
  run_sluice -s -S -o "$SCRATCH/out" "$PEER_URL/chunk?size=7fffffffffffffff"
  expect_code 18
  expect_curls_code -s -o "$SCRATCH/curl.out" "$PEER_URL/chunk?size=7fffffffffffffff"
  run_sluice -s -S -o "$SCRATCH/out" "$PEER_URL/length?n=9223372036854775807"
  expect_code 18
  expect_curls_code -s -o "$SCRATCH/curl.out" "$PEER_URL/length?n=9223372036854775807"
  run_sluice -s -S -o "$SCRATCH/out" "$PEER_URL/chunk?size=1ffffffffffffffff"
  expect_code 8
  expect_one_error "invalid chunk size from server"
  run_sluice -s -S -o "$SCRATCH/out" "$PEER_URL/length?n=99999999999999999999"
  expect_code 8
  expect_one_error "invalid Content-Length from server"
}

run_case "$2"
