// summarizeModel gathers what `onyx info` prints; the JSON writer escapes whatever a model file holds.
#include <gtest/gtest.h>

#include "analysis/model_info.h"
#include "ir/rewriter.h"
#include "util/json_writer.h"

namespace onyx {
namespace {

// Node ids follow creation order: the inner If's bodies are built first, so the outer If is #10.
// A model touching every section: metadata, an initializer listed as input, external data, a custom-domain
// op, nested If bodies and a local function.
struct TinyModel {
  Model model;
  Rewriter rw{model};
  Graph& g = model.graph();

  TinyModel() {
    model.irVersion = 8;
    model.producerName = "unit";
    model.producerVersion = "1.0";
    model.domain = "test.models";
    model.modelVersion = 3;
    model.opsetImports = {{"", 17}, {"com.microsoft", 1}};
    model.metadata = {{"author", "me"}, {"license", "MIT"}};
    rw.setGraphMetadata(g, "tiny", "", "");

    Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim::symbol("N"), 4}));
    Value* cond = rw.addGraphInput(g, "cond", Type::tensor(DataType::Bool, Shape{}));
    Value* bias = rw.addGraphInput(g, "bias", Type::tensor(DataType::Float, Shape{4}));
    rw.setInitializer(bias, Tensor::fromValues<float>(DataType::Float, {4}, {0, 0, 0, 0}));
    Value* w = rw.addInitializer(g, "w", Tensor::fromValues<float>(DataType::Float, {4}, {1, 2, 3, 4}));
    Value* big =
        rw.addInitializer(g, "big", Tensor::external(DataType::Float16, {16, 4}, {.location = "tiny.bin"}));
    Value* ids = rw.addInitializer(g, "ids", Tensor::fromValues<int64_t>(DataType::Int64, {3}, {7, 8, 9}));

    Node* mul =
        rw.addNode(g, {.opType = "Mul", .name = "/block/Mul", .inputs = {x, w}, .outputNames = {"m"}});
    Node* add = rw.addNode(
        g, {.opType = "Add", .name = "/block/Add", .inputs = {mul->output(0), bias}, .outputNames = {"a"}});
    Node* relu = rw.addNode(g, {.opType = "Relu", .inputs = {add->output(0)}, .outputNames = {"r"}});
    Node* relu2 = rw.addNode(g, {.opType = "Relu", .inputs = {relu->output(0)}, .outputNames = {"r2"}});
    Node* gather = rw.addNode(g, {.opType = "Gather", .inputs = {big, ids}, .outputNames = {"rows"}});
    Node* fused = rw.addNode(g, {.opType = "FusedGemm",
                                 .domain = "com.microsoft",
                                 .name = "/head/FusedGemm",
                                 .inputs = {relu2->output(0), gather->output(0)},
                                 .outputNames = {"y"}});

    auto inner = std::make_shared<Graph>(&model, &g);
    Node* identity = rw.addNode(*inner, {.opType = "Identity", .inputs = {x}, .outputNames = {"ix"}});
    rw.setGraphOutputs(*inner, {identity->output(0)});
    auto innerElse = std::make_shared<Graph>(&model, &g);
    rw.setGraphOutputs(*innerElse, {x});
    auto thenBody = std::make_shared<Graph>(&model, &g);
    Node* neg = rw.addNode(*thenBody, {.opType = "Neg", .inputs = {x}, .outputNames = {"nx"}});
    rw.addInitializer(*thenBody, "scale", Tensor::fromValues<float>(DataType::Float, {2}, {1, 2}));
    rw.addNode(*thenBody, {.opType = "If",
                           .name = "/cond/inner/If",
                           .inputs = {cond},
                           .outputNames = {"io"},
                           .attributes = {Attribute::ofGraph("then_branch", inner),
                                          Attribute::ofGraph("else_branch", innerElse)}});
    rw.setGraphOutputs(*thenBody, {neg->output(0)});
    auto elseBody = std::make_shared<Graph>(&model, &g);
    rw.setGraphOutputs(*elseBody, {x});
    Node* branch = rw.addNode(g, {.opType = "If",
                                  .name = "/cond/If",
                                  .inputs = {cond},
                                  .outputNames = {"z"},
                                  .attributes = {Attribute::ofGraph("then_branch", thenBody),
                                                 Attribute::ofGraph("else_branch", elseBody)}});
    rw.setGraphOutputs(g, {fused->output(0), branch->output(0)});

