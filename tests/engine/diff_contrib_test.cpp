// The graph diff on ONNX Runtime's com.microsoft ops (#22): an op that moves between com.microsoft and ai.onnx
// is a change of op, an attribute of a contrib op is compared like any other, and a model of contrib ops
// against a second parse of itself has no changes.
#include <gtest/gtest.h>

#include "diff/diff_format.h"
#include "diff/graph_diff.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx::diff {
namespace {

std::unique_ptr<Model> parse(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return model.ok() ? std::move(*model) : std::make_unique<Model>();
}

std::string contribModel(const std::string& gelu, int64_t blockSize) {
  return R"(
<ir_version: 8, opset_import: ["" : 20, "com.microsoft" : 1]>
g (float[N, 16] x, uint8[8, 1, 8] q4, float[8] scales) => (float[N, 8] y) {
  a = Relu(x)
  b = )" + gelu + R"( (a)
  c = com.microsoft.MatMulNBits <K = 16, N = 8, bits = 4, block_size = )" + std::to_string(blockSize) + R"(> (b, q4, scales)
  y = Neg(c)
})";
}

TEST(DiffContrib, AContribModelAgainstASecondParseHasNoChanges) {
  auto a = parse(contribModel("com.microsoft.Gelu", 16));
  auto b = parse(contribModel("com.microsoft.Gelu", 16));
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_TRUE(diff.empty()) << formatDiffText(diff);
}

// Unnamed, the two Gelus are different nodes (one removed, one added, as for any change of op); named alike,
// one node whose op changed.
TEST(DiffContrib, GeluMovingFromComMicrosoftToAiOnnxIsAnotherOp) {
  auto a = parse(contribModel("com.microsoft.Gelu", 16));
  auto b = parse(contribModel("Gelu", 16));
  const std::string unnamed = formatDiffText(diffModels(*a, *b, MatchBy::Structure));
  EXPECT_NE(unnamed.find("- node com.microsoft::Gelu (#2)"), std::string::npos) << unnamed;
  EXPECT_NE(unnamed.find("+ node Gelu (#2)"), std::string::npos) << unnamed;

  for (Model* model : {a.get(), b.get()}) {
    Value* gelu = model->graph().findValue("b");
    ASSERT_TRUE(gelu && gelu->producer());
    Rewriter(*model).renameNode(gelu->producer(), "gelu");
  }
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  ASSERT_EQ(diff.changes.size(), 1u) << formatDiffText(diff);
  EXPECT_EQ(diff.changes[0].kind, ChangeKind::NodeOpChanged);
  EXPECT_EQ(diff.changes[0].before, "com.microsoft::Gelu");
  EXPECT_EQ(diff.changes[0].after, "Gelu");
}

TEST(DiffContrib, AContribAttributeChangeIsReportedWithItsValues) {
  auto a = parse(contribModel("com.microsoft.Gelu", 16));
  auto b = parse(contribModel("com.microsoft.Gelu", 8));
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  ASSERT_EQ(diff.changes.size(), 1u) << formatDiffText(diff);
  const Change& change = diff.changes[0];
  EXPECT_EQ(change.kind, ChangeKind::AttributeChanged);
  EXPECT_EQ(change.item, "block_size");
  EXPECT_EQ(change.before, "16");
  EXPECT_EQ(change.after, "8");
}

}  // namespace
}  // namespace onyx::diff
