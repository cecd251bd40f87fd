#!/bin/sh
# Onyx vs ONNX Runtime on every shared model, in the same run: batch 1 (test_data_set_0), 2 threads each,
# ORT with graph optimization "all". Prints median latencies and the ratio Onyx / ORT (lower is better).
# Usage: bench/ort_bench.sh [ONYX_BINARY] [MODELS_DIR]
#   ONYX_BENCH_CACHE: where onnxruntime-node is installed (default ~/.cache/onyx-ort-bench)
#   WARMUP, ITERATIONS: per round and runtime (3, 20); ROUNDS: alternating rounds per model (3)
set -eu
ONYX=${1:-build/app/onyx}
MODELS=${2:-$(dirname "$0")/../../shared/models}
CACHE=${ONYX_BENCH_CACHE:-$HOME/.cache/onyx-ort-bench}
WARMUP=${WARMUP:-3}
ITERATIONS=${ITERATIONS:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
# oneDNN and our kernels share OpenMP threads. Workers that sleep between parallel regions (passive waiting)
# pay a futex wake-up per region, which doubled to tripled the latency of models made of many small ops
# (shufflenet 6.5 ms passive, 2.0 ms spinning); unbounded spinning starves descheduled peers on a busy
# machine. A bounded spin (GOMP_SPINCOUNT, in spin iterations, then sleep) keeps both.
export GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-100000}

if [ ! -d "$CACHE/node_modules/onnxruntime-node" ]; then
  mkdir -p "$CACHE"
  # Without the flag the package's install script tries to download GPU binaries and fails; the CPU
  # library ships inside the package.
  (cd "$CACHE" && npm install --silent --no-audit --no-fund onnxruntime-node --onnxruntime-node-install=skip >/dev/null)
fi

# Other tenants' load on a shared machine shifts both runtimes by 10-40% within seconds, so each model runs
# in ROUNDS alternating rounds (Onyx, then ONNX Runtime) and the medians of the rounds' medians are compared.
ROUNDS=${ROUNDS:-3}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

printf '%-34s %10s %10s %8s\n' model onyx_ms ort_ms ratio
for dir in "$MODELS"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] || continue
  data="$dir/test_data_set_0"
  onyx_runs="" ort_runs=""
  round=0
  while [ "$round" -lt "$ROUNDS" ]; do
    round=$((round + 1))
    onyx_runs="$onyx_runs $("$ONYX" run "$dir/model.onnx" --inputs "$data" --threads 2 --warmup "$WARMUP" \
                              --iterations "$ITERATIONS" --json | sed -n 's/.*"median":\([0-9.]*\).*/\1/p')"
    ort_runs="$ort_runs $(NODE_PATH="$CACHE/node_modules" node "$HERE/ort_bench.js" "$dir/model.onnx" "$data" \
                            "$WARMUP" "$ITERATIONS" 2>/dev/null || true)"
  done
  onyx_ms=$(echo "$onyx_runs" | median)
  ort_ms=$(echo "$ort_runs" | median)
  if [ -z "$ort_ms" ]; then
    printf '%-34s %10s %10s %8s\n' "$name" "$onyx_ms" "n/a" "-"
  else
    ratio=$(awk -v a="$onyx_ms" -v b="$ort_ms" 'BEGIN { printf "%.2f", a / b }')
    printf '%-34s %10s %10s %8sx\n' "$name" "$onyx_ms" "$ort_ms" "$ratio"
  fi
done
