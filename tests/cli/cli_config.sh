#!/usr/bin/env bash
# Config files: -K FILE (and -K - for stdin) and the default file
# ($XDG_CONFIG_HOME/sluice/config, else ~/.config/sluice/config) that -q as the first
# argument skips. A config file is compared with real curl -K of the same file: the
# same request, the same stored body and output. A line that does not parse exits 2
# naming the file and the line, and nothing is sent or written. The nginx cases need
# the real_servers fixture; the others none.
# Usage: cli_config.sh SLUICE_BINARY CASE   (SLUICE_TEST_ENV_FILE names the env file)
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

# write_config FILE NAME: a config using every piece of the syntax, which PUTs a
# form body to nginx's /upload/NAME.txt and writes the answer to $SCRATCH/NAME.out.
write_config() {
  cat > "$1" <<CONFIG
# Comments, blank lines and indentation are ignored.

url = "$HTTP/upload/$2.txt"
  request: PUT
header = "X-Note: two words"
-H "X-Escapes: \\"quoted\\" back\\\\slash"
data = "a=1 b"   # a quoted value, then a comment
-d second=2
output "$SCRATCH/$2.out"
--write-out "%{http_code} %{method}\\n"
silent
CONFIG
}

# The request lines of -v ("> ..."), without User-Agent and with NAME made neutral;
# curl also shows the empty line that ends the head, which sluice leaves out.
request_lines() {
  tr -d '\r' < "$1" | grep '^> .' | grep -vi '^> User-Agent:' | sed "s|$2|NAME|" | sort
}

case_config_file_makes_the_request_curl_makes() {
  use_nginx
  local name=cfg-sluice-$$
  write_config "$SCRATCH/sluice.cfg" "$name"
  run_sluice -v -K "$SCRATCH/sluice.cfg"
  expect_code 0
  local code
  code=$(cat "$OUT")
  [ "$code" = "201 PUT" ] || [ "$code" = "204 PUT" ] || fail "-w wrote '$code'"
  [ -f "$SCRATCH/$name.out" ] || fail "output = FILE wrote no file"
  grep -qxF "> X-Note: two words" <(tr -d '\r' < "$ERR") || fail "the quoted header was not sent"
  grep -qxF '> X-Escapes: "quoted" back\slash' <(tr -d '\r' < "$ERR") \
    || fail "the escapes were not undone"
  request_lines "$ERR" "$name" > "$SCRATCH/sluice.request"
  run_sluice "$HTTP/upload/$name.txt"
  expect_code 0
  expect_stdout "a=1 b&second=2"
  have_curl || return 0

  local curl_name=cfg-curl-$$
  write_config "$SCRATCH/curl.cfg" "$curl_name"
  echo "+ curl -q -v -K $SCRATCH/curl.cfg" >&2
  curl -q -v -K "$SCRATCH/curl.cfg" > "$SCRATCH/curl.stdout" 2> "$SCRATCH/curl.stderr" \
    || fail "curl -K failed: $(head -c 300 "$SCRATCH/curl.stderr")"
  [ "$(cat "$SCRATCH/curl.stdout")" = "$code" ] \
    || fail "curl wrote '$(cat "$SCRATCH/curl.stdout")', sluice '$code'"
  cmp -s "$SCRATCH/$curl_name.out" "$SCRATCH/$name.out" || fail "the output files differ"
  request_lines "$SCRATCH/curl.stderr" "$curl_name" > "$SCRATCH/curl.request"
  diff "$SCRATCH/curl.request" "$SCRATCH/sluice.request" >&2 \
    || fail "curl and sluice sent different requests (diff above)"
  run_sluice "$HTTP/upload/$curl_name.txt"
  expect_stdout "a=1 b&second=2"
}

