// Generates the com.microsoft op test cases (tests/data/contrib-ops/<case>/): for each, a one-node model
// written with onnx_writer.js, seeded random inputs, and the outputs ONNX Runtime's CPU kernels compute
// (graph optimizations off), as model.onnx + test_data_set_0/{input,output}_K.pb. The cases are committed;
// ctest reads them (ContribOps.* in tests/engine/exec_contrib_ops_test.cpp) and never needs ONNX Runtime.
//
// Usage: (cd /tmp && npm install onnxruntime-node --onnxruntime-node-install=skip)
//        NODE_PATH=/tmp/node_modules node tests/data-gen/contrib_ops_gen.js [OUT_DIR]
// OUT_DIR defaults to tests/data/contrib-ops. A case ONNX Runtime rejects is reported and not written.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { modelProto, tensorProto, toHalf } = require('./onnx_writer');

const OUT = process.argv[2] || path.join(__dirname, '..', 'data', 'contrib-ops');
const MS = 'com.microsoft';

// mulberry32: the same data on every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let random = rng(1);
const count = (dims) => dims.reduce((a, b) => a * b, 1);
const floats = (dims, scale = 1) => Array.from({ length: count(dims) }, () => (random() * 2 - 1) * scale);
const ints = (dims, lo, hi) => Array.from({ length: count(dims) }, () => lo + Math.floor(random() * (hi - lo + 1)));

function typed(type, values) {
  switch (type) {
    case 'float': return Float32Array.from(values);
    case 'float16': return Uint16Array.from(values.map(toHalf));
    case 'int32': return Int32Array.from(values);
    case 'int64': return BigInt64Array.from(values.map(BigInt));
    case 'uint8': return Uint8Array.from(values);
    case 'int8': return Int8Array.from(values);
    case 'bool': return Uint8Array.from(values);
    default: throw new Error('type ' + type);
  }
}
const T = (name, type, dims, values) => ({ name, type, dims, data: typed(type, values) });

// One case: node (op, attrs, domain), inputs given as tensors (null: an omitted optional input), which of them
// are initializers, and the output names (null: an omitted optional output) with their types when they are not
// the first float input's.
async function makeCase(name, { op, domain = MS, attrs = {}, inputs, constants = [], outputs = ['Y'], outputTypes = {} }) {
  const nodeInputs = inputs.map((t) => (t ? t.name : ''));
  const nodeOutputs = outputs.map((o) => o || '');
  const graphInputs = inputs.filter((t) => t && !constants.includes(t.name));
  const initializers = inputs.filter((t) => t && constants.includes(t.name));
  const model = modelProto({
    nodes: [{ op, domain, attrs, inputs: nodeInputs, outputs: nodeOutputs }],
    inputs: graphInputs.map((t) => ({ name: t.name, type: t.type, dims: t.dims })),
    outputs: outputs.filter((o) => o).map((o) => ({ name: o, type: outputTypes[o] || inputs.find((t) => t && t.type.startsWith('float')).type })),
    initializers,
    opsets: { '': 17, [MS]: 1 },
  });
  let results;
  try {
    const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1 });
    const feeds = {};
    for (const t of graphInputs) feeds[t.name] = new ort.Tensor(t.type === 'float' ? 'float32' : t.type, t.data, t.dims);
    results = await session.run(feeds);
  } catch (e) {
    console.log(`${name}: ONNX Runtime rejects it (${e.message.split('\n')[0]}); not written`);
    return;
  }
  const dir = path.join(OUT, name, 'test_data_set_0');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(OUT, name, 'model.onnx'), model);
  graphInputs.forEach((t, k) => fs.writeFileSync(path.join(dir, `input_${k}.pb`), tensorProto(t)));
  outputs.filter((o) => o).forEach((o, k) => {
    const r = results[o];
    fs.writeFileSync(path.join(dir, `output_${k}.pb`), tensorProto({ name: o, type: r.type, dims: r.dims, data: r.data }));
  });
  console.log(`${name}: ${outputs.filter((o) => o).map((o) => `${o} [${results[o].dims}]`).join(', ')}`);
}

module.exports = { makeCase, T, floats, ints, count, reseed: (s) => { random = rng(s); }, rand: () => random() };

if (require.main === module) {
  const suites = [require('./contrib_cases_nn'), require('./contrib_cases_nbits'), require('./contrib_cases_quant'),
    require('./contrib_cases_qlinear')];
  (async () => {
    fs.rmSync(OUT, { recursive: true, force: true });
    for (const suite of suites) await suite.generate(module.exports);
    await require('./contrib_cases_nn').generateGqa(module.exports);
  })().catch((e) => { console.error(e); process.exit(1); });
}
