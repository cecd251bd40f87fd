// Cases for the com.microsoft QLinear* element-wise ops of ONNX Runtime's static quantizer (QOperator format): uint8 and
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
}

module.exports = { generate };
