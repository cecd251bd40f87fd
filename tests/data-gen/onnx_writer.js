// A minimal ONNX protobuf writer for the generated test models: ModelProto with one graph, nodes with
// int/float/string/ints/floats attributes, initializers and typed inputs/outputs, and TensorProto files
// (the backend test data format). Only the fields those need; no dependency beyond Node.
'use strict';

const TYPES = { float: 1, float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10 };

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}
const key = (field, wire) => varint((field << 3) | wire);
const intField = (field, v) => Buffer.concat([key(field, 0), varint(v)]);
const bytesField = (field, bytes) => Buffer.concat([key(field, 2), varint(bytes.length), bytes]);
const strField = (field, s) => bytesField(field, Buffer.from(s, 'utf8'));
function floatField(field, f) {
  const b = Buffer.alloc(4);
  b.writeFloatLE(f, 0);
  return Buffer.concat([key(field, 5), b]);
}

// float32 -> IEEE half bits, round to nearest even.
function toHalf(f) {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setFloat32(0, f);
  const x = buf.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1), halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (half & 1))) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  return sign | half;
}

// { name, type: 'float'|..., dims: [...], data: TypedArray } -> TensorProto bytes.
function tensorProto(t) {
  const parts = t.dims.map((d) => intField(1, d));
  parts.push(intField(2, TYPES[t.type]));
  if (t.name) parts.push(strField(8, t.name));
  const d = t.data;
  parts.push(bytesField(9, Buffer.from(d.buffer, d.byteOffset, d.byteLength)));
  return Buffer.concat(parts);
}

function attribute(name, value) {
  const parts = [strField(1, name)];
  if (typeof value === 'string') parts.push(bytesField(4, Buffer.from(value)), intField(20, 3));
  else if (Array.isArray(value) && value.every(Number.isInteger)) parts.push(...value.map((v) => intField(8, v)), intField(20, 7));
  else if (Array.isArray(value)) parts.push(...value.map((v) => floatField(7, v)), intField(20, 6));
  else if (value && value.float !== undefined) parts.push(floatField(2, value.float), intField(20, 1));
  else parts.push(intField(3, value), intField(20, 2));
  return Buffer.concat(parts);
}

// Integers are int attributes; { float: x } a float attribute (so that 1.0 stays a float).
function nodeProto(n) {
  const parts = [];
  for (const i of n.inputs) parts.push(strField(1, i));
  for (const o of n.outputs) parts.push(strField(2, o));
  parts.push(strField(3, n.name || n.op), strField(4, n.op));
  for (const [k, v] of Object.entries(n.attrs || {})) parts.push(bytesField(5, attribute(k, v)));
  if (n.domain) parts.push(strField(7, n.domain));
  return Buffer.concat(parts);
}

function valueInfo(v) {
  const dims = (v.dims || []).map((d) =>
    bytesField(1, typeof d === 'string' ? strField(2, d) : intField(1, d)));
  const shape = v.dims === undefined ? [] : [bytesField(2, Buffer.concat(dims))];
  const tensorType = Buffer.concat([intField(1, TYPES[v.type]), ...shape]);
  return Buffer.concat([strField(1, v.name), bytesField(2, bytesField(1, tensorType))]);
}

// { nodes, inputs: [valueInfo], outputs: [valueInfo], initializers: [tensor], opsets: { '': 17, ... } }
function modelProto(m) {
  const graph = Buffer.concat([
    ...m.nodes.map((n) => bytesField(1, nodeProto(n))),
    strField(2, m.name || 'test'),
    ...m.initializers.map((t) => bytesField(5, tensorProto(t))),
    ...m.inputs.map((v) => bytesField(11, valueInfo(v))),
    ...m.outputs.map((v) => bytesField(12, valueInfo(v))),
  ]);
  const opsets = Object.entries(m.opsets).map(([domain, version]) =>
    bytesField(8, Buffer.concat([strField(1, domain), intField(2, version)])));
  return Buffer.concat([intField(1, 8), strField(2, 'onyx contrib-ops generator'), ...opsets, bytesField(7, graph)]);
}

module.exports = { modelProto, tensorProto, toHalf, TYPES };
