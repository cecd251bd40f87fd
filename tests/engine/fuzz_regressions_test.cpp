// Inputs the fuzz targets (tests/fuzz, packaging/fuzz.sh) found, each reduced to what it exercised.
#include <gtest/gtest.h>

#include "ir/type.h"
#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"

namespace onyx {
namespace {

// fuzz_shapes: a Reshape whose target dims multiply past int64 overflowed (UBSan: signed overflow in
// staticElementCount); such a shape has no element count.
TEST(FuzzRegressions, ElementCountPastInt64IsUnknown) {
  EXPECT_EQ(staticElementCount({Dim(3), Dim(int64_t(4611686018427387907))}), std::nullopt);
  EXPECT_EQ(staticElementCount({Dim(-1), Dim(int64_t(4611686018427387907)), Dim(4)}), std::nullopt);
  EXPECT_EQ(staticElementCount({Dim(3), Dim(5)}), 15);
}

TEST(FuzzRegressions, ReshapeToDimsPastInt64IsNotAWrappedCount) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x) => (float[4611686018427387907, 3] y) {
  s = Constant <value = int64[2] {4611686018427387907, 3}> ()
  y = Reshape(x, s)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ShapeInference inference = inferShapes(**model);
  for (const Diagnostic& diagnostic : inference.diagnostics)
    EXPECT_EQ(diagnostic.message.find("-4611686018427387895"), std::string::npos) << diagnostic.message;
}

}  // namespace
}  // namespace onyx
