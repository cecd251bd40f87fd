// searchModel: names, op types and shape text, in graph order, into bodies and function bodies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/search.h"
#include "support/explorer_model.h"
#include "onnx/onnx_io.h"

namespace onyx {
namespace {

// "node:/enc/Relu" or "value:mm" for each match, in order.
std::vector<std::string> found(const Model& model, const ShapeInference& shapes, std::string_view query) {
  std::vector<std::string> out;
  for (const SearchMatch& match : searchModel(model, shapes, query))
    out.push_back(match.node ? "node:" + match.node->name() : "value:" + match.value->name());
  return out;
}

using Names = std::vector<std::string>;

class SearchTest : public ::testing::Test {
 protected:
  std::unique_ptr<Model> model = testing::buildExplorerModel();
  ShapeInference shapes = inferShapes(*model);
};

TEST_F(SearchTest, OpTypeWithPrefixIsWholeWord) {
  EXPECT_EQ(found(*model, shapes, "op:Conv"), Names{"node:/img/Conv"});
  EXPECT_EQ(found(*model, shapes, "op:convtranspose"), Names{"node:/img/ConvTranspose"});
}

TEST_F(SearchTest, PlainTextMatchesNamesAndOpTypesBySubstring) {
  EXPECT_EQ(found(*model, shapes, "conv"), (Names{"node:/img/Conv", "node:/img/ConvTranspose"}));
  EXPECT_EQ(found(*model, shapes, "mm"), Names{"value:mm"});
  EXPECT_EQ(found(*model, shapes, "name:RELU"), Names{"node:/enc/Relu"});
}

TEST_F(SearchTest, ShapeDimMatchesWholeDimsInGraphOrder) {
  // Inputs, initializers, then each node's outputs; flat_shape ([2]) and 2560-like dims do not match.
  EXPECT_EQ(found(*model, shapes, "shape:256"),
            (Names{"value:x", "value:w", "value:mm", "value:act", "value:flat"}));
  EXPECT_EQ(found(*model, shapes, "224"), (Names{"value:img", "value:up"}));
  EXPECT_EQ(found(*model, shapes, "shape:22"), Names{});
}

TEST_F(SearchTest, ShapeExpressionsCompareAsExpressions) {
  EXPECT_EQ(found(*model, shapes, "N*S"), Names{"value:flat"});
  EXPECT_EQ(found(*model, shapes, "shape: S * N"), Names{"value:flat"});
}

TEST_F(SearchTest, ShapeFragmentsMatchTheShapeText) {
  EXPECT_EQ(found(*model, shapes, "[N, 3"), Names{"value:img"});
  EXPECT_EQ(found(*model, shapes, "[N,8,222"), Names{"value:feat"});
  EXPECT_EQ(found(*model, shapes, "4, ?]"), Names{"value:nz"});
}

TEST_F(SearchTest, EmptyQueryFindsNothing) {
  EXPECT_TRUE(found(*model, shapes, "").empty());
  EXPECT_TRUE(found(*model, shapes, "  op: ").empty());
}

TEST_F(SearchTest, MatchesRecordTheirField) {
  auto matches = searchModel(*model, shapes, "relu");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].field, SearchField::NodeName);
  matches = searchModel(*model, shapes, "op:Relu");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].field, SearchField::OpType);
  EXPECT_EQ(matches[0].graph, &model->graph());
  matches = searchModel(*model, shapes, "N*S");
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].field, SearchField::Shape);
}

TEST(Search, FindsNodesInBodiesAfterTheirOwner) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
  u = Neg(y)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ShapeInference shapes = inferShapes(**model);
  auto matches = searchModel(**model, shapes, "op:Neg");
  ASSERT_EQ(matches.size(), 2u);
  ASSERT_NE(matches[0].graph->owner(), nullptr);  // the else branch's Neg comes before the main graph's
  EXPECT_EQ(matches[0].graph->owner()->opType(), "If");
  EXPECT_EQ(matches[1].graph, &(*model)->graph());
  auto values = searchModel(**model, shapes, "name:z");
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].value->name(), "z");
  EXPECT_EQ(values[0].graph, matches[0].graph->owner()->attribute("then_branch")->getGraph());
}

}  // namespace
}  // namespace onyx
