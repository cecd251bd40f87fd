#!/usr/bin/env bash
# `onyx run --backend vulkan --json` reports the steady-state run's device work: after three warm-up runs, each
# of six shared models makes one submit (a replay of the command buffer an earlier run recorded, without
# walking the plan) and one host wait, uploads exactly its inputs and reads back exactly its outputs, with no
# node on the CPU, and matches its test_data_set_0. Exits 77 (skipped) without the shared models or without a Vulkan device.
set -uo pipefail
onyx="$1"
shared="${ONYX_TEST_DATA:-${ONYX_DEFAULT_TEST_DATA:-}}"
# model, bytes up (its inputs), bytes down (its outputs)
cases=(
  "squeezenet1_1 602112 4000"      # float32[1,3,224,224] -> float32[1,1000]
  "resnet18 602112 4000"
  "mobilenet_v2 602112 4000"
  "efficientnet_b0 602112 4000"
  "bert_small 3072 132096"         # 3 x int64[1,128] -> float32[1,128,256] + float32[1,256]
  "gpt2_small 1024 4194304"        # int64[1,128] -> float32[1,128,8192]
)
for entry in "${cases[@]}"; do
  read -r name up down <<<"$entry"
  model="$shared/models/$name"
  if [[ -z "$shared" || ! -e "$model/model.onnx" ]]; then
    echo "SKIPPED: test data not found: $model (set ONYX_TEST_DATA)"
    exit 77
  fi
  out=$("$onyx" run "$model/model.onnx" --inputs "$model/test_data_set_0" --check "$model/test_data_set_0" \
    --backend vulkan --warmup 3 --iterations 1 --json 2>/tmp/onyx_vulkan_steady_run.$$)
  rc=$?
  err=$(cat /tmp/onyx_vulkan_steady_run.$$)
  rm -f /tmp/onyx_vulkan_steady_run.$$
  if [[ $rc -ne 0 ]] && grep -qi "vulkan" <<<"$err" && grep -qiE "no device|driver|loader|initialization" <<<"$err"; then
    echo "SKIPPED: no Vulkan device: $err"
    exit 77
  fi
  expected="\"device_run\":{\"submits\":1,\"waits\":1,\"replays\":1,\"plan_walked\":false,\"bytes_up\":$up,\"bytes_down\":$down,\"cpu_nodes\":[]}"
  if [[ $rc -ne 0 || "$out" != *"$expected"* || "$out" != *'"ok":true'* || "$out" == *'"ok":false'* ]]; then
    echo "$name: expected exit 0, matching checks and $expected; got exit $rc:"
    echo "$out"
    echo "$err"
    exit 1
  fi
  echo "$name: $expected"
done
