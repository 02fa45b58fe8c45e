#!/usr/bin/env bash
# `sluice --help [CATEGORY]` beside curl 7.88's: a bare --help shows the important
# options, --help category the categories, --help CATEGORY one of them, --help all
# every option; an unknown category is an error naming it. (That every option has a
# help row is tests/unit/cli/help_rows_test.cpp's work.)
# Usage: cli_help.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# curl_help ARGS...: curl's help, or nothing (with a note) where curl is missing.
curl_help() {
  if ! command -v curl >/dev/null; then
    echo "note: curl is not installed; not compared" >&2
    return 0
  fi
  curl "$@" > "$SCRATCH/curl-help"
}

case_bare_help_shows_the_important_options_and_the_way_to_the_rest() {
  run_sluice --help
  expect_code 0
  expect_no_stderr
  head -n 1 "$OUT" | grep -qx 'Usage: sluice \[options...\] <url>' || fail "no usage line"
  local option
  # The options curl calls important are important here too.
  for option in '-d, --data <data>' '-o, --output <file>' '-O, --remote-name' '-s, --silent' \
      '-u, --user <user:password>' '-v, --verbose' '-V, --version' '--split <num>'; do
    grep -qF -- " $option " "$OUT" || fail "--help does not show '$option'"
  done
  grep -q -- '--tls13-ciphers' "$OUT" && fail "--help shows --tls13-ciphers, which is not important"
  grep -qF -- '"--help all"' "$OUT" || fail "--help does not say how to see every option"
  curl_help --help
  [ ! -f "$SCRATCH/curl-help" ] || [ "$(head -n 1 "$SCRATCH/curl-help")" = 'Usage: curl [options...] <url>' ] \
    || fail "curl's first line changed: $(head -n 1 "$SCRATCH/curl-help")"
}

case_help_category_lists_curls_categories_that_apply() {
  run_sluice --help category
  expect_code 0
  local name
  for name in auth connection curl dns download http output post proxy tls upload verbose; do
    grep -qE "^ $name +[A-Z]" "$OUT" || fail "--help category does not list $name"
  done
  curl_help --help category
  if [ -f "$SCRATCH/curl-help" ]; then
    # Every category sluice shares with curl has curl's description.
    while read -r name description; do
      if grep -qE "^ $name " "$OUT"; then
        grep -qF -- "$description" "$OUT" || [ "$name" = verbose ] \
          || fail "$name: curl says '$description', sluice does not"
      fi
    done < <(tail -n +2 "$SCRATCH/curl-help")
  fi
}

case_help_with_a_category_shows_only_its_options() {
  run_sluice --help tls
  expect_code 0
  sed -n 2p "$OUT" | grep -qx 'tls: All TLS/SSL related options' || fail "no 'tls:' title line"
  grep -qF -- '--cacert <file>' "$OUT" || fail "--help tls does not show --cacert"
  grep -q -- '--output' "$OUT" && fail "--help tls shows --output"
  curl_help --help tls
  [ ! -f "$SCRATCH/curl-help" ] || grep -q -- '--cacert <file>' "$SCRATCH/curl-help" \
    || fail "curl's --help tls has no --cacert <file>"
  run_sluice -h http -s
  expect_code 0
  grep -qF -- '-L, --location' "$OUT" || fail "-h http does not show -L"
}

case_help_all_lists_every_option() {
  run_sluice --help all
  expect_code 0
  local count
  count=$(grep -cE '^ (-., |    )--' "$OUT")
  [ "$count" -ge 100 ] || fail "--help all shows $count options"
  local word
  for word in --http3-only --split --mirror --checksum --json-summary --proxy-insecure \
      --tls-earlydata --write-out --config; do
    grep -qF -- " $word" "$OUT" || fail "--help all does not show $word"
  done
}

case_help_unknown_category_exits_2_naming_it() {
  run_sluice --help nosuch
  expect_code 2
  expect_one_error "'nosuch'"
  [ ! -s "$OUT" ] || fail "something was written to stdout"
}

run_case "$2"
