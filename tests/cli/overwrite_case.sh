#!/usr/bin/env bash
# One way an output could overwrite an input: in a scratch folder holding a model (in.onnx), a model with
# external data (ext.onnx + ext.bin), a trace of in.onnx (trace.json), a recipe (recipe.json) and an input
# folder (inputs/input_0.pb), and symlinks model-link.svg -> in.onnx and trace-link.png -> trace.json, runs `onyx ARGS...` and requires exit 1, one `error:` line containing TEXT,
# every file's bytes unchanged (sha256) and no new file.
#
# usage: overwrite_case.sh ONYX MODEL TEXT ARGS...
set -uo pipefail
onyx="$1" model="$2" text="$3"
shift 3
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
cp "$model" in.onnx
"$onyx" save in.onnx ext.onnx --external-data ext.bin --size-threshold 64 >/dev/null || exit 1
mkdir inputs
"$onyx" run in.onnx --random --bind N=1,H=16,W=16 --outputs inputs --profile trace.json >/dev/null 2>&1 || exit 1
mv inputs/output_0.pb inputs/input_0.pb
"$onyx" optimize in.onnx -o opt.onnx --passes dead-code-elimination --save-recipe recipe.json >/dev/null || exit 1
rm opt.onnx
# Names a picture may have that still lead to an input (render only writes .svg/.png).
ln -s in.onnx model-link.svg
ln -s trace.json trace-link.png
before="$(find . -type f -exec sha256sum {} + | sort)"
"$onyx" "$@" >stdout.txt 2>stderr.txt
rc=$?
cat stderr.txt
rm -f stdout.txt stderr.txt.keep
after="$(find . -type f ! -name stdout.txt ! -name stderr.txt -exec sha256sum {} + | sort)"
status=0
[[ $rc == 1 ]] || { echo "FAIL: exit $rc, expected 1"; status=1; }
[[ $(grep -c '^error: ' stderr.txt) == 1 && $(wc -l < stderr.txt) == 1 ]] || { echo "FAIL: not one error line"; status=1; }
grep -qF -- "$text" stderr.txt || { echo "FAIL: the error does not say: $text"; status=1; }
[[ "$before" == "$after" ]] || { echo "FAIL: files changed or appeared:"; diff <(echo "$before") <(echo "$after"); status=1; }
exit $status
