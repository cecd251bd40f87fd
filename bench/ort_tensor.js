// TensorProto .pb files (the backend test data format) to and from onnxruntime-node tensors, for the
// benchmark and the check of optimized models. Only the fields the test data uses are read.
'use strict';
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

module.exports = { parseTensor };
