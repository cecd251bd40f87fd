# Alternating rounds at several thread counts: each Onyx variant (a subprocess with its own environment),
# then ONNX Runtime in this process at the same threads. A pause opens each round: ONNX Runtime's threads
# spin on after its runs, and an Onyx run started right after them sees cores busy and takes fewer threads.
#   VARIANTS="name:ENV=V,ENV=V;name:" ROUNDS=3 PAUSE=0.7 python3 threads_cmp.py ROOT 16,8,4 ORT(0|1) MODEL...
# Onyx warms up 10 runs (runs of 8 threads or more time all of them against half in their first 10:
# exec/thread_tuner.h), ONNX Runtime 5. Prints per model and thread count each variant's median of round
# medians, its ratio to ONNX Runtime and the rounds. Variants start from the environment without
# GOMP_SPINCOUNT, ONYX_THREAD_BUDGET and ONYX_TUNE_THREADS.
import json, os, statistics, subprocess, sys, time
root, threads, use_ort, models = sys.argv[1], [int(t) for t in sys.argv[2].split(",")], sys.argv[3] == "1", sys.argv[4:]
rounds, pause = int(os.environ.get("ROUNDS", "3")), float(os.environ.get("PAUSE", "0.7"))
onyx = os.environ.get("ONYX", "./bin/onyx")
variants = []
for spec in os.environ.get("VARIANTS", "onyx:").split(";"):
    name, _, assignments = spec.partition(":")
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "ONYX_THREAD_BUDGET", "ONYX_TUNE_THREADS")}
    for kv in filter(None, assignments.split(",")):
        key, _, value = kv.partition("=")
        env[key] = value
    variants.append((name, env))
if use_ort:
    import onnxruntime as ort
    from onnx import load_tensor, numpy_helper

def onyx_median(model_dir, th, env):
    p = subprocess.run([onyx, "run", model_dir + "/model.onnx", "--inputs", model_dir + "/test_data_set_0", "--threads",
                        str(th), "--warmup", "10", "--iterations", "30", "--json"], capture_output=True, text=True, env=env)
    try:
        return json.loads(p.stdout)["latency_ms"]["median"]
    except (ValueError, KeyError):
        print(model_dir, "onyx failed:", p.stderr[-300:], flush=True)
        return float("nan")

for th in threads:
    for m in models:
        d = f"{root}/{m}"
        if use_ort:
            so = ort.SessionOptions()
            so.intra_op_num_threads = th
            session = ort.InferenceSession(d + "/model.onnx", so, providers=["CPUExecutionProvider"])
            feeds = {i.name: numpy_helper.to_array(load_tensor(f"{d}/test_data_set_0/input_{k}.pb"))
                     for k, i in enumerate(session.get_inputs())}
        times = {name: [] for name, _ in variants}
        ort_times = []
        for _ in range(rounds):
            time.sleep(pause)
            for name, env in variants:
                times[name].append(onyx_median(d, th, env))
            if use_ort:
                for _ in range(5):
                    session.run(None, feeds)
                runs = []
                for _ in range(30):
                    t0 = time.perf_counter()
                    session.run(None, feeds)
                    runs.append((time.perf_counter() - t0) * 1e3)
                ort_times.append(statistics.median(runs))
        base = statistics.median(ort_times) if ort_times else None
        cols = "  ".join(f"{n} {statistics.median(v):7.2f}" + (f" ({statistics.median(v) / base:4.2f})" if base else "")
                         for n, v in times.items())
        raw = " | ".join(" ".join(f"{x:.2f}" for x in v) for v in times.values())
        if ort_times:
            raw += " | ort " + " ".join(f"{x:.2f}" for x in ort_times)
        print(f"{m:18s} t{th:2d}: {cols}" + (f"  ort {base:7.2f}" if base else "") + f"   [{raw}]", flush=True)
