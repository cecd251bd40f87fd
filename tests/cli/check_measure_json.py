"""Checks `onyx optimize --measure --json` output: a cost for the original and every step, sane values."""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
original = report["original"]
assert original["ran"], original
steps = report["steps"]
assert steps, "no steps"
for step in [original] + [s["cost"] for s in steps]:
    assert step["ran"], step
    assert step["median_ms"] > 0, step
    assert step["peak_bytes"] > 0, step
    assert step["nodes"] > 0, step
    assert step["max_abs_error"] >= 0, step
    assert step["within_tolerance"], step
assert original["max_abs_error"] == 0, original
last = steps[-1]["cost"]
assert last["nodes"] < original["nodes"], (last, original)
assert last["nodes"] == report["nodes_after"], (last, report["nodes_after"])
print(f"{len(steps)} steps, nodes {original['nodes']} -> {last['nodes']}, "
      f"{original['median_ms']:.2f} -> {last['median_ms']:.2f} ms")
