#!/bin/sh
# Onyx vs ONNX Runtime on the shared models, in the same run: batch 1 (test_data_set_0), ORT with graph
# optimization "all". Prints median latencies side by side and the ratio Onyx / ORT (lower is better).
# Usage: bench/ort_bench.sh [ONYX_BINARY] [MODELS_DIR] [MODEL...]
#   MODEL...: names of folders under MODELS_DIR (bert_small), or paths of folders holding model.onnx and
#     test_data_set_0 (/tmp/gpt2_folded); none: every such folder under MODELS_DIR.
#     MODELS_ONLY=bert_small,resnet18 does the same from the environment.
#   THREADS=2,4,8: thread counts (default 2); each count is a column group, both runtimes at that count.
#   ISA=avx2 or ISA=native,avx2: Onyx's instruction set; a forced one sets ONYX_CPU_ISA (the engine's own
#     kernels) and ONEDNN_MAX_CPU_ISA (oneDNN's) for Onyx only, ORT keeps the machine's. Several give an
#     Onyx column and a ratio each (default native).
#   LOAD=1: one core of background load during the measurements: a busy loop pinned to CPU LOAD_CPU (default
#     the last) with taskset, ending itself after LOAD_SECONDS (default 900) and killed when measurements end
#     or the script exits. LOAD=0,1 measures quiet and loaded in alternating rounds, as column groups.
#   DRY_RUN=1: print the plan (models, thread counts, Onyx's environment, load command) and run nothing.
#   ONYX_BENCH_CACHE: where onnxruntime-node is installed (default ~/.cache/onyx-ort-bench)
#   WARMUP, ITERATIONS: per round and runtime (3, 20); ROUNDS: alternating rounds per model (3)
set -eu
die() { echo "ort_bench.sh: $*" >&2; exit 2; }
ONYX=${1:-build/app/onyx}
MODELS=${2:-$(dirname "$0")/../../shared/models}
[ $# -gt 2 ] && shift 2 || set --
CACHE=${ONYX_BENCH_CACHE:-$HOME/.cache/onyx-ort-bench}
WARMUP=${WARMUP:-3}
ITERATIONS=${ITERATIONS:-20}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
ISA=${ISA:-native}
LOAD=${LOAD:-0}
LOAD_SECONDS=${LOAD_SECONDS:-900}
LOAD_CPU=${LOAD_CPU:-$(($(nproc) - 1))}
DRY_RUN=${DRY_RUN:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
# OpenMP waiting is left to Onyx: it bounds libgomp's spin itself (see README, "Threads"), and an exported
# GOMP_SPINCOUNT here would override that default and measure something users do not run. A caller's own
# GOMP_SPINCOUNT or OMP_WAIT_POLICY still passes through.

words() { echo "$1" | tr ',' ' '; }
positive() { case "$2" in ''|*[!0-9]*|0*) die "$1 must be a positive whole number, got '$2'" ;; esac; }
whole() { case "$2" in 0) ;; *) positive "$@" ;; esac; }
for n in $(words "$THREADS"); do positive THREADS "$n"; done
whole WARMUP "$WARMUP"; positive ITERATIONS "$ITERATIONS"; positive ROUNDS "$ROUNDS"
positive LOAD_SECONDS "$LOAD_SECONDS"
for l in $(words "$LOAD"); do case "$l" in 0|1) ;; *) die "LOAD must be 0, 1 or 0,1, got '$LOAD'" ;; esac; done
# oneDNN's names for the instruction sets ONYX_CPU_ISA knows.
dnnl_isa() {
  case "$1" in
    sse41) echo SSE41 ;; avx) echo AVX ;; avx2) echo AVX2 ;; avx512) echo AVX512_CORE ;;
  esac
}
onyx_env() { [ "$1" = native ] && echo "" || echo "ONYX_CPU_ISA=$1 ONEDNN_MAX_CPU_ISA=$(dnnl_isa "$1")"; }
for i in $(words "$ISA"); do
  case "$i" in native|sse41|avx|avx2|avx512) ;;
    *) die "ISA must be native, sse41, avx, avx2 or avx512 (comma-separated), got '$i'" ;;
  esac
done

