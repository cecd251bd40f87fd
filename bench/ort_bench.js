// Times one model under ONNX Runtime (onnxruntime-node): intra-op threads 2 unless told, graph optimization
// "all", inputs from a test_data_set folder (TensorProto .pb files, parsed here). Prints the median latency in ms.
// Usage: node ort_bench.js MODEL.onnx DATASET_DIR WARMUP ITERATIONS [THREADS]
//   ORT_PROFILE=PREFIX: also record ONNX Runtime's profiler JSON (written to PREFIX_<date>.json; its path is
//   printed on stderr) so `onyx profile` and the GUI can map it onto the graph.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { parseTensor } = require('./ort_tensor');

async function main() {
  const [model, dataset, warmup, iterations, threads = '2'] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
    enableProfiling: Boolean(process.env.ORT_PROFILE), profileFilePrefix: process.env.ORT_PROFILE || undefined,
  });
  const feeds = {};
  session.inputNames.forEach((name, k) => {
    feeds[name] = parseTensor(fs.readFileSync(path.join(dataset, `input_${k}.pb`)));
  });
  for (let i = 0; i < Number(warmup); ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(iterations); ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  if (process.env.ORT_PROFILE) console.error('profile: ' + session.endProfiling());
  times.sort((a, b) => a - b);
  console.log(times[Math.floor(times.length / 2)].toFixed(3));
}

main().catch((e) => { console.error('error: ' + e.message); process.exit(1); });
