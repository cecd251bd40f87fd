// Cases for the com.microsoft attention, normalization, activation and matrix-product ops (odd sizes,
// every mask format, past state, float16 storage). Run through contrib_ops_gen.js.
'use strict';

async function generate({ makeCase, T, floats, ints, reseed }) {
  reseed(11);
  // Attention: batch 2, sequence 5, input hidden 12, 3 heads of 4.
  const B = 2, S = 5, D = 12, H = 3;
  const attention = (type, extra = {}) => ({
    op: 'Attention',
    attrs: { num_heads: H, ...(extra.attrs || {}) },
    inputs: [T('input', type, [B, S, D], floats([B, S, D])), T('weights', type, [D, 3 * D], floats([D, 3 * D], 0.5)),
      T('bias', type, [3 * D], floats([3 * D], 0.2)), ...(extra.inputs || [])],
    constants: ['weights', 'bias'],
    outputs: extra.outputs || ['Y'],
  });
  await makeCase('attention_nomask', attention('float'));
  await makeCase('attention_lengths', attention('float', { inputs: [T('mask', 'int32', [B], [3, 5])] }));
  await makeCase('attention_end_start', attention('float', { inputs: [T('mask', 'int32', [2 * B], [5, 4, 1, 0])] }));
  await makeCase('attention_raw2d', attention('float', { inputs: [T('mask', 'int32', [B, S], [1, 1, 0, 1, 0, 1, 1, 1, 1, 1])] }));
  await makeCase('attention_raw3d', attention('float', { inputs: [T('mask', 'int32', [B, S, S], ints([B, S, S], 0, 1).map((v, i) => (i % S === 0 ? 1 : v)))] }));
  await makeCase('attention_unidirectional', attention('float', { attrs: { unidirectional: 1 } }));
  await makeCase('attention_scale_filter', attention('float', {
    attrs: { scale: { float: 0.3 }, mask_filter_value: { float: -500 } },
    inputs: [T('mask', 'int32', [B], [2, 4])] }));
  const P = 3;
  await makeCase('attention_past', attention('float', {
    attrs: { unidirectional: 1 },
    inputs: [T('mask', 'int32', [B, P + S], ints([B, P + S], 1, 1).map((v, i) => (i === 1 ? 0 : v))),
      T('past', 'float', [2, B, H, P, D / H], floats([2, B, H, P, D / H]))],
    outputs: ['Y', 'present'] }));
  await makeCase('attention_bias_input', attention('float', {
    inputs: [null, null, T('attention_bias', 'float', [1, H, S, S], floats([1, H, S, S], 2))] }));
  await makeCase('attention_fp16', attention('float16', { inputs: [T('mask', 'int32', [B], [4, 2])] }));

  // MultiHeadAttention: projected Q, K, V (3D, or 4D key/value), bias, padding masks, past, causal.
  const L = 4;
  const mha = (name, { attrs = {}, kv4d = false, bias = false, mask = null, past = 0, ab = false, outputs = ['Y'] } = {}) => makeCase(name, {
    op: 'MultiHeadAttention', attrs: { num_heads: H, ...attrs },
    inputs: [T('query', 'float', [B, S, D], floats([B, S, D])),
      kv4d ? T('key', 'float', [B, H, L, D / H], floats([B, H, L, D / H])) : T('key', 'float', [B, L, D], floats([B, L, D])),
      kv4d ? T('value', 'float', [B, H, L, D / H], floats([B, H, L, D / H])) : T('value', 'float', [B, L, D], floats([B, L, D])),
      bias ? T('bias', 'float', [3 * D], floats([3 * D], 0.3)) : null, mask,
      ab ? T('attention_bias', 'float', [B, 1, S, past + L], floats([B, 1, S, past + L])) : null,
      ...(past ? [T('past_key', 'float', [B, H, past, D / H], floats([B, H, past, D / H])), T('past_value', 'float', [B, H, past, D / H], floats([B, H, past, D / H]))] : [])],
    constants: ['bias'], outputs });
  await mha('mha_plain');
  await mha('mha_bias_lengths', { bias: true, mask: T('mask', 'int32', [B], [2, 4]) });
  await mha('mha_raw_mask_attention_bias', { mask: T('mask', 'int32', [B, L], [1, 0, 1, 1, 1, 1, 1, 0]), ab: true });
  await mha('mha_kv_bnsh', { kv4d: true, attrs: { scale: { float: 0.25 } } });
  await mha('mha_past_causal', { past: 3, attrs: { unidirectional: 1 }, outputs: ['Y', 'present_key', 'present_value'] });

  reseed(12);
  // SkipLayerNormalization and friends: rows of an odd hidden size.
  const dims = [2, 3, 7];
  const skipNorm = (op, type, withBeta, withBias, outputs) => ({
    op,
    attrs: { epsilon: { float: 1e-5 } },
    inputs: [T('X', type, dims, floats(dims, 2)), T('skip', type, dims, floats(dims)), T('gamma', type, [7], floats([7])),
      ...(op === 'SkipLayerNormalization' ? [withBeta ? T('beta', type, [7], floats([7])) : null] : []),
      withBias ? T('bias', type, [7], floats([7])) : null],
    constants: ['gamma', 'beta', 'bias'],
    outputs,
  });
  await makeCase('skip_layer_norm', skipNorm('SkipLayerNormalization', 'float', true, true, ['Y', 'mean', 'inv_std', 'sum']));
  await makeCase('skip_layer_norm_plain', skipNorm('SkipLayerNormalization', 'float', false, false, ['Y']));
  await makeCase('skip_layer_norm_fp16', skipNorm('SkipLayerNormalization', 'float16', true, true, ['Y', null, null, 'sum']));
  await makeCase('skip_simplified_norm', skipNorm('SkipSimplifiedLayerNormalization', 'float', false, true, ['Y', null, null, 'sum']));
  await makeCase('skip_simplified_norm_fp16', skipNorm('SkipSimplifiedLayerNormalization', 'float16', false, false, ['Y']));
  await makeCase('simplified_norm', {
    op: 'SimplifiedLayerNormalization', domain: '', attrs: { epsilon: { float: 1e-5 }, axis: -1 },
    inputs: [T('X', 'float', dims, floats(dims, 3)), T('scale', 'float', [7], floats([7]))], constants: ['scale'],
    outputs: ['Y', 'inv_std'] });
  await makeCase('simplified_norm_axis1', {
    op: 'SimplifiedLayerNormalization', domain: '', attrs: { axis: 1 },
    inputs: [T('X', 'float', dims, floats(dims, 3)), T('scale', 'float', [3, 7], floats([3, 7]))], constants: ['scale'] });

  // EmbedLayerNormalization: vocabulary 11, 6 positions, 2 segments, hidden 7.
  const embed = (name, { segments = true, mask = true, positions = null, outputs = ['Y', 'mask_index'] }) => makeCase(name, {
    op: 'EmbedLayerNormalization', attrs: { epsilon: { float: 1e-5 } },
    inputs: [T('ids', 'int32', [2, 5], ints([2, 5], 0, 10)), segments ? T('segments', 'int32', [2, 5], ints([2, 5], 0, 1)) : null,
      T('words', 'float', [11, 7], floats([11, 7])), T('positions', 'float', [6, 7], floats([6, 7])),
      segments ? T('segment_table', 'float', [2, 7], floats([2, 7])) : null, T('gamma', 'float', [7], floats([7])),
      T('beta', 'float', [7], floats([7])), mask ? T('mask', 'int32', [2, 5], [1, 1, 1, 0, 0, 1, 1, 1, 1, 1]) : null,
      ...(positions ? [positions] : [])],
    constants: ['words', 'positions', 'segment_table', 'gamma', 'beta'], outputs, outputTypes: { mask_index: 'int32' } });
  await embed('embed_layer_norm', { outputs: ['Y', 'mask_index', 'sum'] });
  await embed('embed_layer_norm_no_segments', { segments: false });
  await embed('embed_layer_norm_position_ids', { mask: false, positions: T('position_ids', 'int32', [1, 5], [5, 4, 3, 2, 1]) });

  reseed(13);
  const act = [3, 11];
  const x = (type) => T('X', type, act, floats(act, 4));
  await makeCase('gelu', { op: 'Gelu', inputs: [x('float')] });
  await makeCase('gelu_fp16', { op: 'Gelu', inputs: [x('float16')] });
  await makeCase('fast_gelu', { op: 'FastGelu', inputs: [x('float')] });
  await makeCase('fast_gelu_bias', { op: 'FastGelu', inputs: [x('float'), T('bias', 'float', [11], floats([11]))], constants: ['bias'] });
  await makeCase('bias_gelu', { op: 'BiasGelu', inputs: [x('float'), T('B', 'float', [11], floats([11]))], constants: ['B'] });
  await makeCase('quick_gelu', { op: 'QuickGelu', attrs: { alpha: { float: 1.5 } }, inputs: [x('float')] });
  await makeCase('bias_add', { op: 'BiasAdd', inputs: [T('X', 'float', [2, 3, 11], floats([2, 3, 11])),
    T('bias', 'float', [11], floats([11])), T('skip', 'float', [2, 3, 11], floats([2, 3, 11]))], constants: ['bias'] });
  await makeCase('bias_softmax_inner', { op: 'BiasSoftmax', attrs: { axis: 3, is_inner_broadcast: 1 },
    inputs: [T('X', 'float', [2, 3, 4, 6], floats([2, 3, 4, 6], 3)), T('bias', 'float', [2, 1, 1, 6], floats([2, 1, 1, 6], 3))] });
  await makeCase('bias_softmax_outer', { op: 'BiasSoftmax', attrs: { axis: 3, is_inner_broadcast: 0 },
    inputs: [T('X', 'float', [2, 3, 4, 6], floats([2, 3, 4, 6], 3)), T('bias', 'float', [1, 3, 4, 6], floats([1, 3, 4, 6], 3))] });

  reseed(14);
  await makeCase('fused_matmul', { op: 'FusedMatMul', attrs: { alpha: { float: 0.5 } },
    inputs: [T('A', 'float', [2, 3, 5], floats([2, 3, 5])), T('B', 'float', [5, 4], floats([5, 4]))] });
  await makeCase('fused_matmul_trans', { op: 'FusedMatMul', attrs: { alpha: { float: 1.25 }, transA: 1, transB: 1 },
    inputs: [T('A', 'float', [2, 1, 5, 3], floats([2, 1, 5, 3])), T('B', 'float', [4, 4, 5], floats([4, 4, 5]))] });
}

