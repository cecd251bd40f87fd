// Cases for the com.microsoft QLinear* ops of ONNX Runtime's static quantizer (QOperator format): uint8 and
// int8 data, per-tensor scales (scalars; the unary ops also take 1-element vectors), zero points present or absent, odd
// sizes and broadcasting. Run through contrib_ops_gen.js.
'use strict';

async function generate({ makeCase, T, ints, reseed }) {
  reseed(41);
  const range = (type) => (type === 'uint8' ? [0, 255] : [-128, 127]);
  const data = (name, type, dims) => T(name, type, dims, ints(dims, ...range(type)));
  const scale = (name, v, vector = false) => T(name, 'float', vector ? [1] : [], [v]);
  const zero = (name, type, v) => T(name, type, [], [v]);

  // QLinearAdd / QLinearMul: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point. ONNX Runtime's
  // type inference rejects an absent zero point here (the spec makes them optional), so these cases give zero points
  // of 0; ContribOps.QLinearAddAndMulWithoutZeroPointsUseZero checks the absent ones.
  const binary = (op, name, type, aDims, bDims, zeros, scales) => makeCase(name, {
    op, inputs: [data('A', type, aDims), scale('A_scale', scales[0]), zeros ? zero('A_zero_point', type, zeros[0]) : null,
      data('B', type, bDims), scale('B_scale', scales[1]), zeros ? zero('B_zero_point', type, zeros[1]) : null,
      scale('C_scale', scales[2]), zeros ? zero('C_zero_point', type, zeros[2]) : null],
    constants: ['A_scale', 'A_zero_point', 'B_scale', 'B_zero_point', 'C_scale', 'C_zero_point'], outputs: ['C'],
    outputTypes: { C: type } });
  for (const [op, tag, cScale] of [['QLinearAdd', 'add', 0.045], ['QLinearMul', 'mul', 0.37]]) {
    await binary(op, `qlinear_${tag}_u8`, 'uint8', [2, 3, 5], [2, 3, 5], [128, 120, 131], [0.02, 0.031, cScale]);
    await binary(op, `qlinear_${tag}_s8_broadcast`, 'int8', [2, 3, 7], [3, 1], [3, -5, -1], [0.017, 0.026, cScale]);
    await binary(op, `qlinear_${tag}_u8_zero_points_0`, 'uint8', [3, 1, 5], [4, 1], [0, 0, 0], [0.011, 0.013, cScale / 4]);
    await binary(op, `qlinear_${tag}_s8_scalar_b_zero_points_0`, 'int8', [5, 9], [], [0, 0, 0], [0.021, 0.05, cScale / 2]);
  }

  // QLinearSigmoid / QLinearLeakyRelu: X, X_scale, X_zero_point, Y_scale, Y_zero_point.
  const unary = (op, name, type, dims, zeros, scales, attrs = {}) => makeCase(name, {
    op, attrs, inputs: [data('X', type, dims), scale('X_scale', scales[0]), zeros ? zero('X_zero_point', type, zeros[0]) : null,
      scale('Y_scale', scales[1], true), zeros ? zero('Y_zero_point', type, zeros[1]) : null],
    constants: ['X_scale', 'X_zero_point', 'Y_scale', 'Y_zero_point'], outputTypes: { Y: type } });
  await unary('QLinearSigmoid', 'qlinear_sigmoid_u8', 'uint8', [3, 7, 11], [128, 0], [0.05, 1 / 256]);
  await unary('QLinearSigmoid', 'qlinear_sigmoid_s8', 'int8', [2, 129], [-3, -128], [0.07, 1 / 255]);
  await unary('QLinearSigmoid', 'qlinear_sigmoid_u8_no_zero_points', 'uint8', [17], null, [0.03, 0.004]);
  await unary('QLinearLeakyRelu', 'qlinear_leaky_relu_u8', 'uint8', [3, 7, 11], [100, 20], [0.04, 0.03], { alpha: { float: 0.1 } });
  await unary('QLinearLeakyRelu', 'qlinear_leaky_relu_s8_default_alpha', 'int8', [2, 129], [10, -2], [0.05, 0.041]);
  await unary('QLinearLeakyRelu', 'qlinear_leaky_relu_s8_no_zero_points', 'int8', [19], null, [0.02, 0.015], { alpha: { float: 0.3 } });
  // QLinearSoftmax: the original Softmax's opset decides the axis semantics (below 13: X coerced to 2-D at axis).
  await unary('QLinearSoftmax', 'qlinear_softmax_u8_opset13', 'uint8', [2, 3, 17], [100, 0], [0.08, 1 / 256], { opset: 13 });
  await unary('QLinearSoftmax', 'qlinear_softmax_s8_opset13_axis1', 'int8', [2, 5, 3], [-4, -128], [0.1, 1 / 256], { opset: 13, axis: 1 });
  await unary('QLinearSoftmax', 'qlinear_softmax_u8_opset11_axis1', 'uint8', [2, 3, 5], [128, 0], [0.05, 1 / 256], { opset: 11, axis: 1 });
  await unary('QLinearSoftmax', 'qlinear_softmax_s8_opset11_default_axis', 'int8', [3, 2, 4], [0, -128], [0.2, 1 / 256], { opset: 11 });

  // QLinearAveragePool / QLinearGlobalAveragePool: X, x_scale, x_zero_point, y_scale, y_zero_point.
  reseed(42);
  const pool = (op, name, type, dims, zeros, scales, attrs) => makeCase(name, {
    op, attrs, inputs: [data('X', type, dims), scale('x_scale', scales[0]), zeros ? zero('x_zero_point', type, zeros[0]) : null,
      scale('y_scale', scales[1]), zeros ? zero('y_zero_point', type, zeros[1]) : null],
    constants: ['x_scale', 'x_zero_point', 'y_scale', 'y_zero_point'], outputTypes: { Y: type } });
  await pool('QLinearAveragePool', 'qlinear_average_pool_u8_pads', 'uint8', [1, 3, 7, 9], [128, 120], [0.02, 0.015],
    { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] });
  await pool('QLinearAveragePool', 'qlinear_average_pool_s8_count_pad_ceil', 'int8', [2, 2, 8, 7], [5, -3], [0.03, 0.02],
    { kernel_shape: [3, 2], strides: [2, 2], pads: [1, 0, 1, 1], ceil_mode: 1, count_include_pad: 1 });
  await pool('QLinearAveragePool', 'qlinear_average_pool_u8_1d_zero_points_0', 'uint8', [1, 4, 11], [0, 0], [0.05, 0.04],
    { kernel_shape: [4], strides: [3] });
  await pool('QLinearAveragePool', 'qlinear_average_pool_s8_channels_last', 'int8', [1, 6, 5, 3], [-7, 4], [0.04, 0.03],
    { kernel_shape: [2, 3], strides: [2, 1], pads: [0, 1, 1, 1], channels_last: 1 });
  await pool('QLinearGlobalAveragePool', 'qlinear_global_average_pool_u8', 'uint8', [2, 5, 7, 7], [130, 125], [0.05, 0.01],
    { channels_last: 0 });
  await pool('QLinearGlobalAveragePool', 'qlinear_global_average_pool_s8_channels_last', 'int8', [2, 3, 5, 6], [-4, 9], [0.06, 0.013],
    { channels_last: 1 });
  await pool('QLinearGlobalAveragePool', 'qlinear_global_average_pool_u8_1d_zero_points_0', 'uint8', [1, 3, 13], [0, 0], [0.02, 0.03], {});

  // QLinearConcat: Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per tensor; one input already in Y's
  // quantization, the others requantized.
  const concat = (name, type, axis, parts, yq) => makeCase(name, {
    op: 'QLinearConcat', attrs: { axis },
    inputs: [scale('Y_scale', yq[0]), zero('Y_zero_point', type, yq[1]),
      ...parts.flatMap(([dims, s, z], k) => [data(`X${k}`, type, dims), scale(`X${k}_scale`, s), zero(`X${k}_zero_point`, type, z)])],
    constants: ['Y_scale', 'Y_zero_point', ...parts.flatMap((p, k) => [`X${k}_scale`, `X${k}_zero_point`])],
    outputTypes: { Y: type } });
  await concat('qlinear_concat_u8_axis1', 'uint8', 1, [[[2, 3, 5], 0.02, 128], [[2, 1, 5], 0.05, 100], [[2, 4, 5], 0.011, 140]], [0.02, 128]);
  await concat('qlinear_concat_s8_last_axis', 'int8', -1, [[[3, 2], 0.03, -10], [[3, 7], 0.013, 6]], [0.025, -2]);

  // QLinearWhere: condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point; all three
  // broadcast, X in Z's quantization already in one case.
  reseed(43);
  const where = (name, type, dims, q) => makeCase(name, {
    op: 'QLinearWhere', inputs: [T('condition', 'bool', dims[0], ints(dims[0], 0, 1)), data('X', type, dims[1]),
      scale('x_scale', q[0][0]), zero('x_zero_point', type, q[0][1]), data('Y', type, dims[2]), scale('y_scale', q[1][0]),
      zero('y_zero_point', type, q[1][1]), scale('z_scale', q[2][0]), zero('z_zero_point', type, q[2][1])],
    constants: ['x_scale', 'x_zero_point', 'y_scale', 'y_zero_point', 'z_scale', 'z_zero_point'], outputs: ['Z'],
    outputTypes: { Z: type } });
  await where('qlinear_where_u8_broadcast', 'uint8', [[3, 1, 5], [4, 5], [3, 4, 1]], [[0.02, 128], [0.05, 100], [0.03, 120]]);
  await where('qlinear_where_s8_same_x', 'int8', [[7], [2, 7], []], [[0.04, -3], [0.01, 9], [0.04, -3]]);
}

module.exports = { generate };
