#!/usr/bin/env bash
# bench/ort_bench.sh on one small shared model with one iteration: the table has a column per Onyx ISA,
# ONNX Runtime and a ratio per ISA for each thread count and load, every cell filled, and the background
# busy loop is gone afterwards. Exits 77 (skipped) without node, onnxruntime-node or the shared models.
# usage: ort_bench_run.sh ORT_BENCH_SH ONYX SHARED
set -uo pipefail
script="$1" onyx="$2" shared="${3:-}"
cache="${ONYX_BENCH_CACHE:-$HOME/.cache/onyx-ort-bench}"
model="$shared/models/squeezenet1_1"
command -v node >/dev/null || { echo "SKIPPED: node not installed"; exit 77; }
[[ -d "$cache/node_modules/onnxruntime-node" ]] || { echo "SKIPPED: no onnxruntime-node in $cache"; exit 77; }
[[ -f "$model/model.onnx" ]] || { echo "SKIPPED: test data not found: $model (set ONYX_TEST_DATA)"; exit 77; }
# An unusual time limit tells this run's busy loop from any other.
seconds=4711
out=$(THREADS=1,2 ISA=native,avx2 LOAD=0,1 LOAD_SECONDS=$seconds ROUNDS=1 WARMUP=0 ITERATIONS=1 \
      sh "$script" "$onyx" "$shared/models" squeezenet1_1) || { echo "FAIL: ort_bench.sh exited $?"; exit 1; }
echo "$out"
failed=0
header=$(echo "$out" | sed -n 1p)
expected_header="model onyx@1t avx2@1t ort@1t ratio r.avx2 onyx@1t+load avx2@1t+load ort@1t+load ratio r.avx2"
expected_header="$expected_header onyx@2t avx2@2t ort@2t ratio r.avx2"
expected_header="$expected_header onyx@2t+load avx2@2t+load ort@2t+load ratio r.avx2"
[[ "$(echo $header)" == "$expected_header" ]] || { echo "FAIL: header '$header'"; failed=1; }
row=$(echo "$out" | sed -n 2p)
[[ "$(echo "$out" | wc -l)" == 2 ]] || { echo "FAIL: expected a header and one row"; failed=1; }
# squeezenet1_1, then per group: 3 times (2 Onyx ISAs, ORT) and 2 ratios.
cell='[0-9]+(\.[0-9]+)?'
group=" +$cell +$cell +$cell +${cell}x +${cell}x"
[[ "$row" =~ ^squeezenet1_1($group){4}$ ]] || { echo "FAIL: row '$row' lacks a figure"; failed=1; }
if ps -eo args | grep -v grep | grep -q "timeout $seconds sh -c"; then
  echo "FAIL: the background load outlived the script"; failed=1
fi
exit $failed
