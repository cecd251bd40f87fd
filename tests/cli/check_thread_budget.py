"""Checks `onyx profile --by node --json` of a squeezenet1_1 run at --threads 2, and the default thread count.

argv: profile.json run-output.txt. Each node row says the threads it ran on: the large convolutions on both
threads, the small nodes (the late squeeze layers' activations, the classifier's reshape) on one. The plain
run's latency line names the physical cores, counted here from the SMT sibling lists of the CPUs we may run on.
"""
import json
import os
import re
import sys

rows = json.load(open(sys.argv[1]))["rows"]
threads = [row["threads"] for row in rows]
assert all(t in (1, 2) for t in threads), threads
assert threads.count(2) >= 10, f"expected the large convolutions on 2 threads: {threads}"
assert threads.count(1) >= 1, f"expected small nodes on 1 thread: {threads}"

siblings = set()
for cpu in os.sched_getaffinity(0):
    path = f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
    siblings.add(open(path).read().strip() if os.path.exists(path) else f"cpu{cpu}")
line = open(sys.argv[2]).read()
match = re.search(r"iterations, (\d+) threads[,)]", line)  # ", 1 in the last run" while cores are busy
assert match, line
assert int(match.group(1)) == len(siblings), (match.group(1), len(siblings))
print(f"{threads.count(2)} nodes on 2 threads, {threads.count(1)} on 1; default {len(siblings)} threads")
