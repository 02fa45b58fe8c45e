#!/usr/bin/env bash
# `sluice` authentication options against the real servers: --digest and --anyauth
# (lighttpd's Digest, nginx's Basic), -n, --netrc-file and --netrc-optional.
# Usage: cli_auth.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
SLUICE=$1
. "$(dirname "$0")/lib.sh"
load_servers
HTTP=$SLUICE_NGINX_HTTP_URL
LIGHTTPD=$SLUICE_LIGHTTPD_URL
DIGEST_USER=$SLUICE_DIGEST_USER:$SLUICE_DIGEST_PASSWORD

case_digest_user_opens_md5_and_sha256() {
  local path
  for path in digest-md5 digest-sha256 digest-both; do
    run_sluice -o "$SCRATCH/small.txt" -w '%{http_code}' --digest -u "$DIGEST_USER" \
      "$LIGHTTPD/$path/small.txt"
    expect_code 0
    expect_stdout "200"
    [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "$path: the body differs"
  done
  # The option's place does not matter.
  run_sluice -o /dev/null -w '%{http_code}' -u "$DIGEST_USER" --digest "$LIGHTTPD/digest-md5/small.txt"
  expect_stdout "200"
  # Basic credentials do not open a Digest location; a wrong password gets the 401.
  run_sluice -o /dev/null -w '%{http_code}' -u "$DIGEST_USER" "$LIGHTTPD/digest-md5/small.txt"
  expect_stdout "401"
  run_sluice -o /dev/null -w '%{http_code}' --digest -u "$SLUICE_DIGEST_USER:wrong" \
    "$LIGHTTPD/digest-sha256/small.txt"
  expect_code 0
  expect_stdout "401"
  run_sluice -f -o /dev/null --digest -u "$SLUICE_DIGEST_USER:wrong" "$LIGHTTPD/digest-sha256/small.txt"
  expect_code 22
}

case_anyauth_answers_digest_or_basic() {
  run_sluice -v -o /dev/null -w '%{http_code}' --anyauth -u "$DIGEST_USER" "$LIGHTTPD/digest-both/small.txt"
  expect_code 0
  expect_stdout "200"
  grep -q "auth: 401 from .*, sending again with Digest SHA-256" "$ERR" \
    || fail "--anyauth did not answer lighttpd with Digest SHA-256"
  run_sluice -v -o /dev/null -w '%{http_code}' --anyauth -u "$SLUICE_AUTH_USER:$SLUICE_AUTH_PASSWORD" \
    "$HTTP/auth/small.txt"
  expect_code 0
  expect_stdout "200"
  grep -q "auth: 401 from .*, sending again with Basic" "$ERR" \
    || fail "--anyauth did not answer nginx with Basic"
  # --basic after --anyauth: Basic straight away, no 401 round trip.
  run_sluice -v -o /dev/null -w '%{http_code}' --anyauth --basic \
    -u "$SLUICE_AUTH_USER:$SLUICE_AUTH_PASSWORD" "$HTTP/auth/small.txt"
  expect_stdout "200"
  if grep -q "auth: 401" "$ERR"; then fail "--basic still waited for a 401"; fi
}

case_netrc_file_supplies_the_credentials() {
  printf 'machine 127.0.0.1\n  login %s\n  password "%s"\n' \
    "$SLUICE_AUTH_USER" "$SLUICE_AUTH_PASSWORD" > "$SCRATCH/netrc"
  run_sluice -o "$SCRATCH/small.txt" -w '%{http_code}' --netrc-file "$SCRATCH/netrc" "$HTTP/auth/small.txt"
  expect_code 0
  expect_stdout "200"
  [ "$(sha_of "$SCRATCH/small.txt")" = "$(expected_sha small.txt)" ] || fail "the body differs"
  # -n reads $HOME/.netrc.
  cp "$SCRATCH/netrc" "$SCRATCH/.netrc"
  HOME=$SCRATCH run_sluice -o /dev/null -w '%{http_code}' -n "$HTTP/auth/small.txt"
  expect_stdout "200"
  # -u wins over the file.
  run_sluice -o /dev/null -w '%{http_code}' --netrc-file "$SCRATCH/netrc" -u "$SLUICE_AUTH_USER:wrong" \
    "$HTTP/auth/small.txt"
  expect_stdout "401"
  # With --digest the file's credentials answer Digest.
  printf 'default login %s password %s\n' "$SLUICE_DIGEST_USER" "$SLUICE_DIGEST_PASSWORD" \
    > "$SCRATCH/netrc-digest"
  run_sluice -o /dev/null -w '%{http_code}' --digest --netrc-file "$SCRATCH/netrc-digest" \
    "$LIGHTTPD/digest-sha256/small.txt"
  expect_code 0
  expect_stdout "200"
}

case_netrc_file_errors_name_the_file() {
  run_sluice -o /dev/null --netrc-file "$SCRATCH/missing" "$HTTP/auth/small.txt"
  expect_code 2
  expect_one_error "netrc: cannot read $SCRATCH/missing"
  # --netrc-optional: a missing file is no error, the request goes without.
  run_sluice -o /dev/null -w '%{http_code}' --netrc-optional --netrc-file "$SCRATCH/missing" \
    "$HTTP/auth/small.txt"
  expect_code 0
  expect_stdout "401"
  printf 'machine 127.0.0.1\nlogin\n' > "$SCRATCH/broken"
  run_sluice -o /dev/null --netrc-file "$SCRATCH/broken" "$HTTP/auth/small.txt"
  expect_code 2
  expect_one_error "netrc: $SCRATCH/broken:2: 'login' needs a value"
}

run_case "$2"
