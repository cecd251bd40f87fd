// Runs flush denormal floats to zero (exec/cpu/denormals.h) on the caller and the threads that share its
// loops, and give the caller its own floating-point mode back after the run.
#include <gtest/gtest.h>

#include <vector>

#include "exec/cpu/denormals.h"
#include "exec_kernel_test_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

namespace onyx::exec {
namespace {

TEST(ExecDenormals, RunsFlushDenormalsToZeroOnEveryThreadAndRestoreTheCallersMode) {
  if (!flushDenormalsByDefault()) GTEST_SKIP() << "ONYX_KEEP_DENORMALS=1 keeps denormals";
  const unsigned before = _mm_getcsr();
  // 1e-20 squared is 1e-40, a denormal: 0 when flushed. 2^20 elements split between the two threads.
  const size_t count = size_t(1) << 20;
  const TensorValue tiny = TensorValue::fromVector<float>(DataType::Float, {int64_t(count)}, std::vector<float>(count, 1e-20f));
  auto ran = testing::runNode({"Mul"}, {tiny, tiny}, "", 2);
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  const auto& product = std::get<TensorValue>((*ran)[0]);
  size_t nonzero = 0;
  for (size_t i = 0; i < count; ++i) nonzero += product.data<float>()[i] != 0.0f;
  EXPECT_EQ(nonzero, 0u);
  // A denormal input reads as 0 (DAZ): 1e-40 * 1e30 is 0, not 1e-10.
  const float denormal = 1e-40f;
  auto scaled = testing::runNode({"Mul"}, {TensorValue::fromVector<float>(DataType::Float, {1}, {denormal}),
                                           TensorValue::fromVector<float>(DataType::Float, {1}, {1e30f})},
                                 "", 2);
  ASSERT_TRUE(scaled.ok()) << scaled.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*scaled)[0]).data<float>()[0], 0.0f);
  // The caller's mode is its own again: here denormals survive. (Bits 0-5 are sticky exception flags that
  // any inexact operation raises, the test's own included: only the control bits are compared.)
  constexpr unsigned kControlBits = ~0x3Fu;
  EXPECT_EQ(_mm_getcsr() & kControlBits, before & kControlBits);
  volatile float a = 1e-20f;
  EXPECT_NE(a * a, 0.0f);
}

}  // namespace
}  // namespace onyx::exec
#endif
