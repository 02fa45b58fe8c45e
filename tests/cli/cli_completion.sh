#!/usr/bin/env bash
# The shell completions `sluice --completion SHELL` writes (what the build installs as
# share/bash-completion/completions/sluice and share/zsh/vendor-completions/_sluice),
# used the way a shell uses them: the bash script is sourced in bash and its function
# asked to complete words, as bash does on Tab.
# Usage: cli_completion.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# complete_words WORD...: the completions bash would offer for the last WORD of
# "sluice WORD...", one a line, in a bash that sourced only the generated script.
complete_words() {
  bash --norc --noprofile -c '
    . "$1"
    shift
    COMP_WORDS=(sluice "$@")
    COMP_CWORD=$#
    _sluice
    printf "%s\n" "${COMPREPLY[@]}"' complete "$SCRATCH/sluice.bash" "$@"
}
"$SLUICE" --completion bash > "$SCRATCH/sluice.bash" || fail "--completion bash failed"

case_bash_completes_an_option_prefix() {
  local got
  got=$(complete_words --lim) || fail "the completion function failed"
  [ "$got" = $'--limit-rate\n--limit-rate-total' ] \
    || fail "--lim completed to '$got', expected --limit-rate and --limit-rate-total"
  got=$(complete_words --limit-rate-t)
  [ "$got" = --limit-rate-total ] || fail "--limit-rate-t completed to '$got'"
  got=$(complete_words -s --retry-a)
  [ "$got" = --retry-all-errors ] || fail "--retry-a completed to '$got'"
}

case_bash_completes_files_after_a_file_option() {
  mkdir -p "$SCRATCH/dir"
  : > "$SCRATCH/dir/report.txt"
  : > "$SCRATCH/dir/other.bin"
  local got
  got=$(cd "$SCRATCH/dir" && complete_words -o rep)
  [ "$got" = report.txt ] || fail "-o rep completed to '$got', expected report.txt"
  got=$(cd "$SCRATCH/dir" && complete_words --output-dir "")
  grep -qx report.txt <<<"$got" && grep -qx other.bin <<<"$got" \
    || fail "--output-dir offered '$got', expected the directory's entries"
}

case_bash_offers_no_files_for_a_value_that_is_not_a_path() {
  : > "$SCRATCH/GET-file"
  : > "$SCRATCH/Host-file"
  local got
  got=$(cd "$SCRATCH" && complete_words -X G)
  [ -z "$got" ] || fail "-X G completed to '$got', expected nothing (a method is no file)"
  got=$(cd "$SCRATCH" && complete_words -H Ho)
  [ -z "$got" ] || fail "-H Ho completed to '$got', expected nothing (a header is no file)"
  got=$(cd "$SCRATCH" && complete_words --split "")
  [ -z "$got" ] || fail "--split offered '$got', expected nothing"
}

case_bash_completes_help_categories() {
  local got
  got=$(complete_words --help ht)
  [ "$got" = http ] || fail "--help ht completed to '$got', expected http"
}

case_zsh_script_defines_every_option() {
  run_sluice --completion zsh
  expect_code 0
  head -n 1 "$OUT" | grep -qx '#compdef sluice' || fail "no #compdef line"
  grep -qF -- "'*'{'-o+','--output='}'[Write to file instead of stdout]:file:_files'" "$OUT" \
    || fail "no file-completing spec for -o/--output"
  grep -qF -- "'*--split=[" "$OUT" || fail "no spec for --split"
  if command -v zsh >/dev/null; then
    zsh -n "$OUT" || fail "zsh does not parse the script"
  fi
}

case_unknown_shell_exits_2_naming_it() {
  run_sluice --completion fish
  expect_code 2
  expect_one_error "'fish'"
}

run_case "$2"
