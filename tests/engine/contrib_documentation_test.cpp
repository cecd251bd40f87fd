// The documentation of the com.microsoft ops (#22) that the Inspector and `onyx ops NAME` show: every contrib
// op in the catalogue has it, with as many inputs and outputs as its schema allows, every required input within
// the schema's minimum, and attributes by name.
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/op_registry.h"
#include "onnx/op_documentation.h"

namespace onyx {
namespace {

TEST(ContribDocumentation, EveryContribOpInTheCatalogueIsDocumentedConsistently) {
  int documented = 0;
  for (const OpSchema& schema : opRegistry().all()) {
    if (schema.domain != "com.microsoft") continue;
    SCOPED_TRACE(schema.opType);
    auto doc = onnxOpDocumentation("com.microsoft", schema.opType, 1);
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->domain, "com.microsoft");
    EXPECT_EQ(doc->opType, schema.opType);
    EXPECT_FALSE(doc->summary.empty());
    if (schema.maxInputs == OpSchema::kVariadic) {
      ASSERT_FALSE(doc->inputs.empty());
      EXPECT_TRUE(doc->inputs.back().variadic);
    } else {
      EXPECT_EQ(int(doc->inputs.size()), schema.maxInputs);
      // A required input lies within the schema's minimum count (optional ones may sit between, left empty).
      for (size_t i = 0; i < doc->inputs.size(); ++i)
        if (!doc->inputs[i].optional) {
          EXPECT_LT(int(i), schema.minInputs) << doc->inputs[i].name;
        }
    }
    EXPECT_EQ(int(doc->outputs.size()), schema.maxOutputs);
    for (const OpParameterDoc& p : doc->inputs) EXPECT_FALSE(p.name.empty() || p.typeText.empty() || p.description.empty());
    EXPECT_TRUE(std::is_sorted(doc->attributes.begin(), doc->attributes.end(),
                               [](const OpAttributeDoc& a, const OpAttributeDoc& b) { return a.name < b.name; }));
    ++documented;
  }
  EXPECT_GE(documented, 33);
}

TEST(ContribDocumentation, MatMulNBitsTextNamesItsAttributes) {
  auto doc = onnxOpDocumentation("com.microsoft", "MatMulNBits", 1);
  ASSERT_TRUE(doc);
  const std::string text = formatOpDocumentation(*doc);
  EXPECT_NE(text.find("ONNX schema: com.microsoft::MatMulNBits, since opset 1"), std::string::npos) << text;
  EXPECT_NE(text.find("  bits: int = 4 - "), std::string::npos) << text;
  EXPECT_NE(text.find("  block_size: int, required"), std::string::npos) << text;
  EXPECT_NE(text.find("  zero_points (optional): T3"), std::string::npos) << text;
  EXPECT_FALSE(onnxOpDocumentation("com.microsoft", "NotAnOnnxRuntimeOp", 1));
}

}  // namespace
}  // namespace onyx
