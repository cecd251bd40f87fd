// Times one model under ONNX Runtime (onnxruntime-node): intra-op threads 2, graph optimization "all",
// inputs from a test_data_set folder (TensorProto .pb files, parsed here). Prints the median latency in ms.
// Usage: node ort_bench.js MODEL.onnx DATASET_DIR WARMUP ITERATIONS
//   ORT_PROFILE=PREFIX: also record ONNX Runtime's profiler JSON (written to PREFIX_<date>.json; its path is
//   printed on stderr) so `onyx profile` and the GUI can map it onto the graph.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function readVarint(buf, pos) {
  let result = 0n, shift = 0n, byte;
  do {
    byte = buf[pos.at++];
    result |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte & 0x80);
  return result;
}

// The fields of TensorProto the test data uses: dims (1), data_type (2), float_data (4), int32_data (5),
// int64_data (7), name (8), raw_data (9), double_data (10).
function parseTensor(buf) {
  const t = { dims: [], type: 1, raw: null, floats: [], ints: [], name: '' };
  const pos = { at: 0 };
  while (pos.at < buf.length) {
    const key = Number(readVarint(buf, pos));
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = readVarint(buf, pos);
      if (field === 1) t.dims.push(Number(v));
      else if (field === 2) t.type = Number(v);
      else if (field === 5 || field === 7) t.ints.push(BigInt.asIntN(64, v));
    } else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      const bytes = buf.subarray(pos.at, pos.at + len);
      pos.at += len;
      if (field === 9) t.raw = bytes;
      else if (field === 8) t.name = bytes.toString();
      else if (field === 1 || field === 5 || field === 7) {
        const p = { at: 0 };
        while (p.at < bytes.length) {
          const v = readVarint(bytes, p);
          if (field === 1) t.dims.push(Number(v)); else t.ints.push(BigInt.asIntN(64, v));
        }
      } else if (field === 4) {
        for (let i = 0; i < len; i += 4) t.floats.push(bytes.readFloatLE(i));
      }
    } else if (wire === 5) {
      if (field === 4) t.floats.push(buf.readFloatLE(pos.at));
      pos.at += 4;
    } else if (wire === 1) {
      pos.at += 8;
    } else {
      throw new Error('unsupported wire type ' + wire);
    }
  }
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.type === 1) {
    const data = t.raw ? new Float32Array(t.raw.buffer.slice(t.raw.byteOffset, t.raw.byteOffset + count * 4)) : Float32Array.from(t.floats);
    return new ort.Tensor('float32', data, t.dims);
  }
  if (t.type === 7) {
    const data = t.raw ? new BigInt64Array(t.raw.buffer.slice(t.raw.byteOffset, t.raw.byteOffset + count * 8)) : BigInt64Array.from(t.ints);
    return new ort.Tensor('int64', data, t.dims);
  }
  throw new Error('unsupported input type ' + t.type);
}

async function main() {
  const [model, dataset, warmup, iterations] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
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