    auto square = std::make_shared<Function>();
    square->domain = "local";
    square->name = "Square";
    square->body = std::make_shared<Graph>(&model);
    Value* in = rw.addGraphInput(*square->body, "in", Type());
    rw.addNode(*square->body, {.opType = "Mul", .inputs = {in, in}, .outputNames = {"out"}});
    model.functions.push_back(square);
  }
};

TEST(ModelInfo, SummarizesEverySection) {
  TinyModel tiny;
  ModelInfo info = summarizeModel(tiny.model);
  EXPECT_EQ(info.nodeCount, 7);
  ASSERT_EQ(info.inputs.size(), 2u) << "bias has an initializer: a parameter, not an input";
  EXPECT_EQ(info.inputs[0].type, "float32[N, 4]");
  EXPECT_EQ(info.outputs[1].type, "?");
  // w (4) + bias (4) + big (64) + ids (3) + scale in the then branch (2)
  EXPECT_EQ(info.initializerCount, 5);
  EXPECT_EQ(info.parameterCount, 77);
  EXPECT_EQ(info.parameterBytes, 16 + 16 + 128 + 24 + 8);
  ASSERT_EQ(info.subgraphs.size(), 4u);
  EXPECT_EQ(info.subgraphNodeCount, 3);
  EXPECT_EQ(info.subgraphs[1].depth, 2);
}

TEST(ModelInfo, TextMatchesExactly) {
  TinyModel tiny;
  EXPECT_EQ(formatModelInfoText(summarizeModel(tiny.model)),
            "Model\n"
            "  IR version:     8\n"
            "  Producer:       unit 1.0\n"
            "  Domain:         test.models\n"
            "  Model version:  3\n"
            "  Graph name:     tiny\n"
            "  Opsets:         ai.onnx 17, com.microsoft 1\n"
            "  Metadata:       2 entries\n"
            "    author:   me\n"
            "    license:  MIT\n"
            "\n"
            "Inputs (2)\n"
            "  x     float32[N, 4]\n"
            "  cond  bool[]\n"
            "\n"
            "Outputs (2)\n"
            "  y  ?\n"
            "  z  ?\n"
            "\n"
            "Nodes (7)\n"
            "  Relu                      2\n"
            "  Add                       1\n"
            "  Gather                    1\n"
            "  If                        1\n"
            "  Mul                       1\n"
            "  com.microsoft::FusedGemm  1\n"
            "\n"
            "Subgraphs (4, 3 nodes)\n"
            "  If '/cond/If' (#10)         then_branch  2 nodes\n"
            "    If '/cond/inner/If' (#9)  then_branch   1 node\n"
            "    If '/cond/inner/If' (#9)  else_branch  0 nodes\n"
            "  If '/cond/If' (#10)         else_branch  0 nodes\n"
            "\n"
            "Parameters\n"
            "  Initializers:   5\n"
            "  Elements:       77\n"
            "  Bytes:          192 (192 B)\n"
            "  External data:  1 file\n"
            "    tiny.bin  1 tensor  128 bytes\n"
            "\n"
            "Functions (1)\n"
            "  local::Square  1 node\n");
}

TEST(ModelInfo, EmptyModelSaysNone) {
  Model model;
  EXPECT_EQ(formatModelInfoText(summarizeModel(model)),
            "Model\n"
            "  IR version:     8\n"
            "  Producer:       (none)\n"
            "  Domain:         (none)\n"
            "  Model version:  0\n"
            "  Graph name:     (none)\n"
            "  Opsets:         (none)\n"
            "  Metadata:       (none)\n"
            "\n"
            "Inputs (0)\n"
            "  (none)\n"
            "\n"
            "Outputs (0)\n"
            "  (none)\n"
            "\n"
            "Nodes (0)\n"
            "  (none)\n"
            "\n"
            "Subgraphs (0, 0 nodes)\n"
            "  (none)\n"
            "\n"
            "Parameters\n"
            "  Initializers:   0\n"
            "  Elements:       0\n"
            "  Bytes:          0 (0 B)\n"
            "  External data:  (none)\n"
            "\n"
            "Functions (0)\n"
            "  (none)\n");
}

