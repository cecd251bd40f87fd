"""The memory a model costs to run (issue #22): `onyx run --json`'s process_peak_bytes (the process's peak
resident set, VmHWM: weights, arena, buffers and the library pages the run touched) for the model, less the
same for a model with nothing in it (one Relu on four values: the executable, its libraries and the
executor, no weights), as a multiple of the model file's size. Each is the median of three runs.

usage: check_peak_memory.py ONYX EMPTY_MODEL MODEL_DIR LIMIT  (exits 77 where /proc gives no peak)"""
import json
import os
import statistics
import subprocess
import sys

onyx, empty_model, model_dir, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
model = os.path.join(model_dir, "model.onnx")
if not os.path.isfile(model):
    print(f"test data not found: {model} (set ONYX_TEST_DATA)")
    sys.exit(77)


def peak(inputs):
    runs = []
    for _ in range(3):
        out = subprocess.run([onyx, "run", *inputs, "--threads", "2", "--warmup", "1", "--iterations", "2", "--json"],
                             check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(out)["process_peak_bytes"])
    return statistics.median(runs)


baseline = peak([empty_model, "--random"])
loaded = peak([model, "--inputs", os.path.join(model_dir, "test_data_set_0")])
if baseline == 0 or loaded == 0:
    print("this system does not report the peak resident set")
    sys.exit(77)
size = os.path.getsize(model)
ratio = (loaded - baseline) / size
print(f"peak {loaded / 2**20:.1f} MiB, empty run {baseline / 2**20:.1f} MiB: the model costs {(loaded - baseline) / 2**20:.1f} MiB, "
      f"{ratio:.2f}x its {size / 2**20:.1f} MiB file (limit {limit}x)")
sys.exit(0 if ratio < limit else 1)
