// The op documentation read from ONNX's schema registry: what the Inspector shows for a selected node.
#include <gtest/gtest.h>

#include <algorithm>

#include "onnx/op_documentation.h"

namespace onyx {
namespace {

const OpParameterDoc* parameter(const std::vector<OpParameterDoc>& list, std::string_view name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const OpParameterDoc& p) { return p.name == name; });
  return it == list.end() ? nullptr : &*it;
}

const OpAttributeDoc* attribute(const OpDocumentation& doc, std::string_view name) {
  auto it = std::find_if(doc.attributes.begin(), doc.attributes.end(),
                         [&](const OpAttributeDoc& a) { return a.name == name; });
  return it == doc.attributes.end() ? nullptr : &*it;
}

TEST(OpDocumentation, ConvHasItsSummaryInputsOutputsAndAttributes) {
  auto doc = onnxOpDocumentation("", "Conv", 17);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->opType, "Conv");
  EXPECT_EQ(doc->sinceVersion, 11);  // the definition in effect at opset 17
  EXPECT_NE(doc->summary.find("convolution operator"), std::string::npos) << doc->summary;
  EXPECT_EQ(doc->summary.find('\n'), std::string::npos);
  ASSERT_EQ(doc->inputs.size(), 3u);
  EXPECT_EQ(doc->inputs[0].name, "X");
  EXPECT_EQ(doc->inputs[0].typeText, "T");
  EXPECT_NE(doc->inputs[0].allowedTypes.find("tensor(float)"), std::string::npos);
  EXPECT_FALSE(doc->inputs[0].optional);
  ASSERT_TRUE(parameter(doc->inputs, "B"));
  EXPECT_TRUE(parameter(doc->inputs, "B")->optional);
  ASSERT_EQ(doc->outputs.size(), 1u);
  EXPECT_EQ(doc->outputs[0].name, "Y");
  ASSERT_TRUE(attribute(*doc, "group"));
  EXPECT_EQ(attribute(*doc, "group")->type, "int");
  EXPECT_EQ(attribute(*doc, "group")->defaultValue, "1");
  EXPECT_EQ(attribute(*doc, "auto_pad")->defaultValue, "NOTSET");
  EXPECT_EQ(attribute(*doc, "kernel_shape")->type, "ints");
  EXPECT_FALSE(attribute(*doc, "kernel_shape")->description.empty());
}

TEST(OpDocumentation, TheVersionFollowsTheOpset) {
  auto old = onnxOpDocumentation("ai.onnx", "Softmax", 11);
  auto current = onnxOpDocumentation("", "Softmax", 17);
  ASSERT_TRUE(old && current);
  EXPECT_EQ(old->sinceVersion, 11);
  EXPECT_EQ(current->sinceVersion, 13);
  EXPECT_EQ(attribute(*old, "axis")->defaultValue, "1");
  EXPECT_EQ(attribute(*current, "axis")->defaultValue, "-1");
  // Opsets beyond the library's read as its newest definition.
  auto future = onnxOpDocumentation("", "Softmax", 23);
  ASSERT_TRUE(future);
  EXPECT_GE(future->sinceVersion, 13);
}

TEST(OpDocumentation, RequiredAttributesAndVariadicInputs) {
  auto cast = onnxOpDocumentation("", "Cast", 17);
  ASSERT_TRUE(cast);
  ASSERT_TRUE(attribute(*cast, "to"));
  EXPECT_TRUE(attribute(*cast, "to")->required);
  auto concat = onnxOpDocumentation("", "Concat", 17);
  ASSERT_TRUE(concat);
  ASSERT_EQ(concat->inputs.size(), 1u);
  EXPECT_TRUE(concat->inputs[0].variadic);
}

TEST(OpDocumentation, UnknownOpsAndDomainsHaveNone) {
  EXPECT_FALSE(onnxOpDocumentation("", "NoSuchOp", 17));
  EXPECT_FALSE(onnxOpDocumentation("com.acme", "Conv", 1));
}

TEST(OpDocumentation, TheTextListsEverySection) {
  auto doc = onnxOpDocumentation("", "Gemm", 17);
  ASSERT_TRUE(doc);
  const std::string text = formatOpDocumentation(*doc);
  EXPECT_NE(text.find("ONNX schema: ai.onnx::Gemm, since opset 13"), std::string::npos) << text;
  EXPECT_NE(text.find("inputs:\n  A: T"), std::string::npos) << text;
  EXPECT_NE(text.find("  C (optional): T"), std::string::npos) << text;
  EXPECT_NE(text.find("  alpha: float = 1"), std::string::npos) << text;
  EXPECT_NE(text.find("  transA: int = 0"), std::string::npos) << text;
}

}  // namespace
}  // namespace onyx
