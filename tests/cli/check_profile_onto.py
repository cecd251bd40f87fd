"""Checks `onyx profile TRACE --model OPTIMIZED --onto ORIGINAL --json`: every node of ORIGINAL has exactly one
row with a share (zero for removed nodes, which name no optimized node), nothing is left unpainted, and the
shares add up to the profile's total."""
import json
import sys

import onnx

report = json.load(open(sys.argv[1]))
original = onnx.load(sys.argv[2], load_external_data=False)
names = [node.name for node in original.graph.node]
rows = report["nodes"]
assert [row["name"] for row in rows] == names, "one row per original node, in graph order"
assert report["unplaced"] == [], report["unplaced"]
total = report["total_ms"]
assert total > 0, total
shares = sum(row["total_ms"] for row in rows)
assert abs(shares - total) <= 1e-6 * max(total, 1), (shares, total)
assert abs(report["painted_ms"] - total) <= 1e-6 * max(total, 1), report["painted_ms"]
assert abs(sum(row["percent"] for row in rows) - 100.0) < 1e-3, "percentages add up to 100"
for row in rows:
    if row["fate"] == "removed":
        assert row["total_ms"] == 0 and row["from"] == [], row
    else:
        assert row["from"], row
    if row["op_type"] == "Conv":
        assert row["total_ms"] > 0 and row["flops"] > 0, row
removed = [row["name"] for row in rows if row["fate"] == "removed"]
print(f"{len(rows)} original nodes painted, {len(removed)} removed; {shares:.3f} of {total:.3f} ms")