module.exports = { generate };

// GroupQueryAttention: 4 query heads over 2 key/value heads of 16 (ONNX Runtime wants a multiple of
// 16 for rotary, and batch 1 for several new tokens after a past); prompt (no past), decoding with a past of
// 3 and 2 new tokens, packed QKV, rotary (half and interleaved), local window and softcap.
async function generateGqa({ makeCase, T, floats, reseed }) {
  reseed(15);
  const N = 4, KV = 2, H = 16, MAXPOS = 16;
  const angles = (f) => Array.from({ length: MAXPOS * (H / 2) }, (_, i) => f(Math.floor(i / (H / 2)) / Math.pow(100, (i % (H / 2)) / (H / 2))));
  const cos = T('cos_cache', 'float', [MAXPOS, H / 2], angles(Math.cos)), sin = T('sin_cache', 'float', [MAXPOS, H / 2], angles(Math.sin));
  const gqa = (name, { S, P = 0, B = P && S > 1 ? 1 : 2, packed = false, attrs = {}, rotary = false }) => {
    const inputs = packed
      ? [T('query', 'float', [B, S, (N + 2 * KV) * H], floats([B, S, (N + 2 * KV) * H])), null, null]
      : [T('query', 'float', [B, S, N * H], floats([B, S, N * H])), T('key', 'float', [B, S, KV * H], floats([B, S, KV * H])),
        T('value', 'float', [B, S, KV * H], floats([B, S, KV * H]))];
    inputs.push(P ? T('past_key', 'float', [B, KV, P, H], floats([B, KV, P, H])) : null,
      P ? T('past_value', 'float', [B, KV, P, H], floats([B, KV, P, H])) : null,
      T('seqlens_k', 'int32', [B], Array(B).fill(P + S - 1)), T('total_sequence_length', 'int32', [], [P + S]));
    if (rotary) inputs.push(cos, sin);
    return makeCase(name, { op: 'GroupQueryAttention', attrs: { num_heads: N, kv_num_heads: KV, ...attrs, ...(rotary ? { do_rotary: 1 } : {}) },
      inputs, constants: ['cos_cache', 'sin_cache'], outputs: ['Y', 'present_key', 'present_value'] });
  };
  await gqa('gqa_prompt', { S: 5 });
  await gqa('gqa_past', { S: 2, P: 3 });
  await gqa('gqa_decode_one', { S: 1, P: 6 });
  await gqa('gqa_packed', { S: 3, P: 2, packed: true });
  await gqa('gqa_rotary', { S: 3, P: 2, rotary: true });
  await gqa('gqa_rotary_interleaved', { S: 4, rotary: true, attrs: { rotary_interleaved: 1 } });
  const rotary = (name, x, positions, attrs = {}) => makeCase(name, { op: 'RotaryEmbedding', attrs,
    inputs: [x, positions, cos, sin], constants: ['cos_cache', 'sin_cache'] });
  await rotary('rotary_bsnh', T('X', 'float', [2, 3, 2 * H], floats([2, 3, 2 * H])), T('pos', 'int64', [2, 3], [0, 1, 2, 5, 6, 7]), { num_heads: 2 });
  await rotary('rotary_offset_interleaved', T('X', 'float', [1, 4, 2 * H], floats([1, 4, 2 * H])), T('pos', 'int64', [1], [3]),
    { num_heads: 2, interleaved: 1 });
  await rotary('rotary_bnsh', T('X', 'float', [2, 2, 3, H], floats([2, 2, 3, H])), T('pos', 'int64', [2, 3], [4, 5, 6, 0, 1, 2]));
  await gqa('gqa_window_softcap', { S: 4, P: 3, attrs: { local_window_size: 3, softcap: { float: 2.0 }, scale: { float: 0.5 } } });
}

module.exports.generateGqa = generateGqa;
