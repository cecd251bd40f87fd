#!/bin/bash
# `onyx run --threads 2` while a busy loop holds one of its two CPUs: the runs share the busy core (a thread
# on each, the one on the busy core in tasks the other takes over; they still match the expected outputs);
# with ONYX_SHARED_CORES=0, 1 thread; with --fixed-threads, 2 threads sharing the busy cores the same way (an
# OpenMP team would wait for its thread on the busy core at every node); with --fixed-threads and
# ONYX_SHARED_CORES=0, an ordinary run of 2. Usage: busy_core_run.sh ONYX DATA
set -euo pipefail
onyx=$1
d="$2/models/squeezenet1_1"
[ -f "$d/model.onnx" ] || { echo "test data not found: $d"; exit 77; }
cpus=$(/usr/bin/python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(",".join(map(str, c[:2])) if len(c) >= 2 else "")')
[ -n "$cpus" ] || { echo "needs 2 CPUs"; exit 77; }
taskset -c "${cpus#*,}" timeout 120 sh -c 'while :; do :; done' &
loop=$!
trap 'kill $loop 2>/dev/null || true' EXIT
sleep 0.3
run() { taskset -c "$cpus" "$onyx" run "$d/model.onnx" --inputs "$d/test_data_set_0" --check "$d/test_data_set_0" \
  --threads 2 --warmup 5 --iterations 5 --json "$@"; }
adaptive=$(run)
echo "$adaptive"
grep -qE '"threads":\{"requested":2,"last_run":2,"adaptive":true,"others_busy_cores":[0-9.]+,"shared_cores":true' \
  <<<"$adaptive" || { echo "FAIL: expected a shared run"; exit 1; }
alone=$(ONYX_SHARED_CORES=0 run)
echo "$alone"
grep -q '"threads":{"requested":2,"last_run":1,"adaptive":true' <<<"$alone" || { echo "FAIL: expected 1 thread"; exit 1; }
fixed=$(run --fixed-threads)
echo "$fixed"
grep -qE '"threads":\{"requested":2,"last_run":2,"adaptive":false,"others_busy_cores":[0-9.]+,"shared_cores":true' \
  <<<"$fixed" || { echo "FAIL: expected 2 threads in a shared run"; exit 1; }
team=$(ONYX_SHARED_CORES=0 run --fixed-threads)
echo "$team"
grep -qE '"threads":\{"requested":2,"last_run":2,"adaptive":false,"others_busy_cores":null,"shared_cores":false' \
  <<<"$team" || { echo "FAIL: expected 2 threads, not shared"; exit 1; }
echo "ok: a shared run beside a busy core, also when fixed; 1 thread when shared runs are off, 2 when also fixed"