TEST(ModelInfo, JsonListsTheSameFacts) {
  TinyModel tiny;
  std::string json = formatModelInfoJson(summarizeModel(tiny.model));
  EXPECT_NE(json.find("\"producer\": {\n    \"name\": \"unit\",\n    \"version\": \"1.0\"\n  }"),
            std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          "{\n      \"domain\": \"com.microsoft\",\n      \"opType\": \"FusedGemm\",\n      \"count\": 1\n"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          "\"parameters\": {\n    \"initializerCount\": 5,\n    \"elements\": 77,\n    \"bytes\": 192\n"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("\"owner\": \"If '/cond/inner/If' (#9)\""), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');
}

TEST(ModelInfo, HumanNumbers) {
  EXPECT_EQ(groupThousands(0), "0");
  EXPECT_EQ(groupThousands(999), "999");
  EXPECT_EQ(groupThousands(1000), "1,000");
  EXPECT_EQ(groupThousands(-1234567), "-1,234,567");
  EXPECT_EQ(humanBytes(1023), "1023 B");
  EXPECT_EQ(humanBytes(1024), "1.0 KiB");
  EXPECT_EQ(humanBytes(5 * 1024 * 1024 + 512 * 1024), "5.5 MiB");
  EXPECT_EQ(humanBytes(int64_t(3) << 40), "3.0 TiB");
}

TEST(JsonWriter, EscapesControlQuotesAndInvalidUtf8) {
  EXPECT_EQ(jsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(jsonQuote("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
  EXPECT_EQ(jsonQuote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(jsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(jsonQuote(std::string("nul\0byte", 8)), "\"nul\\u0000byte\"");
  EXPECT_EQ(jsonQuote("h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"")
      << "valid UTF-8 passes through";
  EXPECT_EQ(jsonQuote("\xFF"), "\"\xEF\xBF\xBD\"");
  EXPECT_EQ(jsonQuote("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"") << "overlong form";
  EXPECT_EQ(jsonQuote("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"") << "surrogate";
  EXPECT_EQ(jsonQuote("ab\xE2\x82"), "\"ab\xEF\xBF\xBD\xEF\xBF\xBD\"") << "truncated at the end";
}

TEST(JsonWriter, PrettyAndCompactLayouts) {
  auto build = [](JsonWriter& json) {
    json.beginObject().member("s", "x").member("i", -3).member("u", uint64_t(18446744073709551615u));
    json.member("d", 0.1).member("inf", 1.0 / 0.0).member("b", true).key("n").null();
    json.key("empty").beginArray().endArray();
    json.key("list").beginArray().value(1).beginObject().endObject().endArray();
    json.endObject();
  };

  JsonWriter compact(JsonWriter::Style::Compact);
  build(compact);
  EXPECT_TRUE(compact.complete());
  EXPECT_EQ(
      compact.str(),
      R"({"s":"x","i":-3,"u":18446744073709551615,"d":0.1,"inf":null,"b":true,"n":null,"empty":[],"list":[1,{}]})");
  JsonWriter pretty;
  build(pretty);
  EXPECT_EQ(
      pretty.str(),
      "{\n  \"s\": \"x\",\n  \"i\": -3,\n  \"u\": 18446744073709551615,\n  \"d\": 0.1,\n  \"inf\": null,\n"
      "  \"b\": true,\n  \"n\": null,\n  \"empty\": [],\n  \"list\": [\n    1,\n    {}\n  ]\n}");
  JsonWriter scalar;
  scalar.value(2.5);
  EXPECT_EQ(scalar.str(), "2.5");
  EXPECT_TRUE(scalar.complete());
}

}  // namespace
}  // namespace onyx
