#!/usr/bin/env bash
# Runs the libFuzzer targets that packaging/sanitize.sh builds in build-asan (ONYX_FUZZ=ON, ASan+UBSan):
#   fuzz_load    any bytes -> the loader (and save/reload stability of what loads)
#   fuzz_shapes  any bytes that load -> shape inference, the shape report, inference with symbols bound
#   fuzz_run     any bytes that load -> a CPU run on random inputs, symbols bound to 2, small limits
# one after another (one process at a time), each for SECONDS. The seed corpus is every model.onnx of the
# shared node suite and models (onnx-backend-data), linked from build-asan/fuzz-seeds, never copied into the
# repository; what a target finds new goes to build-asan/tests/fuzz/<target>_corpus, a crash to
# build-asan/tests/fuzz/<target>-crash-*. Prints per target: executions, exec/s, corpus size, crashes.
#   packaging/fuzz.sh [SECONDS] [TARGET...]     (default 600 s each, all three; ONYX_TEST_DATA;
#                                               FUZZ_MAX_LEN, default 8192 bytes: the node suite's models are
#                                               far smaller, and longer inputs cost throughput)
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-600}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_load fuzz_shapes fuzz_run)
data="${ONYX_TEST_DATA:-$(cd .. && pwd)/shared}"
dir=build-asan/tests/fuzz
seeds=build-asan/fuzz-seeds
export ASAN_OPTIONS="detect_leaks=1:exitcode=66"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

mkdir -p "$seeds"
find "$data/onnx-backend-data" -name model.onnx | while read -r model; do
  relative="${model#"$data"/onnx-backend-data/}"
  ln -sfn "$model" "$seeds/${relative//\//_}"
done
echo "seed corpus: $(find "$seeds" -maxdepth 1 -type l | wc -l) models from $data/onnx-backend-data"

status=0
summary=()
for target in "${targets[@]}"; do
  [ -x "$dir/$target" ] || { echo "$dir/$target is not built: run packaging/sanitize.sh asan" >&2; exit 2; }
  mkdir -p "$dir/${target}_corpus"
  log="$dir/$target.log"
  echo "== $target for $seconds s (log $log)"
  nice "$dir/$target" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-8192}" -rss_limit_mb=2048 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$dir/$target-" "$dir/${target}_corpus" "$seeds" >"$log" 2>&1
  result=$?
  runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
  rate=$(grep -E "^stat::average_exec_per_sec" "$log" | awk '{print $2}')
  corpus=$(find "$dir/${target}_corpus" -type f | wc -l)
  summary+=("$target: ${runs:-?} executions, ${rate:-?} exec/s, corpus $corpus files, exit $result")
  if [ $result -ne 0 ]; then
    status=1
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -n 5
  fi
done

echo
echo "== fuzz summary"
for line in "${summary[@]}"; do echo "  $line"; done
exit $status
