#!/usr/bin/env bash
# `onyx run --backend vulkan --json` reports the steady-state run's device work: after two warm-up runs,
# squeezenet1_1 makes one submit (a replay of the command buffer the run before recorded) and one host wait,
# uploads exactly its input (1x3x224x224 float32) and reads back exactly its output (1x1000 float32), with no
# node on the CPU. Exits 77 (skipped) without the shared models or without a Vulkan device.
set -uo pipefail
onyx="$1"
shared="${ONYX_TEST_DATA:-${ONYX_DEFAULT_TEST_DATA:-}}"
model="$shared/models/squeezenet1_1"
if [[ -z "$shared" || ! -e "$model/model.onnx" ]]; then
  echo "SKIPPED: test data not found: $model (set ONYX_TEST_DATA)"
  exit 77
fi
out=$("$onyx" run "$model/model.onnx" --inputs "$model/test_data_set_0" --check "$model/test_data_set_0" \
  --backend vulkan --warmup 2 --iterations 1 --json 2>/tmp/onyx_vulkan_steady_run.$$)
rc=$?
err=$(cat /tmp/onyx_vulkan_steady_run.$$)
rm -f /tmp/onyx_vulkan_steady_run.$$
if [[ $rc -ne 0 ]] && grep -qi "vulkan" <<<"$err" && grep -qiE "no device|driver|loader|initialization" <<<"$err"; then
  echo "SKIPPED: no Vulkan device: $err"
  exit 77
fi
expected='"device_run":{"submits":1,"waits":1,"replays":1,"bytes_up":602112,"bytes_down":4000,"cpu_nodes":[]}'
if [[ $rc -ne 0 || "$out" != *"$expected"* || "$out" != *'"ok":true'* ]]; then
  echo "expected exit 0, a matching check and $expected; got exit $rc:"
  echo "$out"
  echo "$err"
  exit 1
fi
