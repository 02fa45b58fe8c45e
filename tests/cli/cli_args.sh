#!/usr/bin/env bash
# `sluice` command-line handling that needs no server: option errors, --help,
# --version, and values refused before any connection is made.
# Usage: cli_args.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# Nothing listens here; every case below must fail before connecting anyway.
URL=http://127.0.0.1:9/never-contacted

case_unknown_long_option_exits_2_naming_it() {
  run_sluice --bogus-option "$URL"
  expect_code 2
  expect_one_error "'--bogus-option'"
  expect_stdout ""
}

case_unknown_short_option_in_a_cluster_exits_2_naming_it() {
  run_sluice -sQ "$URL"
  expect_code 2
  expect_one_error "'-Q'"
}

case_missing_url_exits_2_with_usage_hint() {
  run_sluice -L -o "$SCRATCH/out"
  expect_code 2
  expect_one_error "no URL"
  grep -qF -- "--help" "$ERR" || fail "the error does not point to --help"
  [ ! -e "$SCRATCH/out" ] || fail "-o file created without a transfer"
}

# -z with an empty date (or a lone "-") is refused with what to give instead.
case_time_cond_without_a_date_exits_2() {
  run_sluice -z "" "$URL"
  expect_code 2
  expect_one_error "-z/--time-cond: give a date"
  run_sluice -z - "$URL"
  expect_code 2
  expect_one_error "-z/--time-cond: give a date"
}

case_option_without_value_exits_2() {
  run_sluice "$URL" -o
  expect_code 2
  expect_one_error "'-o'"
  run_sluice "$URL" --max-time
  expect_code 2
  expect_one_error "'--max-time'"
}

case_one_output_file_for_two_urls_exits_2() {
  run_sluice -o one.bin "$URL" http://127.0.0.1:9/other
  expect_code 2
  expect_one_error "-o names one file, but 2 URLs were given"
}

case_mirror_for_two_urls_exits_2() {
  run_sluice --mirror http://127.0.0.1:9/m -O "$URL" http://127.0.0.1:9/other
  expect_code 2
  expect_one_error "--mirror names other URLs of one file, but 2 URLs were given"
}

case_download_options_check_their_values() {
  run_sluice --split 17 "$URL"
  expect_code 2
  expect_one_error "--split: '17' is not a number from 1 to 16"
  run_sluice --checksum md5=abc "$URL"
  expect_code 2
  expect_one_error "is not sha256=HEX"
  run_sluice --limit-rate 5X "$URL"
  expect_code 2
  expect_one_error "--limit-rate: '5X' is not a size"
  run_sluice -C 100k "$URL"
  expect_code 2
  expect_one_error "-C: '100k' is neither '-'"
  run_sluice -r 9-1 "$URL"
  expect_code 2
  expect_one_error "-r: '9-1' is not a byte range"
  run_sluice --progress=fancy "$URL"
  expect_code 2
  expect_one_error "is not bar, line, none or auto"
  run_sluice -O -d a=1 "$URL"
  expect_code 2
  expect_one_error "downloads are GET requests"
}

case_version_names_version_protocols_and_features() {
  run_sluice --version
  expect_code 0
  expect_no_stderr
  head -n 1 "$OUT" | grep -q '^sluice 0\.1\.0' || fail "first line is not 'sluice 0.1.0 ...'"
  grep -qx 'Protocols: http https' "$OUT" || fail "no 'Protocols: http https' line"
  grep -q '^Features: .*backpressure' "$OUT" || fail "no 'Features:' line"
  # As curl's first line: every library with the version loaded at run time.
  local library
  for library in libsluice OpenSSL zlib brotli zstd c-ares libidn2 libpsl llhttp nghttp2 \
      ngtcp2 GnuTLS nghttp3; do
    head -n 1 "$OUT" | grep -qE " $library/[0-9]+\.[0-9]+" \
      || fail "the first line does not name $library/VERSION: $(head -n 1 "$OUT")"
  done
  local cares
  cares=$(dpkg-query -W -f '${Version}' libc-ares2 2>/dev/null | sed 's/-.*//')
  [ -z "$cares" ] || head -n 1 "$OUT" | grep -qF " c-ares/$cares" \
    || fail "c-ares is $cares here, --version says otherwise: $(head -n 1 "$OUT")"
  run_sluice -V
  expect_code 0
  head -n 1 "$OUT" | grep -q '^sluice 0\.1\.0' || fail "-V differs from --version"
}

case_help_needs_no_url_even_after_other_options() {
  run_sluice -s -L --help
  expect_code 0
  grep -q '^Usage:' "$OUT" || fail "no usage text"
}

case_header_without_colon_is_refused() {
  run_sluice -H "NoColonHere" "$URL"
  expect_code 2
  expect_one_error "NoColonHere"
  grep -qF "Name: value" "$ERR" || fail "the error does not show the expected form"
}

case_header_with_bad_name_or_value_is_refused() {
  run_sluice -H "Bad Name: x" "$URL"
  expect_code 2
  expect_one_error "Bad Name"
  run_sluice -H $'X-Split: one\rtwo' "$URL"
  expect_code 2
  expect_one_error "X-Split"
}

case_bad_method_is_refused() {
  run_sluice -X "GET /evil" "$URL"
  expect_code 2
  expect_one_error "-X"
}

# As in curl: a warning, and the transfer runs (here it fails to connect, exit 7).
case_unknown_write_out_variable_warns_and_the_transfer_runs() {
  run_sluice -w '%{http_code} %{nope}.' "$URL"
  expect_code 7
  expect_stdout "000 ."
  grep -q "^sluice: warning: -w: unknown variable '%{nope}'$" "$ERR" \
    || fail "no warning naming %{nope}"
  grep -q "^sluice: .*127.0.0.1" "$ERR" || fail "the transfer did not run"
  run_sluice -w 'x %{http_code' "$URL"
  expect_code 2
  expect_one_error "-w"
}

case_bad_numbers_are_refused() {
  run_sluice --connect-timeout abc "$URL"
  expect_code 2
  expect_one_error "--connect-timeout"
  run_sluice -m -1 "$URL"
  expect_code 2
  expect_one_error "-m"
  run_sluice --max-redirs 2x "$URL"
  expect_code 2
  expect_one_error "--max-redirs"
}

case_malformed_url_exits_3() {
  run_sluice -w '%{exitcode} %{http_code}' ftp://example.org/file
  expect_code 3
  expect_one_error "ftp"
  expect_stdout "3 000"
}

case_unreadable_data_file_exits_26() {
  run_sluice -d @"$SCRATCH/missing.txt" "$URL"
  expect_code 26
  expect_one_error "$SCRATCH/missing.txt"
  run_sluice --data-binary @"$SCRATCH/missing.bin" "$URL"
  expect_code 26
  expect_one_error "$SCRATCH/missing.bin"
}

case_streamed_file_cannot_join_other_data() {
  printf 'abc' > "$SCRATCH/body.bin"
  run_sluice --data-binary @"$SCRATCH/body.bin" -d x=1 "$URL"
  expect_code 2
  expect_one_error "cannot be combined"
}

run_case "$2"
