#!/usr/bin/env bash
# Runs a command and checks its exit code, stdout and stderr exactly: output it is not told to expect must
# be empty. Exits 77 (ctest's SKIP_RETURN_CODE) when shared test data it needs is absent.
#
# usage: expect.sh [--needs-shared REL] [--stdout FILE] [--stdout-lines REGEX FILE] [--stderr FILE]
#                  [--stderr-contains TEXT] RC -- CMD...
# --stdout-lines compares only the stdout lines matching the extended REGEX with FILE (for outputs too long to
# keep whole, such as a big model's table).
# In CMD, @SHARED@ stands for the shared data folder: $ONYX_TEST_DATA, else $ONYX_DEFAULT_TEST_DATA.
set -uo pipefail

shared="${ONYX_TEST_DATA:-${ONYX_DEFAULT_TEST_DATA:-}}"
expected_stdout=/dev/null
expected_stderr=/dev/null
stderr_contains=""
stdout_regex=""
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --needs-shared)
      if [[ -z "$shared" || ! -e "$shared/$2" ]]; then
        echo "SKIPPED: test data not found: $shared/$2 (set ONYX_TEST_DATA)"
        exit 77
      fi
      shift 2 ;;
    --stdout) expected_stdout="$2"; shift 2 ;;
    --stdout-lines) stdout_regex="$2"; expected_stdout="$3"; shift 3 ;;
    --stderr) expected_stderr="$2"; shift 2 ;;
    --stderr-contains) stderr_contains="$2"; expected_stderr=""; shift 2 ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
expected_rc="$1"
[[ "$2" == "--" ]] || { echo "expect.sh: expected -- before the command" >&2; exit 2; }
shift 2
command=()
for arg in "$@"; do command+=("${arg//@SHARED@/$shared}"); done

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"${command[@]}" >"$scratch/stdout" 2>"$scratch/stderr"
rc=$?

if [[ -n "$stdout_regex" ]]; then
  grep -E -- "$stdout_regex" "$scratch/stdout" >"$scratch/stdout.lines"
  mv "$scratch/stdout.lines" "$scratch/stdout"
fi

failed=0
if [[ "$rc" != "$expected_rc" ]]; then
  echo "FAIL: exit code $rc, expected $expected_rc: ${command[*]}"
  failed=1
fi
if ! diff -u --label expected-stdout --label actual-stdout "$expected_stdout" "$scratch/stdout"; then
  echo "FAIL: stdout differs from $expected_stdout"
  failed=1
fi
if [[ -n "$expected_stderr" ]]; then
  if ! diff -u --label expected-stderr --label actual-stderr "$expected_stderr" "$scratch/stderr"; then
    echo "FAIL: stderr differs from $expected_stderr"
    failed=1
  fi
elif ! grep -qF -- "$stderr_contains" "$scratch/stderr"; then
  echo "FAIL: stderr does not contain '$stderr_contains':"
  cat "$scratch/stderr"
  failed=1
fi
[[ $failed == 0 ]] && echo "ok: ${command[*]}"
exit $failed
