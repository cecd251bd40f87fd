#!/bin/sh
# The memory-bound kernels of issue #21 (deeplabv3's bilinear Resize, dilated convolutions, fasterrcnn's
# RoiAlign / ScatterElements / TopK / NonMaxSuppression, inception's pools and concat) as one-node models at
# the sizes those models use, Onyx vs ONNX Runtime (2 threads each) in alternating rounds. Prints the median
# latencies, their ratio, Onyx's GB/s over the node's input + output bytes, and the kernel variant Onyx ran.
# Usage: bench/kernels_bench.sh [ONYX_BINARY] [MODEL_TOOL] [FILTER]
#   ONYX_BINARY: build/app/onyx; MODEL_TOOL: build/tests/cli/onyx_test_model_tool (ONNX text to .onnx);
#   FILTER: run only cases whose name contains it. ONYX_BENCH_CACHE, WARMUP, ITERATIONS, ROUNDS as in
#   ort_bench.sh. THREADS (2): Onyx's kernel threads; ONNX Runtime always runs 2 (ort_bench.js).
set -eu
ONYX=${1:-build/app/onyx}
TOOL=${2:-build/tests/cli/onyx_test_model_tool}
FILTER=${3:-}
CACHE=${ONYX_BENCH_CACHE:-$HOME/.cache/onyx-ort-bench}
WARMUP=${WARMUP:-3}
ITERATIONS=${ITERATIONS:-20}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# OpenMP waiting is left to Onyx, as in ort_bench.sh (it bounds libgomp's spin itself).
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

HEADER='<ir_version: 8, opset_import: ["" : 17]>'
printf '%-28s %9s %9s %7s %8s  %s\n' case onyx_ms ort_ms ratio GB/s variant

# bench NAME OP "INPUT SPECS" OUTPUT_ELEMENTS GRAPH: one case. INPUT SPECS as kernels_inputs.js takes them,
# in the graph's input order; the node under test has op type OP (its variant is read from the profile).
bench() {
  name=$1 op=$2 specs=$3 outElements=$4 graph=$5
  case "$name" in *"$FILTER"*) ;; *) return 0 ;; esac
  dir="$WORK/$name"
  mkdir -p "$dir"
  printf '%s\n%s\n' "$HEADER" "$graph" >"$dir/model.onnxtxt"
  "$TOOL" from-text "$dir/model.onnxtxt" "$dir/model.onnx" >/dev/null
  # shellcheck disable=SC2086  # the specs are separate arguments
  node "$HERE/kernels_inputs.js" "$dir/data" $specs
  inBytes=0
  for spec in $specs; do
    elements=$(echo "${spec#*:}" | tr 'x' '\n' | awk '{ n = (NR == 1 ? $1 : n * $1) } END { print n }')
    case "$spec" in int64* | rowperm*) size=8 ;; *) size=4 ;; esac
    inBytes=$((inBytes + elements * size))
  done
  onyx_runs="" ort_runs="" round=0
  while [ "$round" -lt "$ROUNDS" ]; do
    round=$((round + 1))
    onyx_runs="$onyx_runs $("$ONYX" run "$dir/model.onnx" --inputs "$dir/data" --threads "$THREADS" --warmup "$WARMUP" \
                              --iterations "$ITERATIONS" --json | sed -n 's/.*"median":\([0-9.]*\).*/\1/p')"
    ort_runs="$ort_runs $(NODE_PATH="$CACHE/node_modules" node "$HERE/ort_bench.js" "$dir/model.onnx" \
                            "$dir/data" "$WARMUP" "$ITERATIONS" 2>/dev/null || true)"
  done
  "$ONYX" run "$dir/model.onnx" --inputs "$dir/data" --threads "$THREADS" --warmup 0 --iterations 1 \
    --profile "$dir/trace.json" >/dev/null
  variant=$(tr '{' '\n' <"$dir/trace.json" | grep "\"op\":\"$op\"" | sed -n 's/.*"kernel":"\([^"]*\)".*/\1/p' | head -1)
  onyx_ms=$(echo "$onyx_runs" | median)
  ort_ms=$(echo "$ort_runs" | median)
  awk -v n="$name" -v a="$onyx_ms" -v b="${ort_ms:-0}" -v bytes=$((inBytes + outElements * 4)) -v v="$variant" \
    'BEGIN { printf "%-28s %9.3f %9s %7s %8.2f  %s\n", n, a, (b > 0 ? sprintf("%.3f", b) : "n/a"),
             (b > 0 ? sprintf("%.2fx", a / b) : "-"), bytes / (a * 1e6), v }'
}

