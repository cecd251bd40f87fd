// Writes a test_data_set folder of seeded random inputs (TensorProto .pb files: dims, data_type, raw_data)
// for kernels_bench.sh, so Onyx and ONNX Runtime time the same values. No dependencies.
// Usage: node kernels_inputs.js OUT_DIR SPEC...   SPEC: float:1x21x28x28 (uniform in [-2, 2)) or
//   boxes:1x1000x4 (float corner boxes x1 y1 x2 y2 inside a 320 x 320 image) or int64zeros:1000 or
//   rowperm:1000x91 (int64, every last-axis row a permutation)
'use strict';
const fs = require('fs');
const path = require('path');

function varint(n) {
  const bytes = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    bytes.push(b);
  } while (v);
  return Buffer.from(bytes);
}

function tensorProto(dims, type, raw) {
  const parts = [];
  for (const d of dims) parts.push(varint(1 << 3), varint(d));  // dims: field 1, varint
  parts.push(varint(2 << 3), varint(type));  // data_type: field 2
  parts.push(varint((9 << 3) | 2), varint(raw.length), raw);  // raw_data: field 9, bytes
  return Buffer.concat(parts);
}

let state = 12345;
function random() {  // xorshift32: the same values on every run
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}

const [out, ...specs] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
specs.forEach((spec, k) => {
  const [kind, shape] = spec.split(':');
  const dims = shape.split('x').map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  let raw, type;
  if (kind === 'float') {
    const v = new Float32Array(count);
    for (let i = 0; i < count; ++i) v[i] = 4 * random() - 2;
    raw = Buffer.from(v.buffer); type = 1;
  } else if (kind === 'boxes') {
    const v = new Float32Array(count);
    for (let i = 0; i < count; i += 4) {
      const x = 300 * random(), y = 300 * random(), w = 8 + 150 * random(), h = 8 + 150 * random();
      v.set([x, y, Math.min(319, x + w), Math.min(319, y + h)], i);
    }
    raw = Buffer.from(v.buffer); type = 1;
  } else if (kind === 'rowperm') {  // int64, each last-axis row a permutation of 0 .. n-1
    const n = dims[dims.length - 1], v = new BigInt64Array(count);
    for (let row = 0; row < count; row += n) {
      const p = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; --i) {
        const j = Math.floor(random() * (i + 1));
        [p[i], p[j]] = [p[j], p[i]];
      }
      p.forEach((x, i) => { v[row + i] = BigInt(x); });
    }
    raw = Buffer.from(v.buffer); type = 7;
  } else if (kind === 'int64zeros') {
    raw = Buffer.alloc(8 * count); type = 7;
  } else {
    throw new Error('unknown input kind ' + kind);
  }
  fs.writeFileSync(path.join(out, `input_${k}.pb`), tensorProto(dims, type, raw));
});
