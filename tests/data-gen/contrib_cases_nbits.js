// MatMulNBits cases: 2/4/8 bits, block sizes 16 to 256, K not a multiple of the block, zero points absent,
// packed uint8 or float, g_idx, bias, float16. The weights are quantized here from random floats (the
// packing the spec describes: K-major blobs per column, low bits first). Run through contrib_ops_gen.js.
'use strict';

function quantize({ floats, ints, rand }, n, k, bits, block, zeroKind) {
  const blocks = Math.ceil(k / block), blob = (block * bits) / 8, maxQ = (1 << bits) - 1;
  const B = new Array(n * blocks * blob).fill(0);
  const scales = floats([n, blocks], 0.1).map((s) => Math.abs(s) + 0.01);
  const zeros = ints([n, blocks], 0, maxQ);
  const codes = ints([n, blocks * block], 0, maxQ);
  for (let c = 0; c < n; ++c)
    for (let i = 0; i < k; ++i) {
      const byte = (c * blocks + Math.floor(i / block)) * blob + Math.floor(((i % block) * bits) / 8);
      B[byte] |= codes[c * blocks * block + i] << (((i % block) * bits) % 8);
    }
  let zp = null;
  if (zeroKind === 'packed') {
    const rowBytes = Math.ceil((blocks * bits) / 8);
    zp = new Array(n * rowBytes).fill(0);
    for (let c = 0; c < n; ++c)
      for (let b = 0; b < blocks; ++b) zp[c * rowBytes + Math.floor((b * bits) / 8)] |= zeros[c * blocks + b] << ((b * bits) % 8);
    zp = { dims: [n * rowBytes], values: zp };
  } else if (zeroKind === 'float') {
    zp = { dims: [n, blocks], values: zeros.map((z) => z + rand() - 0.5), float: true };
  }
  return { B, blocks, blob, scales, zp };
}

async function generate(ctx) {
  const { makeCase, T, floats, reseed } = ctx;
  reseed(21);
  const variants = [];
  for (const bits of [4, 8])
    for (const block of [16, 32, 64, 128, 256])
      for (const zeros of ['none', 'packed']) variants.push({ bits, block, zeros });
  variants.push({ bits: 4, block: 32, zeros: 'float' }, { bits: 2, block: 64, zeros: 'float' });
  variants.push({ bits: 2, block: 16, zeros: 'packed' }, { bits: 2, block: 32, zeros: 'none' });
  variants.push({ bits: 4, block: 32, zeros: 'packed', bias: true }, { bits: 4, block: 16, zeros: 'packed', type: 'float16' });
  // With g_idx ONNX Runtime's CPU kernel ignores packed uint8 zero points (it uses 8, as if absent), against the
  // spec; Onyx applies them, so the g_idx cases use float zero points or none.
  variants.push({ bits: 4, block: 16, zeros: 'float', gidx: true }, { bits: 4, block: 32, zeros: 'none', gidx: true });
  for (const v of variants) {
    const type = v.type || 'float', n = 5, m = 3;
    const k = v.block === 256 ? 300 : v.block * 2 + 5;  // a last, partial block
    const q = quantize(ctx, n, k, v.bits, v.block, v.zeros);
    const inputs = [T('A', type, [1, m, k], floats([1, m, k])), T('B', 'uint8', [n, q.blocks, q.blob], q.B),
      T('scales', type, [n * q.blocks], q.scales)];
    if (q.zp) inputs.push(q.zp.float ? T('zero_points', type, q.zp.dims, q.zp.values) : T('zero_points', 'uint8', q.zp.dims, q.zp.values));
    else inputs.push(null);
    if (v.gidx) {
      // Rows assigned to blocks out of order (act-order GPTQ). ONNX Runtime's CPU kernel reads g_idx at
      // block * block_size + (k % 8) rather than at k, so the case uses a g_idx on which both readings
      // agree: it depends only on the block and k % 8.
      const g = Array.from({ length: k }, (_, i) => (Math.floor(i / v.block) + ((i % 8) >> 2)) % q.blocks);
      inputs.push(T('g_idx', 'int32', [k], g));
    } else if (v.bias) {
      inputs.push(null);
    }
    if (v.bias) inputs.push(T('bias', type, [n], floats([n])));
    const name = `matmul_nbits_b${v.bits}_k${v.block}_zp_${v.zeros}${v.bias ? '_bias' : ''}${v.gidx ? '_gidx' : ''}${v.type ? '_' + v.type : ''}`;
    await makeCase(name, {
      op: 'MatMulNBits', attrs: { K: k, N: n, bits: v.bits, block_size: v.block },
      inputs, constants: ['B', 'scales', 'zero_points', 'g_idx', 'bias'] });
  }
}

module.exports = { generate };