case_bad_line_exits_2_naming_the_file_and_line_and_sends_nothing() {
  use_nginx
  local name=cfg-bad-$$
  printf 'url = %s\nrequest = PUT\ndata = x\noutput = %s\nheader = X-A: b\n' \
    "$HTTP/upload/$name.txt" "$SCRATCH/bad.out" > "$SCRATCH/bad.cfg"
  run_sluice -K "$SCRATCH/bad.cfg"
  expect_code 2
  expect_one_error "$SCRATCH/bad.cfg:5: "
  [ ! -e "$SCRATCH/bad.out" ] || fail "a file was written"
  [ ! -s "$OUT" ] || fail "something was written to stdout"
  run_sluice -s -o /dev/null -w '%{http_code}' "$HTTP/upload/$name.txt"
  expect_stdout 404
  # An unknown option and a value given to a flag are errors of their line too.
  printf 'silent\n\nno-such-option = 1\n' > "$SCRATCH/unknown.cfg"
  run_sluice -K "$SCRATCH/unknown.cfg" "$HTTP/small.txt"
  expect_code 2
  expect_one_error "$SCRATCH/unknown.cfg:3: unknown option '--no-such-option'"
  printf 'silent yes\n' > "$SCRATCH/flag.cfg"
  run_sluice -K "$SCRATCH/flag.cfg" "$HTTP/small.txt"
  expect_code 2
  expect_one_error "$SCRATCH/flag.cfg:1: '--silent' takes no value"
}

case_config_from_stdin() {
  use_nginx
  printf 'url = "%s"\n' "$HTTP/small.txt" > "$SCRATCH/stdin.cfg"
  echo "+ sluice -K - < stdin.cfg" >&2
  "$SLUICE" -K - < "$SCRATCH/stdin.cfg" > "$OUT" 2> "$ERR"
  CODE=$?
  expect_code 0
  cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "-K - did not fetch the URL it read"
  printf 'header = "open\n' > "$SCRATCH/stdin.cfg"
  "$SLUICE" -K - "$HTTP/small.txt" < "$SCRATCH/stdin.cfg" > "$OUT" 2> "$ERR"
  CODE=$?
  expect_code 2
  expect_one_error "<stdin>:1: "
}

case_default_file_is_read_first_and_q_skips_it() {
  use_nginx
  mkdir -p "$XDG_CONFIG_HOME/sluice"
  printf '# the default\noutput = "%s"\n' "$SCRATCH/default.out" > "$XDG_CONFIG_HOME/sluice/config"
  run_sluice "$HTTP/small.txt"
  expect_code 0
  [ ! -s "$OUT" ] || fail "the default file's output = was not used"
  cmp -s "$SCRATCH/default.out" "$SLUICE_FILES_DIR/small.txt" || fail "default.out differs"
  rm -f "$SCRATCH/default.out"
  local disable
  for disable in -q --disable; do
    run_sluice "$disable" "$HTTP/small.txt"
    expect_code 0
    cmp -s "$OUT" "$SLUICE_FILES_DIR/small.txt" || fail "$disable: the body is not on stdout"
    [ ! -e "$SCRATCH/default.out" ] || fail "$disable did not skip the default file"
  done
  # Without XDG_CONFIG_HOME it is ~/.config/sluice/config.
  mkdir -p "$SCRATCH/home/.config/sluice"
  printf 'output = "%s"\n' "$SCRATCH/home.out" > "$SCRATCH/home/.config/sluice/config"
  echo "+ HOME=$SCRATCH/home XDG_CONFIG_HOME= sluice $HTTP/small.txt" >&2
  HOME=$SCRATCH/home XDG_CONFIG_HOME='' "$SLUICE" "$HTTP/small.txt" > "$OUT" 2> "$ERR"
  CODE=$?
  expect_code 0
  cmp -s "$SCRATCH/home.out" "$SLUICE_FILES_DIR/small.txt" || fail "~/.config/sluice/config unused"
  # A default file that does not parse stops the run; -q still gets past it.
  printf 'silent\nheader = X-A: b\n' > "$XDG_CONFIG_HOME/sluice/config"
  run_sluice "$HTTP/small.txt"
  expect_code 2
  expect_one_error "$XDG_CONFIG_HOME/sluice/config:2: "
  run_sluice -q "$HTTP/small.txt"
  expect_code 0
}

case_unreadable_config_exits_26_as_in_curl() {
  run_sluice -K "$SCRATCH/missing.cfg" http://127.0.0.1:9/
  expect_code 26
  expect_one_error "$SCRATCH/missing.cfg"
  expect_curls_code -K "$SCRATCH/missing.cfg" http://127.0.0.1:9/
}

case_help_names_config_and_disable() {
  run_sluice --help curl
  expect_code 0
  local word
  for word in --config --disable sluice/config; do
    grep -qF -- "$word" "$OUT" || fail "--help does not mention $word"
  done
}

run_case "$2"
