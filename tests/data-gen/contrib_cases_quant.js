// Cases for FusedGemm, FusedConv and the com.microsoft integer ops: MatMulIntegerToFloat (uint8/int8, per-tensor and
// per-column scales and zero points, bias), DynamicQuantizeMatMul, QuantizeLinear and DequantizeLinear
// (per tensor and per axis), GatherBlockQuantized (4- and 8-bit uint8 tables). Run through contrib_ops_gen.js.
'use strict';

async function generate({ makeCase, T, floats, ints, reseed }) {
  reseed(31);
  const gemm = (name, activation, attrs = {}) => makeCase(name, {
    op: 'FusedGemm', attrs: { activation, ...attrs },
    inputs: [T('A', 'float', [3, 5], floats([3, 5])), T('B', 'float', [4, 5], floats([4, 5])), T('C', 'float', [4], floats([4]))],
    constants: ['B', 'C'] });
  await gemm('fused_gemm_relu', 'Relu', { transB: 1 });
  await gemm('fused_gemm_leaky', 'LeakyRelu', { transB: 1, alpha: { float: 0.5 }, beta: { float: 2 }, activation_alpha: { float: 0.1 } });
  await gemm('fused_gemm_sigmoid', 'Sigmoid', { transB: 1 });

  // FusedConv: 2-D with groups, stride, dilation, pads and a residual Z; 1-D with auto_pad SAME_UPPER.
  await makeCase('fused_conv_relu_groups_z', { op: 'FusedConv',
    attrs: { activation: 'Relu', group: 2, strides: [2, 1], dilations: [1, 2], pads: [1, 0, 0, 2], kernel_shape: [3, 2] },
    inputs: [T('X', 'float', [2, 4, 7, 6], floats([2, 4, 7, 6])), T('W', 'float', [6, 2, 3, 2], floats([6, 2, 3, 2])),
      T('B', 'float', [6], floats([6])), T('Z', 'float', [2, 6, 3, 6], floats([2, 6, 3, 6]))],
    constants: ['W', 'B'] });
  await makeCase('fused_conv_1d_leaky_same', { op: 'FusedConv',
    attrs: { activation: 'LeakyRelu', activation_params: [0.2], auto_pad: 'SAME_UPPER', strides: [2] },
    inputs: [T('X', 'float', [1, 3, 9], floats([1, 3, 9])), T('W', 'float', [4, 3, 4], floats([4, 3, 4]))], constants: ['W'] });
  await makeCase('fused_conv_clip', { op: 'FusedConv', attrs: { activation: 'Clip', activation_params: [-0.5, 0.5] },
    inputs: [T('X', 'float', [1, 2, 5, 5], floats([1, 2, 5, 5])), T('W', 'float', [3, 2, 3, 3], floats([3, 2, 3, 3])), T('B', 'float', [3], floats([3]))],
    constants: ['W', 'B'] });

  reseed(32);
  const M = 3, K = 7, N = 5;
  await makeCase('matmul_integer_to_float_u8', {
    op: 'MatMulIntegerToFloat',
    inputs: [T('A', 'uint8', [2, M, K], ints([2, M, K], 0, 255)), T('B', 'uint8', [K, N], ints([K, N], 0, 255)),
      T('a_scale', 'float', [], [0.02]), T('b_scale', 'float', [N], floats([N], 0.01).map((v) => Math.abs(v) + 0.001)),
      T('a_zero_point', 'uint8', [], [120]), T('b_zero_point', 'uint8', [N], ints([N], 100, 150)), T('bias', 'float', [N], floats([N]))],
    constants: ['B', 'a_scale', 'b_scale', 'a_zero_point', 'b_zero_point', 'bias'] });
  await makeCase('matmul_integer_to_float_s8', {
    op: 'MatMulIntegerToFloat',
    inputs: [T('A', 'uint8', [M, K], ints([M, K], 0, 255)), T('B', 'int8', [K, N], ints([K, N], -128, 127)),
      T('a_scale', 'float', [], [0.05]), T('b_scale', 'float', [], [0.003])],
    constants: ['B', 'a_scale', 'b_scale'] });
  await makeCase('dynamic_quantize_matmul', {
    op: 'DynamicQuantizeMatMul',
    inputs: [T('A', 'float', [2, M, K], floats([2, M, K], 3)), T('B', 'int8', [K, N], ints([K, N], -128, 127)),
      T('b_scale', 'float', [N], floats([N], 0.01).map((v) => Math.abs(v) + 0.001)), null, T('bias', 'float', [N], floats([N]))],
    constants: ['B', 'b_scale', 'bias'] });
  await makeCase('dynamic_quantize_matmul_zero_point', {
    op: 'DynamicQuantizeMatMul',
    inputs: [T('A', 'float', [M, K], floats([M, K], 2).map((v) => v + 1)), T('B', 'uint8', [K, N], ints([K, N], 0, 255)),
      T('b_scale', 'float', [], [0.01]), T('b_zero_point', 'uint8', [], [128])],
    constants: ['B', 'b_scale', 'b_zero_point'] });
  // GatherBlockQuantized: a (6, 40) table of uint8 (4-bit packed, or 8-bit), blocks of 16 along the last dim.
  const table = (name, bits, withZeros, indices) => {
    const rows = 6, cols = 40, perByte = 8 / bits, blocks = Math.ceil(cols / 16);
    const zpDims = [rows, Math.ceil(blocks / perByte)];
    return makeCase(name, { op: 'GatherBlockQuantized', attrs: { bits, block_size: 16, gather_axis: 0, quantize_axis: 1 },
      inputs: [T('data', 'uint8', [rows, cols / perByte], ints([rows, cols / perByte], 0, 255)), indices,
        T('scales', 'float', [rows, blocks], floats([rows, blocks], 0.1)),
        ...(withZeros ? [T('zero_points', 'uint8', zpDims, ints(zpDims, 0, 255))] : [])],
      constants: ['data', 'scales', 'zero_points'] });
  };
  await table('gather_block_quantized_4bit', 4, true, T('indices', 'int64', [2, 2], [0, 5, 3, 3]));
  await table('gather_block_quantized_4bit_default_zero', 4, false, T('indices', 'int32', [3], [1, -1, 2]));
  await table('gather_block_quantized_8bit', 8, true, T('indices', 'int64', [2], [4, 0]));
  await makeCase('quantize_linear_axis', {
    op: 'QuantizeLinear', attrs: { axis: 1 },
    inputs: [T('X', 'float', [2, 3, 4], floats([2, 3, 4], 3)), T('scale', 'float', [3], [0.02, 0.05, 0.1]), T('zero_point', 'int8', [3], [0, -10, 20])],
    constants: ['scale', 'zero_point'], outputTypes: { Y: 'int8' } });
  await makeCase('quantize_linear_u8', {
    op: 'QuantizeLinear',
    inputs: [T('X', 'float', [5, 3], floats([5, 3], 3)), T('scale', 'float', [], [0.03]), T('zero_point', 'uint8', [], [128])],
    constants: ['scale', 'zero_point'], outputTypes: { Y: 'uint8' } });
  await makeCase('dequantize_linear_axis', {
    op: 'DequantizeLinear', attrs: { axis: 0 },
    inputs: [T('X', 'uint8', [3, 4], ints([3, 4], 0, 255)), T('scale', 'float', [3], [0.5, 0.25, 2]), T('zero_point', 'uint8', [3], [128, 0, 7])],
    constants: ['scale', 'zero_point'] });
}

module.exports = { generate };
