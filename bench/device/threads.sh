#!/bin/bash
# On the lent 16-core machine, from a .device/ made by bench/device/pack_threads.sh:
#   THREADS=16,8,4 ROUNDS=3 VARIANTS="onyx:" bash .device/threads.sh [MODEL...]
# Exports the shared models' architectures there (export_shared.py), unpacks the carried shared models, and
# runs threads_cmp.py: each Onyx variant and ONNX Runtime in alternating rounds at each thread count
# (ORT=0: Onyx only). PROFILE="MODEL:THREADS ..." also writes `onyx profile --by op` summaries (a raw
# profile of ssdlite is too large to come back). Everything lands in $OUT/log.txt as it is printed, so a run
# stopped at its time limit still returns what it measured.
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p "$O"
exec > >(tee "$O/log.txt") 2>&1
T0=$(date +%s); elapsed() { echo "[+$(( $(date +%s) - T0 )) s] $*"; }
tar xJf payload.tar.xz; export LD_LIBRARY_PATH=$PWD/lib
nproc; grep -m1 "model name" /proc/cpuinfo; grep -o -m1 avx512f /proc/cpuinfo
mkdir -p /tmp/m
PYTHONUNBUFFERED=1 python3 export_shared.py /tmp/m >"$O/export.log" 2>&1 &
exporter=$!
for d in carried/*/; do m=$(basename "$d"); mkdir -p /tmp/m/$m; cp -r "$d/test_data_set_0" /tmp/m/$m/
  xz -dc "$d/model.onnx.xz" > /tmp/m/$m/model.onnx; done
# Only the exporter: a bare `wait` also waits for the tee above (bash 5.1+), which ends with this script.
wait $exporter; elapsed "models ready: $(grep -c exported "$O/export.log") exported, $(ls carried | wc -l) carried"
for p in ${PROFILE:-}; do m=${p%%:*}; t=${p##*:}
  ./bin/onyx run /tmp/m/$m/model.onnx --inputs /tmp/m/$m/test_data_set_0 --warmup 5 --iterations 20 --threads $t \
    --profile /tmp/prof.json >/dev/null 2>&1 && ./bin/onyx profile /tmp/prof.json --by op --top 25 > "$O/profile_${m}_$t.txt"
done
MODELS=${*:-resnet18 squeezenet1_1 efficientnet_b0 mobilenet_v2 shufflenet_v2_x1_0 bert_small gpt2_small rnn_lstm_gru}
python3 threads_cmp.py /tmp/m "${THREADS:-16,8,4}" "${ORT:-1}" $MODELS 2>&1 | grep -v -i warn
elapsed done
