#!/usr/bin/env bash
# Where `sluice` sends credentials when a redirect or a download's ranges and mirrors
# leave the origin they were given for: judged by a loopback peer on two ports that
# notes what each request brought (secrets_peer.py), beside curl 7.88 where curl has
# the options. Another host, another port: nothing follows unless --location-trusted.
# Usage: cli_secrets.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

LOG=$SCRATCH/peer.log

# start_peer: the noting server in the background; sets A and B (its two ports).
start_peer() {
  start_peer_script secrets_peer.py "$LOG"
  read -r A B <<< "$PEER_PORTS"
}

# seen PORT PATH: what the peer noted of requests for PATH on PORT (the fields after
# the path, one line per request).
seen() {
  awk -v port="$1" -v path="$2" '$1 == port && $3 == path { $1 = $2 = $3 = ""; print substr($0, 4) }' "$LOG"
}

# expect_bare PORT PATH: requests for PATH on PORT came, and with no credential.
expect_bare() {
  local lines
  lines=$(seen "$1" "$2")
  [ -n "$lines" ] || fail "no request for $2 on port $1; the peer saw:"$'\n'"$(cat "$LOG")"
  if grep -v 'authorization=- cookie=- proxy-authorization=-$' <<< "$lines" > /dev/null; then
    fail "credentials reached $2 on port $1:"$'\n'"$lines"
  fi
}

# expect_carried PORT PATH FIELD: every request for PATH on PORT had FIELD (say
# "authorization=Basic").
expect_carried() {
  local lines
  lines=$(seen "$1" "$2")
  [ -n "$lines" ] || fail "no request for $2 on port $1; the peer saw:"$'\n'"$(cat "$LOG")"
  if grep -v -F "$3" <<< "$lines" > /dev/null; then
    fail "a request for $2 on port $1 lacked $3:"$'\n'"$lines"
  fi
}

# expect_ranges PORT PATH: the download asked PORT for PATH in ranges, and the file
# it wrote is the peer's.
expect_ranges() {
  [ "$(seen "$1" "$2" | grep -c 'range=bytes')" -ge 2 ] \
    || fail "expected range requests for $2 on port $1; the peer saw:"$'\n'"$(cat "$LOG")"
  [ "$(sha_of "$SCRATCH/f.bin")" = "$(python3 "$(dirname "$0")/secrets_peer.py" --sha256)" ] \
    || fail "the file differs from the peer's"
}

# run_both ARGS...: sluice, then curl (when installed) with the same arguments; the
# peer's log is cleared before each. Sets CURL_LOG to what curl's requests left.
run_both() {
  : > "$LOG"
  run_sluice -s "$@"
  CURL_LOG=
  command -v curl > /dev/null || return 0
  cp "$LOG" "$SCRATCH/sluice.log"
  : > "$LOG"
  curl -q -s -o /dev/null "$@" 2> /dev/null
  CURL_LOG=$(cat "$LOG")
  cp "$SCRATCH/sluice.log" "$LOG"
}

# expect_curl_alike: curl's requests brought the same credentials as sluice's (the
# port and path of each request and the fields noted, in order).
expect_curl_alike() {
  command -v curl > /dev/null || return 0
  [ "$(cat "$LOG")" = "$CURL_LOG" ] \
    || fail "sluice's requests:"$'\n'"$(cat "$LOG")"$'\n'"curl's:"$'\n'"$CURL_LOG"
}

# way_args WAY: sets ARGS to the options that give credentials the way WAY names
# (userinfo: none, the URL carries them).
WAYS=(user bearer authorization_header cookie_header userinfo netrc)
way_args() {
  case $1 in
    user) ARGS=(-u user:secret) ;;
    bearer) ARGS=(--oauth2-bearer token) ;;
    authorization_header) ARGS=(-H "Authorization: Bearer token") ;;
    cookie_header) ARGS=(-H "Cookie: session=1") ;;
    userinfo) ARGS=() ;;
    netrc)
      printf 'machine 127.0.0.1 login user password secret\n' > "$SCRATCH/netrc"
      ARGS=(--netrc-file "$SCRATCH/netrc")
      ;;
  esac
}

# redirect_drops_every_way HOST PORT: for each way, the first request (to 127.0.0.1:A)
# brings the credentials and the redirect's target, HOST:PORT, none of them.
redirect_drops_every_way() {
  local host=$1 port=$2 way url first
  for way in "${WAYS[@]}"; do
    way_args "$way"
    first="/to?url=http://$host:$port/land"
    url="http://127.0.0.1:$A$first"
    [ "$way" = userinfo ] && url="http://user:secret@127.0.0.1:$A$first"
    run_both -L --resolve "$host:$port:127.0.0.1" "${ARGS[@]}" "$url"
    expect_code 0
    seen "$A" "$first" | grep -q -v 'authorization=- cookie=- ' \
      || fail "$way: the first request brought no credential; the peer saw:"$'\n'"$(cat "$LOG")"
    expect_bare "$port" /land
    # curl 7.88 reads the netrc file again for each hop, and its entry names a host,
    # not an origin: curl sends 127.0.0.1's login to another port of 127.0.0.1.
    # sluice reads it once, for the URL given.
    [ "$way" = netrc ] && [ "$host" = 127.0.0.1 ] && continue
    expect_curl_alike
  done
}

case_credentials_stay_behind_on_a_redirect_to_another_host() {
  start_peer
  # Same port, same scheme: only the name differs.
  redirect_drops_every_way other.test "$A"
}

case_credentials_stay_behind_on_a_redirect_to_another_port() {
  start_peer
  redirect_drops_every_way 127.0.0.1 "$B"
}

