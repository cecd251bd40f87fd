#!/bin/sh
# Optimizes every shared model with the default pipeline and runs the original and the optimized model
# under ONNX Runtime (onnxruntime-node, graph optimization disabled) against test_data_set_0: the optimized
# model must load, run, and agree with the expected outputs exactly where the original does. (ssdlite's
# boxes and labels differ from the exported data under ONNX Runtime itself: it orders tied scores
# differently; what counts is that optimizing changes nothing there.)
# Usage: bench/ort_optimized_check.sh [ONYX_BINARY] [MODELS_DIR]
set -eu
ONYX=${1:-build/app/onyx}
MODELS=${2:-$(dirname "$0")/../../shared/models}
CACHE=${ONYX_BENCH_CACHE:-$HOME/.cache/onyx-ort-bench}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

if [ ! -d "$CACHE/node_modules/onnxruntime-node" ]; then
  mkdir -p "$CACHE"
  (cd "$CACHE" && npm install --silent --no-audit --no-fund onnxruntime-node --onnxruntime-node-install=skip >/dev/null)
fi

status=0
printf '%-32s %12s %10s %10s\n' model nodes original optimized
for dir in "$MODELS"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] || continue
  nodes=$("$ONYX" optimize "$dir/model.onnx" -o "$OUT/$name.onnx" | sed -n 's/^nodes: \([0-9]* -> [0-9]*\).*/\1/p')
  check() { NODE_PATH="$CACHE/node_modules" node "$HERE/ort_check.js" "$1" "$dir/test_data_set_0" >"$2" 2>&1 && echo ok || echo differs; }
  before=$(check "$dir/model.onnx" "$OUT/$name.before")
  after=$(check "$OUT/$name.onnx" "$OUT/$name.after")
  printf '%-32s %12s %10s %10s\n' "$name" "$(echo "$nodes" | tr -d ' ')" "$before" "$after"
  if [ "$before" != "$after" ] || grep -q "^error" "$OUT/$name.after"; then
    status=1
    cat "$OUT/$name.after"
  fi
done
exit $status
