#!/usr/bin/env bash
# ctest cli.man_page_lint: man/sluice.1 formats without a single groff warning (all
# warnings on: an unknown macro or escape, a misplaced request, a line that cannot be
# broken). groff exits 0 after warning, so any text on stderr fails the check.
# Usage: check_man_page.sh GROFF PAGE
#        check_man_page.sh GROFF --self-test   (shows that a warning fails the check)
set -euo pipefail

groff=$1

# check PAGE: prints groff's warnings and returns 1 if there are any.
check() {
  local warnings status=0
  warnings=$("$groff" -man -ww -z -Tutf8 "$1" 2>&1 >/dev/null) || status=$?
  if [ -n "$warnings" ] || [ "$status" -ne 0 ]; then
    echo "check_man_page: $1: groff -man -ww exited $status and warned:"
    echo "$warnings"
    return 1
  fi
}

if [ "${2:-}" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  # Formats, but .XY is no macro: groff warns and exits 0.
  printf '.TH T 1\n.SH NAME\nt \\- test\n.XY\n' >"$scratch/bad.1"
  if check "$scratch/bad.1" >/dev/null; then
    echo "check_man_page: a page with an unknown macro passed"
    exit 1
  fi
  exit 0
fi

check "$2"