case_location_trusted_takes_them_to_the_next_origin() {
  start_peer
  run_both --location-trusted -u user:secret -H "Cookie: session=1" \
    "http://127.0.0.1:$A/to?url=http://127.0.0.1:$B/land"
  expect_code 0
  expect_carried "$B" /land "authorization=Basic dXNlcjpzZWNyZXQ= cookie=session=1"
  expect_curl_alike
}

# The downloader asks the redirect's target for each range: none of them carries the
# credentials given for the URL's origin.
case_split_download_sends_no_credentials_to_another_origins_ranges() {
  start_peer
  run_sluice --split 4 -L -u user:secret -H "Cookie: session=1" -o "$SCRATCH/f.bin" \
    "http://127.0.0.1:$A/to?url=http://127.0.0.1:$B/file.bin"
  expect_code 0
  expect_ranges "$B" /file.bin
  expect_bare "$B" /file.bin
}

# --location-trusted is asked for the whole download: every range brings them (the
# target wants them, and answers 401 otherwise).
case_split_download_with_location_trusted_sends_them_to_every_range() {
  start_peer
  run_sluice --split 4 -L --location-trusted -u user:secret -o "$SCRATCH/f.bin" \
    "http://127.0.0.1:$A/to?url=http://127.0.0.1:$B/auth/file.bin"
  expect_code 0
  expect_ranges "$B" /auth/file.bin
  expect_carried "$B" /auth/file.bin "authorization=Basic dXNlcjpzZWNyZXQ="
}

# The URL's own user:password go with every range to the URL's origin.
case_split_download_keeps_the_urls_credentials_for_its_ranges() {
  start_peer
  run_sluice --split 4 -o "$SCRATCH/f.bin" "http://user:secret@127.0.0.1:$A/auth/file.bin"
  expect_code 0
  expect_ranges "$A" /auth/file.bin
  expect_carried "$A" /auth/file.bin "authorization=Basic dXNlcjpzZWNyZXQ="
}

# Which of them go is decided for each range as for the first request: -u wins over
# the URL's user:password; with --netrc-file the URL's password is ignored and the
# file's entry for its user is used.
case_split_download_ranges_weigh_the_urls_credentials_as_the_first_request() {
  start_peer
  run_sluice --split 4 -u user:secret -o "$SCRATCH/f.bin" \
    "http://user:wrong@127.0.0.1:$A/auth/file.bin"
  expect_code 0
  expect_ranges "$A" /auth/file.bin
  expect_carried "$A" /auth/file.bin "authorization=Basic dXNlcjpzZWNyZXQ="
  : > "$LOG"
  printf 'machine 127.0.0.1 login user password secret\n' > "$SCRATCH/netrc"
  run_sluice --split 4 --netrc-file "$SCRATCH/netrc" -o "$SCRATCH/f.bin" \
    "http://user:wrong@127.0.0.1:$A/auth/file.bin"
  expect_code 0
  expect_ranges "$A" /auth/file.bin
  expect_carried "$A" /auth/file.bin "authorization=Basic dXNlcjpzZWNyZXQ="
}

# A mirror on another origin (another port) gets none of the URL's credentials; one
# on the URL's origin gets them.
case_mirror_on_another_origin_gets_no_credentials() {
  start_peer
  run_sluice --split 4 -u user:secret -H "Cookie: session=1" -o "$SCRATCH/f.bin" \
    --mirror "http://127.0.0.1:$B/file.bin" "http://127.0.0.1:$A/file.bin"
  expect_code 0
  expect_carried "$A" /file.bin "authorization=Basic dXNlcjpzZWNyZXQ= cookie=session=1"
  expect_bare "$B" /file.bin
}

# The messages and the progress line name the URL without the password it carries
# (a terminal's scrollback and a CI log keep them).
case_a_download_never_shows_the_urls_password() {
  start_peer
  run_sluice --split 2 -o "$SCRATCH/f.bin" "http://user:wrong-secret@127.0.0.1:$A/auth/file.bin"
  expect_code 22
  grep -q "127.0.0.1:$A/auth/file.bin" "$ERR" || fail "the message does not name the URL"
  if grep -q wrong-secret "$ERR"; then fail "the password shows: $(cat "$ERR")"; fi
}

# A download that fails keeps its control file for -C -: the URL in it has no
# password (the file sits beside the download, readable by whoever reads that).
case_a_control_file_never_keeps_the_urls_password() {
  start_peer
  run_sluice --split 2 -o "$SCRATCH/f.bin" "http://user:secret@127.0.0.1:$A/cut/file.bin"
  [ "$CODE" -ne 0 ] || fail "the cut download succeeded"
  [ -f "$SCRATCH/f.bin.sluice" ] || fail "no control file was kept: $(ls "$SCRATCH")"
  grep -q "127.0.0.1:$A/cut/file.bin" "$SCRATCH/f.bin.sluice" \
    || fail "the control file does not name the URL: $(cat "$SCRATCH/f.bin.sluice")"
  if grep -q secret "$SCRATCH/f.bin.sluice" "$ERR"; then
    fail "the password shows: $(cat "$SCRATCH/f.bin.sluice" "$ERR")"
  fi
}

# A CR or LF in --proxy-user is refused before anything connects (SOCKS5 would carry
# it as it is), as -u refuses one; the peer, the proxy named, hears nothing.
case_proxy_user_with_a_line_break_is_refused() {
  start_peer
  run_sluice --proxy-user $'user:pa\r\nX-Injected: 1' -x "http://127.0.0.1:$A" \
    "http://127.0.0.1:$B/plain/file.bin"
  expect_code 2
  grep -q -- "--proxy-user" "$ERR" || fail "the message does not name --proxy-user: $(cat "$ERR")"
  [ ! -s "$LOG" ] || fail "the peer heard a request: $(cat "$LOG")"
}

run_case "$2"