# The models: arguments, else MODELS_ONLY, else every folder of MODELS_DIR with model.onnx and test_data_set_0.
[ $# -eq 0 ] && [ -n "${MODELS_ONLY:-}" ] && set -- $(words "$MODELS_ONLY")
[ $# -eq 0 ] && for dir in "$MODELS"/*/; do
  [ -f "$dir/model.onnx" ] && [ -d "$dir/test_data_set_0" ] && set -- "$@" "${dir%/}"
done
model_dir() { case "$1" in */*) echo "${1%/}" ;; *) echo "$MODELS/$1" ;; esac; }
for m in "$@"; do
  [ -f "$(model_dir "$m")/model.onnx" ] || die "no model.onnx in $(model_dir "$m")"
  [ -d "$(model_dir "$m")/test_data_set_0" ] || die "no test_data_set_0 in $(model_dir "$m")"
done
[ $# -gt 0 ] || die "no models found under $MODELS"

load_pid=""
start_load() {
  taskset -c "$LOAD_CPU" timeout "$LOAD_SECONDS" sh -c 'while :; do :; done' &
  load_pid=$!
}
stop_load() {
  [ -n "$load_pid" ] || return 0
  kill "$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=""
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM

if [ "$DRY_RUN" = 1 ]; then
  echo "onyx: $ONYX"
  for m in "$@"; do echo "model: $(basename "$(model_dir "$m")") $(model_dir "$m")/model.onnx"; done
  echo "threads: $(words "$THREADS")"
  for i in $(words "$ISA"); do echo "isa $i: onyx env: $(onyx_env "$i" | grep . || echo '(unchanged)')"; done
  for l in $(words "$LOAD"); do
    [ "$l" = 1 ] && echo "load: taskset -c $LOAD_CPU timeout $LOAD_SECONDS sh -c 'while :; do :; done'" \
                 || echo "load: none"
  done
  echo "rounds: $ROUNDS, warmup: $WARMUP, iterations: $ITERATIONS"
  exit 0
fi

if [ ! -d "$CACHE/node_modules/onnxruntime-node" ]; then
  mkdir -p "$CACHE"
  # Without the flag the package's install script tries to download GPU binaries and fails; the CPU
  # library ships inside the package.
  (cd "$CACHE" && npm install --silent --no-audit --no-fund onnxruntime-node --onnxruntime-node-install=skip >/dev/null)
fi

# Other tenants' load on a shared machine shifts both runtimes by 10-40% within seconds, so each model runs
# in ROUNDS alternating rounds (Onyx at each ISA, then ONNX Runtime) and the medians of the rounds' medians
# are compared. With LOAD=0,1 the quiet and loaded rounds alternate too.
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# Runs of 8 threads or more time all of them against half in their first 10 runs (exec/thread_tuner.h): Onyx
# warms up through them, so that its timed runs are the ones a long-running user gets.
onyx_ms() { # DIR THREADS ISA
  local warmup=$WARMUP
  [ "$2" -ge 8 ] && [ "$warmup" -lt 10 ] && warmup=10
  env $(onyx_env "$3") "$ONYX" run "$1/model.onnx" --inputs "$1/test_data_set_0" --threads "$2" \
    --warmup "$warmup" --iterations "$ITERATIONS" --json | sed -n 's/.*"median":\([0-9.]*\).*/\1/p'
}
ort_ms() { # DIR THREADS
  NODE_PATH="$CACHE/node_modules" node "$HERE/ort_bench.js" "$1/model.onnx" "$1/test_data_set_0" \
    "$WARMUP" "$ITERATIONS" "$2" 2>/dev/null || true
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' || echo "-"; }
# Runs are kept in files named by column group: RUNS/<threads>t<load>.<isa or ort>.
RUNS=$(mktemp -d)
trap 'stop_load; rm -rf "$RUNS"' EXIT

printf '%-30s' model
for t in $(words "$THREADS"); do for l in $(words "$LOAD"); do
  group="${t}t"; [ "$l" = 1 ] && group="$group+load"
  for i in $(words "$ISA"); do [ "$i" = native ] && printf ' %14s' "onyx@$group" || printf ' %14s' "$i@$group"; done
  printf ' %14s' "ort@$group"
  for i in $(words "$ISA"); do [ "$i" = native ] && printf ' %8s' ratio || printf ' %8s' "r.$i"; done
done; done
echo
for m in "$@"; do
  dir=$(model_dir "$m")
  rm -f "$RUNS"/*
  round=0
  while [ "$round" -lt "$ROUNDS" ]; do
    round=$((round + 1))
    for l in $(words "$LOAD"); do
      [ "$l" = 1 ] && start_load
      for t in $(words "$THREADS"); do
        for i in $(words "$ISA"); do echo "$(onyx_ms "$dir" "$t" "$i")" >>"$RUNS/${t}t$l.$i"; done
        echo "$(ort_ms "$dir" "$t")" >>"$RUNS/${t}t$l.ort"
      done
      stop_load
    done
  done
  printf '%-30s' "$(basename "$dir")"
  for t in $(words "$THREADS"); do for l in $(words "$LOAD"); do
    ort=$(median <"$RUNS/${t}t$l.ort")
    for i in $(words "$ISA"); do printf ' %14s' "$(median <"$RUNS/${t}t$l.$i")"; done
    printf ' %14s' "${ort:-n/a}"
    for i in $(words "$ISA"); do printf ' %8s' "$(ratio "$(median <"$RUNS/${t}t$l.$i")" "$ort")"; done
  done; done
  echo
done
