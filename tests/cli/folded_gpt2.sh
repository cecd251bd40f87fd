#!/usr/bin/env bash
# gpt2_small constant-folded as exporters leave it (the weights' Transposes folded into pre-transposed
# initializers; issue #21): onyx optimize --passes constant-folding gives that graph, it matches the
# PyTorch outputs of test_data_set_0, every MatMul runs the same kernel and fused epilogue as in the export
# (oneDNN, bias and GELU as post-ops), and each constant weight is packed once (17 oneDNN reorders for the
# 16 layer weights and the LM head, whatever the number of runs), not per run. Its runs are never shared-cores
# runs (ONYX_SHARED_CORES=0): on a busy machine those cut the products into slabs, other kernels.
# usage: folded_gpt2.sh ONYX SHARED   (exits 77 when the shared model is absent)
set -uo pipefail
export ONYX_SHARED_CORES=0
onyx="$1" model="${2:-}/models/gpt2_small"
[[ -f "$model/model.onnx" ]] || { echo "SKIPPED: test data not found: $model (set ONYX_TEST_DATA)"; exit 77; }
data="$model/test_data_set_0"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
"$onyx" optimize "$model/model.onnx" --passes constant-folding,dead-code-elimination -o folded_gpt2.onnx \
  >/dev/null || { echo "FAIL: optimize exited $?"; exit 1; }
# The premise: c_attn's weight reaches its MatMul as a folded [256, 768] initializer, no Transpose left.
"$onyx" diff "$model/model.onnx" folded_gpt2.onnx >folded_gpt2.diff
grep -q "^+ initializer '/blocks.0/attn/c_attn/Transpose_output_0': float32\[256, 768\]" folded_gpt2.diff ||
  fail "constant folding left c_attn's weight Transpose in the graph"
"$onyx" run folded_gpt2.onnx --inputs "$data" --check "$data" --threads 2 || fail "outputs differ from $data"
for m in "$model/model.onnx" folded_gpt2.onnx; do
  trace="$(basename "$m" .onnx).trace.json"
  "$onyx" run "$m" --inputs "$data" --threads 2 --warmup 0 --iterations 1 --profile "$trace" >/dev/null ||
    fail "run $m"
done
# MatMul name -> kernel label in each trace; the folded graph's must equal the export's, all 25 oneDNN ones.
kernels() {
  /usr/bin/python3 -c 'import json, sys
t = json.load(open(sys.argv[1])); events = t["traceEvents"] if isinstance(t, dict) else t
seen = {e["name"]: e["args"]["kernel"] for e in events if e.get("args", {}).get("op") == "MatMul"}
for name in sorted(seen): print(name, seen[name])' "$1"
}
kernels model.trace.json >export.kernels
kernels folded_gpt2.trace.json >folded.kernels
diff export.kernels folded.kernels || fail "the folded MatMuls run other kernels than the export's"
[[ $(grep -c ' dnnl' folded.kernels) == 25 ]] || fail "expected 25 oneDNN MatMuls: $(cat folded.kernels)"
# The label names oneDNN's implementation after "dnnl:" (dnnl:brg:avx512_core+...), which depends on the CPU.
grep -Eq "^/blocks.0/mlp/mlp.0/MatMul dnnl(:[^+]+)?\+Add\+Div\+Erf\+Add\+Mul\+Mul$" folded.kernels ||
  fail "mlp.0's bias and GELU are not fused into its MatMul"
# Packed once: oneDNN reorders (the packing) do not grow with the number of runs; every run runs 25 matmuls.
for runs in 1 4; do
  verbose=$(ONEDNN_VERBOSE=1 "$onyx" run folded_gpt2.onnx --inputs "$data" --threads 2 --warmup 0 \
            --iterations $runs 2>/dev/null)
  reorders=$(grep -c "exec,cpu,reorder" <<<"$verbose")
  matmuls=$(grep -c "exec,cpu,matmul" <<<"$verbose")
  [[ $reorders == 17 ]] || fail "$runs runs: $reorders weight reorders, expected 17 (each weight packed once)"
  [[ $matmuls == $((25 * runs)) ]] || fail "$runs runs: $matmuls oneDNN matmuls, expected $((25 * runs))"
done
exit $failed