# deeplabv3's head: the classifier's 21 maps at 28 x 28 up to the 224 x 224 image (F.interpolate bilinear,
# align_corners False and True), the ASPP pooling branch's 1 x 1 map back to 28 x 28; fasterrcnn's FPN nearest
# upsample; a cubic one.
bench resize_linear_21x28_224 Resize "float:1x21x28x28" $((21 * 224 * 224)) '
g (float[1,21,28,28] x) => (float[1,21,224,224] y) <float[0] roi = {}, float[4] scales = {1,1,8,8}> {
  y = Resize<mode = "linear", coordinate_transformation_mode = "half_pixel">(x, roi, scales)
}'
bench resize_linear_ac_21x28_224 Resize "float:1x21x28x28" $((21 * 224 * 224)) '
g (float[1,21,28,28] x) => (float[1,21,224,224] y) <float[0] roi = {}, int64[4] sizes = {1,21,224,224}> {
  y = Resize<mode = "linear", coordinate_transformation_mode = "align_corners">(x, roi, , sizes)
}'
bench resize_linear_256x1_28 Resize "float:1x256x1x1" $((256 * 28 * 28)) '
g (float[1,256,1,1] x) => (float[1,256,28,28] y) <float[0] roi = {}, float[4] scales = {1,1,28,28}> {
  y = Resize<mode = "linear", coordinate_transformation_mode = "half_pixel">(x, roi, scales)
}'
bench resize_nearest_256x28_56 Resize "float:1x256x28x28" $((256 * 56 * 56)) '
g (float[1,256,28,28] x) => (float[1,256,56,56] y) <float[0] roi = {}, float[4] scales = {1,1,2,2}> {
  y = Resize<mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor">(x, roi, scales)
}'
bench resize_cubic_21x28_112 Resize "float:1x21x28x28" $((21 * 112 * 112)) '
g (float[1,21,28,28] x) => (float[1,21,112,112] y) <float[0] roi = {}, float[4] scales = {1,1,4,4}> {
  y = Resize<mode = "cubic", coordinate_transformation_mode = "half_pixel">(x, roi, scales)
}'
# deeplab's ASPP (3 x 3, dilation 12 on 28 x 28 x 960 to 256) and mobilenet_v3's dilated 5 x 5 depthwise.
# Weights from ConstantOfShape: both runtimes fold them into constants.
bench conv_dil12_960_256_28 Conv "float:1x960x28x28" $((256 * 28 * 28)) '
g (float[1,960,28,28] x) => (float[1,256,28,28] y) <int64[4] wshape = {256,960,3,3}> {
  w = ConstantOfShape<value = float[1] {0.01}>(wshape)
  y = Conv<dilations = [12, 12], pads = [12, 12, 12, 12]>(x, w)
}'
bench conv_dw_dil2_960_28 Conv "float:1x960x28x28" $((960 * 28 * 28)) '
g (float[1,960,28,28] x) => (float[1,960,28,28] y) <int64[4] wshape = {960,1,5,5}> {
  w = ConstantOfShape<value = float[1] {0.01}>(wshape)
  y = Conv<dilations = [2, 2], pads = [4, 4, 4, 4], group = 960>(x, w)
}'
# fasterrcnn's box head: MultiScaleRoIAlign (7 x 7, sampling 2) of 1000 regions on a 256-channel FPN level;
# its post-processing's TopK, NonMaxSuppression and ScatterElements.
bench roialign_1000_256x20 RoiAlign "float:1x256x20x20 boxes:1000x4 int64zeros:1000" $((1000 * 256 * 49)) '
g (float[1,256,20,20] x, float[1000,4] rois, int64[1000] batch) => (float[1000,256,7,7] y) {
  y = RoiAlign<output_height = 7, output_width = 7, sampling_ratio = 2, spatial_scale = 0.0625>(x, rois, batch)
}'
bench roialign_max_1000_256x20 RoiAlign "float:1x256x20x20 boxes:1000x4 int64zeros:1000" $((1000 * 256 * 49)) '
g (float[1,256,20,20] x, float[1000,4] rois, int64[1000] batch) => (float[1000,256,7,7] y) {
  y = RoiAlign<mode = "max", output_height = 7, output_width = 7, sampling_ratio = 2, spatial_scale = 0.0625>(x, rois, batch)
}'
bench scatter_elements_1000x91 ScatterElements "float:1000x91 rowperm:1000x91 float:1000x91" $((1000 * 91)) '
g (float[1000,91] data, int64[1000,91] i, float[1000,91] updates) => (float[1000,91] y) {
  y = ScatterElements<axis = 1>(data, i, updates)
}'
bench topk_19125_1000 TopK "float:1x19125" 2000 '
g (float[1,19125] x) => (float[1,1000] v, int64[1,1000] i) <int64[1] k = {1000}> {
  v, i = TopK<axis = 1>(x, k)
}'
bench nms_1000 NonMaxSuppression "boxes:1x1000x4 float:1x1x1000" 300 '
g (float[1,1000,4] boxes, float[1,1,1000] scores) => (int64[?,3] y) <int64[1] most = {100}, float[1] iou = {0.5}> {
  y = NonMaxSuppression(boxes, scores, most, iou)
}'
# inception_v3's Mixed_5b-d blocks: the 3 x 3 stride-1 average pool, the stride-2 max pool, the branch concat.
bench avgpool_288x35 AveragePool "float:1x288x35x35" $((288 * 35 * 35)) '
g (float[1,288,35,35] x) => (float[1,288,35,35] y) {
  y = AveragePool<kernel_shape = [3, 3], pads = [1, 1, 1, 1], count_include_pad = 1>(x)
}'
bench maxpool_288x35_s2 MaxPool "float:1x288x35x35" $((288 * 17 * 17)) '
g (float[1,288,35,35] x) => (float[1,288,17,17] y) {
  y = MaxPool<kernel_shape = [3, 3], strides = [2, 2]>(x)
}'
bench concat_288x35 Concat "float:1x64x35x35 float:1x64x35x35 float:1x96x35x35 float:1x64x35x35" $((288 * 35 * 35)) '
g (float[1,64,35,35] a, float[1,64,35,35] b, float[1,96,35,35] c, float[1,64,35,35] d) => (float[1,288,35,35] y) {
  y = Concat<axis = 1>(a, b, c, d)
}'
