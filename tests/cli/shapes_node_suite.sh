#!/usr/bin/env bash
# Sweeps the ONNX backend node suite through the CLI: `onyx shapes --inputs test_data_set_0 model.onnx` for
# every case must exit 0 and leave no value unresolved except downstream of a data-dependent op (NonZero,
# Unique...: what the engine's acceptance test accepts too). Prints the counts; exits 77 (skipped) when the
# shared data is absent.
#
# usage: shapes_node_suite.sh ONYX [JOBS]
set -uo pipefail
onyx="$1"
jobs="${2:-2}"
shared="${ONYX_TEST_DATA:-${ONYX_DEFAULT_TEST_DATA:-}}"
root="$shared/onnx-backend-data/node"
if [[ -z "$shared" || ! -d "$root" ]]; then
  echo "SKIPPED: test data not found: $root (set ONYX_TEST_DATA)"
  exit 77
fi

# One case: prints "ok <data-dependent values>" or "FAIL <case>: <why>".
check_case() {
  local onyx="$1" folder="$2" out rc summary unresolved dependent
  out="$("$onyx" shapes --inputs "$folder/test_data_set_0" "$folder/model.onnx" 2>&1)"
  rc=$?
  summary="$(grep -E '^values: ' <<<"$out" | tail -n 1)"
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $(basename "$folder"): exit $rc: $(grep -E '^error' <<<"$out" | head -n 1)"
    return
  fi
  if [[ ! "$summary" =~ unresolved:\ ([0-9]+)\ \(data-dependent:\ ([0-9]+)\) ]]; then
    echo "FAIL $(basename "$folder"): no summary line"
    return
  fi
  unresolved="${BASH_REMATCH[1]}"
  dependent="${BASH_REMATCH[2]}"
  if [[ $unresolved -ne $dependent ]]; then
    echo "FAIL $(basename "$folder"): $summary"
    return
  fi
  echo "ok $dependent"
}
export -f check_case

start=$(date +%s%N)
results="$(find "$root" -mindepth 2 -maxdepth 2 -name test_data_set_0 -type d -printf '%h\n' | sort |
  xargs -P "$jobs" -I{} bash -c 'check_case "$1" "$2"' _ "$onyx" {})"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
total=$(grep -c . <<<"$results")
passed=$(grep -c '^ok ' <<<"$results")
with_dependent=$(grep -cE '^ok [1-9]' <<<"$results")
grep '^FAIL ' <<<"$results" | sort | head -n 50
printf 'node suite through `onyx shapes --inputs`: %d of %d cases exit 0 with no unresolved value (%d with values downstream of data-dependent ops only), %d.%d s with %d jobs\n' \
  "$passed" "$total" "$with_dependent" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100)) "$jobs"
[[ $total -gt 0 && $passed -eq $total ]]
