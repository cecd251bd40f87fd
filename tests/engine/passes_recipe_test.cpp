// Recipes: the steps of a session as JSON (pass, scope, options), read back and replayed to the same graph;
// bad recipes give errors naming the step.
#include <gtest/gtest.h>

#include "passes/recipe.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 4] x) => (float[N, 12] y) <int64 two = {2}, int64 one = {1}, int64[1] axes = {0}> {
  i = Identity(x)
  s = Shape(i)
  c = Gather(s, one)
  d = Gather(s, two)
  cd = Mul(c, d)
  u = Unsqueeze(cd, axes)
  zero = Constant<value = int64[1] {0}>()
  shape = Concat<axis = 0>(zero, u)
  r = Reshape(i, shape)
  a = Relu(r)
  b = Relu(r)
  t = Add(a, b)
  n = Neg(t)
  y = Exp(n)
})";

TEST(Recipe, JsonRoundTripKeepsPassesScopesAndOptions) {
  Recipe recipe;
  PassOptions options;
  options.bindings["N"] = 2;
  options.rewriteLimit = 3;
  options.constantFoldingSizeLimit = 4096;
  recipe.steps = {{"identity-elimination", "", {}}, {"elementwise-fusion", "/encoder/layer.0", options}};
  std::string json = recipeToJson(recipe);
  auto back = recipeFromJson(json);
  ASSERT_TRUE(back.ok()) << back.error().toString();
  ASSERT_EQ(back->steps.size(), 2u);
  EXPECT_EQ(back->steps[0].pass, "identity-elimination");
  EXPECT_EQ(back->steps[0].scope, "");
  EXPECT_FALSE(back->steps[0].options.rewriteLimit);
  EXPECT_EQ(back->steps[1].pass, "elementwise-fusion");
  EXPECT_EQ(back->steps[1].scope, "/encoder/layer.0");
  EXPECT_EQ(back->steps[1].options.bindings.at("N"), 2);
  EXPECT_EQ(back->steps[1].options.rewriteLimit, 3);
  EXPECT_EQ(back->steps[1].options.constantFoldingSizeLimit, 4096);
  EXPECT_EQ(recipeToJson(*back), json);
}

TEST(Recipe, ReplayGivesTheSameGraphAsTheStepsItRecorded) {
  auto original = parse(kModel);
  PassManager manager(*original);
  PipelineOptions options;
  options.fixpoint = true;
  options.passOptions.bindings["N"] = 1;
  PipelineResult result = manager.run(defaultPipeline(), options);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_GT(result.steps.size(), defaultPipeline().size()) << "a fixpoint run of more than one round";
  Recipe recipe = recipeOfSteps(result.steps, "", options.passOptions);
  auto read = recipeFromJson(recipeToJson(recipe));
  ASSERT_TRUE(read.ok()) << read.error().toString();

  auto replayed = parse(kModel);
  PassManager replay(*replayed);
  PipelineResult again = runRecipe(replay, *read);
  ASSERT_FALSE(again.error) << again.error->toString();
  EXPECT_EQ(again.steps.size(), result.steps.size());
  EXPECT_EQ(printModelText(*replayed), printModelText(*original));
  EXPECT_LT(again.nodesAfter, again.nodesBefore);
}

TEST(Recipe, StepOptionsApply) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  a = Identity(x)
  b = Identity(a)
  y = Identity(b)
})");
  auto recipe = recipeFromJson(R"({"onyx_recipe": 1, "steps": [
      {"pass": "identity-elimination", "options": {"rewrite_limit": 1}}]})");
  ASSERT_TRUE(recipe.ok()) << recipe.error().toString();
  PassManager manager(*model);
  PipelineResult result = runRecipe(manager, *recipe);
  ASSERT_EQ(result.steps.size(), 1u);
  EXPECT_EQ(result.steps[0].rewrites.size(), 1u);
  EXPECT_EQ(model->graph().nodeCount(), 2u);
}

TEST(Recipe, BadRecipesNameTheStep) {
  auto notJson = recipeFromJson("{steps: [");
  ASSERT_FALSE(notJson.ok());
  EXPECT_EQ(notJson.error().message, "the recipe is not JSON");
  auto unknown =
      recipeFromJson(R"({"steps": [{"pass": "dead-code-elimination"}, {"pass": "no-such-pass"}]})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().where, "step 2");
  EXPECT_NE(unknown.error().message.find("unknown pass 'no-such-pass'"), std::string::npos);
  auto badOption =
      recipeFromJson(R"({"steps": [{"pass": "dead-code-elimination", "options": {"rewrite_limit": "3"}}]})");
  ASSERT_FALSE(badOption.ok());
  EXPECT_EQ(badOption.error().where, "step 1");
  EXPECT_NE(badOption.error().message.find("rewrite_limit"), std::string::npos);
  auto noSteps = recipeFromJson(R"({"passes": []})");
  ASSERT_FALSE(noSteps.ok());
  EXPECT_EQ(noSteps.error().message, "the recipe has no \"steps\" list");
}

}  // namespace
}  // namespace onyx::passes::testing
