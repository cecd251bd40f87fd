#pragma once
// A recipe: the steps of an optimization session (pass names, scopes, options) as a small JSON file that
// `onyx optimize IN -o OUT --pipeline recipe.json` and the passes dock replay:
//   {"onyx_recipe": 1, "steps": [{"pass": "conv-bn-fusion"},
//                                {"pass": "elementwise-fusion", "scope": "/encoder/layer.0",
//                                 "options": {"bindings": {"batch": 1}, "rewrite_limit": 3}}]}
// Options a step leaves out have their defaults (PassOptions).
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass_manager.h"

namespace onyx::passes {

struct RecipeStep {
  std::string pass;
  std::string scope;  // "" the whole model
  PassOptions options;
};

struct Recipe {
  std::vector<RecipeStep> steps;
};

std::string recipeToJson(const Recipe& recipe);
// Errors name the step ("step 3"): not JSON, a pass that is not registered, an option of the wrong type.
Expected<Recipe> recipeFromJson(std::string_view text);

// The steps a pipeline applied (every round of a fixpoint run), all with the pipeline's scope and options:
// replaying it applies the same passes in the same order.
Recipe recipeOfSteps(const std::vector<PassStep>& steps, const std::string& scope,
                     const PassOptions& options);

// Whether `text` looks like a recipe rather than a pipeline name (`--pipeline default`): a path ending in
// .json.
bool isRecipePath(std::string_view text);

// Replays the recipe's steps in order, each with its own scope and options; `options` gives the rest
// (verification, measuring, fixpoint rounds). Its scope and passOptions are not used.
PipelineResult runRecipe(PassManager& manager, const Recipe& recipe, const PipelineOptions& options = {});

}  // namespace onyx::passes
