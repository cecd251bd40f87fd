#!/usr/bin/env bash
# Runs one case of the malformed-model corpus (cases.txt) and checks that onyx exits 1 with exactly the
# expected `error:` line on stderr: no crash (a signal), no hang (60 s), no exit 0, no other message.
#
# usage: check_case.sh CASES.txt NAME ONYX SAMPLE_MODEL   (run in the folder holding the corpus models)
# In COMMAND and EXPECTED, @M@ stands for NAME.onnx, @IN@ for NAME.inputs and @SAMPLE@ for SAMPLE_MODEL;
# the word `onyx` in COMMAND runs ONYX. COMMAND is split as the shell would (quotes allowed).
set -uo pipefail
manifest="$1" name="$2" onyx="$3" sample="$4"

line="$(awk -v prefix="$name | " 'index($0, prefix) == 1 { print; exit }' "$manifest")"
[[ -n "$line" ]] || { echo "FAIL: no case '$name' in $manifest"; exit 1; }
rest="${line#* | }"      # MODEL | COMMAND | EXPECTED
rest="${rest#* | }"      # COMMAND | EXPECTED
command_text="${rest%% | *}"
expected="${rest#* | }"

substitute() {
  local text="$1"
  text="${text//@M@/$name.onnx}"
  text="${text//@IN@/$name.inputs}"
  text="${text//@SAMPLE@/$sample}"
  printf '%s' "$text"
}
eval "words=( $command_text )"
command=()
for word in "${words[@]}"; do
  if [[ "$word" == onyx ]]; then command+=("$onyx"); else command+=("$(substitute "$word")"); fi
done
expected="$(substitute "$expected")"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
timeout 60 "${command[@]}" >"$scratch/stdout" 2>"$scratch/stderr"
rc=$?
failed=0
if [[ $rc == 124 ]]; then
  echo "FAIL: hang (killed after 60 s): ${command[*]}"
  failed=1
elif [[ $rc -gt 128 ]]; then
  echo "FAIL: crash (signal $((rc - 128))): ${command[*]}"
  failed=1
elif [[ $rc != 1 ]]; then
  echo "FAIL: exit code $rc, expected 1: ${command[*]}"
  failed=1
fi
if ! diff -u --label expected-stderr --label actual-stderr <(printf '%s\n' "$expected") "$scratch/stderr"; then
  echo "FAIL: stderr is not exactly the expected error line"
  failed=1
fi
[[ $failed == 0 ]] && echo "ok: ${command[*]}"
exit $failed
