// Runs one model under ONNX Runtime on a test_data_set folder and compares every output with the expected
// output_K.pb (|got - want| <= atol + rtol * |want|). Prints one line per output; exits 1 on a mismatch or
// when ONNX Runtime cannot load or run the model.
// Usage: node ort_check.js MODEL.onnx DATASET_DIR [RTOL] [ATOL]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { parseTensor } = require('./ort_tensor');

async function main() {
  const [model, dataset, rtolText, atolText] = process.argv.slice(2);
  const rtol = Number(rtolText || 1e-3), atol = Number(atolText || 1e-4);
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 2, graphOptimizationLevel: 'disabled' });
  const feeds = {};
  session.inputNames.forEach((name, k) => {
    feeds[name] = parseTensor(fs.readFileSync(path.join(dataset, `input_${k}.pb`)));
  });
  const results = await session.run(feeds);
  let ok = true;
  session.outputNames.forEach((name, k) => {
    const file = path.join(dataset, `output_${k}.pb`);
    if (!fs.existsSync(file)) return;
    const want = parseTensor(fs.readFileSync(file)).data, got = results[name].data;
    let worst = 0, bad = want.length !== got.length;
    for (let i = 0; !bad && i < want.length; ++i) {
      const w = Number(want[i]), g = Number(got[i]), err = Math.abs(g - w);
      worst = Math.max(worst, err);
      if (err > atol + rtol * Math.abs(w)) bad = true;
    }
    console.log(`${name}: ${bad ? 'MISMATCH' : 'ok'} (max abs error ${worst.toExponential(2)})`);
    ok = ok && !bad;
  });
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error('error: ' + e.message); process.exit(1); });
