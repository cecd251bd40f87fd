#!/bin/bash
# Packs a build for bench/device/threads.sh on the lent 16-core machine (../shared/device/README.md):
#   bash bench/device/pack_threads.sh [BUILD_DIR]      (in the project root)
# then one device run with carry [".device"] and the command `bash .device/threads.sh`.
# The device tool carries at most 64 MiB with the tracked tree, so the payload is recompressed (xz -9e) and
# the shared models that cannot be exported there (rnn_lstm_gru's recurrences, ssdlite320's PyTorch 1.13
# detection head) travel xz-compressed; the others are exported there (export_shared.py).
set -euo pipefail
B=${1:-build}; HERE=$(cd "$(dirname "$0")" && pwd); DATA=${ONYX_TEST_DATA:-../shared}
bash "$DATA/device/pack.sh" "$B" >/dev/null
T=$(mktemp -d); tar -C "$T" -xJf .device/payload.tar.xz
(cd "$T" && tar -cf - bin lib | xz -9e -T0) > .device/payload.tar.xz; rm -rf "$T"
rm -f .device/*.deb .device/run.sh .device/anchors.py .device/cmp.py  # Vulkan and the anchors: not used here
for m in ${CARRY:-rnn_lstm_gru ssdlite320_mobilenet_v3_large}; do
  mkdir -p .device/carried/$m; cp -r "$DATA/models/$m/test_data_set_0" .device/carried/$m/
  xz -T0 -6 -c "$DATA/models/$m/model.onnx" > .device/carried/$m/model.onnx.xz
done
cp "$HERE"/threads.sh "$HERE"/threads_cmp.py "$HERE"/export_shared.py .device/
total=$(( $(du -sb .device | cut -f1) + $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) ))
echo ".device: $(du -sh .device | cut -f1); with the tracked tree $(( total >> 20 )) MiB (the device tool takes 64)"
[ $(( total >> 20 )) -lt 62 ] || { echo "too large for the device tool: carry fewer models (CARRY=...)"; exit 1; }
