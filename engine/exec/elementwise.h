#pragma once
// Broadcasting element-wise loops shared by arithmetic, comparison and logic kernels. Shapes are collapsed
// so that the innermost run has each input stepping by 1 or 0 (broadcast): those loops vectorise.
#include <algorithm>
#include <cmath>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/half_convert.h"
#include "exec/kernel_util.h"

namespace onyx::exec {

struct BinaryLayout {
  Dims outDims;
  int64_t inner = 1;                 // innermost run length
  int64_t strideA = 1, strideB = 1;  // 0 or 1 along the run
  Dims outer;                        // collapsed outer dims
  std::vector<int64_t> outerStrideA, outerStrideB;
  int64_t outerCount = 1;
};

std::optional<BinaryLayout> binaryLayout(const Dims& a, const Dims& b);

// Where outer row o starts in a and in b.
inline void outerRowOffsets(const BinaryLayout& l, int64_t o, int64_t& offA, int64_t& offB) {
  offA = offB = 0;
  for (size_t d = l.outer.size(); d-- > 0;) {
    const int64_t i = o % l.outer[d];
    o /= l.outer[d];
    offA += i * l.outerStrideA[d];
    offB += i * l.outerStrideB[d];
  }
}

// Rows a thread takes at a time, or 0 when the whole product runs on the caller (under 32768 outputs).
inline int64_t binaryRowGrain(const BinaryLayout& l) {
  return l.outerCount * l.inner < 32768 ? 0 : std::max<int64_t>(1, 16384 / std::max<int64_t>(l.inner, 1));
}

// binaryLoop for float Add, Sub, Mul and Div through fastArithRows (vectorised per instruction set), with
// each chunk's rows taken a run of the innermost outer dim at a time: binaryLoop finds every row's offsets by
// division, which cost more than the row itself for channels-last rows of 16-64 floats (efficientnet_b0's
// squeeze-excitation Muls).
void arithLoop(const KernelContext& ctx, const BinaryLayout& l, Arith op, const float* a, const float* b, float* y);

// y[i] = op(a[..], b[..]) over the broadcast of a and b, in parallel over outer rows.
template <class A, class B, class Y, class Op>
void binaryLoop(const KernelContext& ctx, const BinaryLayout& l, const A* a, const B* b, Y* y, Op op) {
  int64_t inner = l.inner;
  auto row = [&](int64_t o) {
    int64_t offA, offB;
    outerRowOffsets(l, o, offA, offB);
    const A* pa = a + offA;
    const B* pb = b + offB;
    Y* py = y + o * inner;
    if (l.strideA && l.strideB) {
      for (int64_t i = 0; i < inner; ++i) py[i] = op(pa[i], pb[i]);
    } else if (l.strideA) {
      const B vb = pb[0];
      for (int64_t i = 0; i < inner; ++i) py[i] = op(pa[i], vb);
    } else if (l.strideB) {
      const A va = pa[0];
      for (int64_t i = 0; i < inner; ++i) py[i] = op(va, pb[i]);
    } else {
      for (int64_t i = 0; i < inner; ++i) py[i] = op(pa[0], pb[0]);
    }
  };
  const int64_t grain = binaryRowGrain(l);
  if (grain == 0) {
    for (int64_t o = 0; o < l.outerCount; ++o) row(o);
    return;
  }
  ctx.parallelFor(l.outerCount, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) row(o);
  });
}

// A float16 operation computed in float32: a and b widened once (F16C), `loop(fa, fb, fy)` runs the float
// loop, and fy is narrowed into y. Through Half, every element paid a conversion call per operand
// (bert_small_ortopt_fp16's embedding Add, 32K elements: 185 us).
template <class Loop>
void throughFloats(const TensorValue& a, const TensorValue& b, TensorValue& y, Loop loop) {
  std::vector<float> fa(size_t(a.count())), fb(size_t(b.count())), fy(size_t(y.count()));
  halvesToFloats(a.data<uint16_t>(), fa.data(), a.count());
  halvesToFloats(b.data<uint16_t>(), fb.data(), b.count());
  loop(fa.data(), fb.data(), fy.data());
  floatsToHalves(fy.data(), y.data<uint16_t>(), y.count());
}

}  // namespace onyx::exec
