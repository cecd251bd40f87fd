#include "passes/recipe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace onyx::passes {

namespace {

using Json = nlohmann::json;
constexpr int kRecipeVersion = 1;

Json optionsJson(const PassOptions& options) {
  Json json = Json::object();
  PassOptions defaults;
  if (options.constantFoldingSizeLimit != defaults.constantFoldingSizeLimit)
    json["constant_folding_size_limit"] = options.constantFoldingSizeLimit;
  if (!options.bindings.empty()) {
    Json bindings = Json::object();
    for (const auto& [symbol, value] : options.bindings) bindings[symbol] = value;
    json["bindings"] = bindings;
  }
  if (options.rewriteLimit) json["rewrite_limit"] = *options.rewriteLimit;
  return json;
}

Expected<PassOptions> optionsFromJson(const Json& json, const std::string& where) {
  PassOptions options;
  if (!json.is_object()) return makeError("\"options\" is not an object", where);
  for (const auto& [key, value] : json.items()) {
    if (key == "constant_folding_size_limit" && value.is_number_integer()) {
      options.constantFoldingSizeLimit = value.get<int64_t>();
    } else if (key == "rewrite_limit" && value.is_number_integer() && value.get<int64_t>() >= 0) {
      options.rewriteLimit = value.get<int64_t>();
    } else if (key == "bindings" && value.is_object()) {
      for (const auto& [symbol, bound] : value.items()) {
        if (!bound.is_number_integer()) return makeError("binding '" + symbol + "' is not an integer", where);
        options.bindings[symbol] = bound.get<int64_t>();
      }
    } else {
      return makeError("option '" + key + "' is unknown or of the wrong type", where);
    }
  }
  return options;
}

}  // namespace

std::string recipeToJson(const Recipe& recipe) {
  Json steps = Json::array();
  for (const RecipeStep& step : recipe.steps) {
    Json entry = {{"pass", step.pass}};
    if (!step.scope.empty()) entry["scope"] = step.scope;
    Json options = optionsJson(step.options);
    if (!options.empty()) entry["options"] = options;
    steps.push_back(entry);
  }
  Json json = {{"onyx_recipe", kRecipeVersion}, {"steps", steps}};
  return json.dump(2) + "\n";
}

Expected<Recipe> recipeFromJson(std::string_view text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return makeError("the recipe is not JSON");
  if (!json.is_object() || !json.contains("steps") || !json["steps"].is_array())
    return makeError("the recipe has no \"steps\" list");
  if (json.contains("onyx_recipe") && json["onyx_recipe"] != kRecipeVersion)
    return makeError(fmt::format("recipe version {} is not {}", json["onyx_recipe"].dump(), kRecipeVersion));
  Recipe recipe;
  int number = 0;
  for (const Json& entry : json["steps"]) {
    std::string where = fmt::format("step {}", ++number);
    if (!entry.is_object() || !entry.contains("pass") || !entry["pass"].is_string())
      return makeError("a step needs a \"pass\" name", where);
    RecipeStep step;
    step.pass = entry["pass"].get<std::string>();
    if (!createPass(step.pass))
      return makeError("unknown pass '" + step.pass + "'; `onyx optimize --list` shows the passes", where);
    if (entry.contains("scope")) {
      if (!entry["scope"].is_string()) return makeError("\"scope\" is not a string", where);
      step.scope = entry["scope"].get<std::string>();
    }
    if (entry.contains("options")) {
      auto options = optionsFromJson(entry["options"], where);
      if (!options) return options.error();
      step.options = std::move(*options);
    }
    recipe.steps.push_back(std::move(step));
  }
  return recipe;
}

Recipe recipeOfSteps(const std::vector<PassStep>& steps, const std::string& scope,
                     const PassOptions& options) {
  Recipe recipe;
  for (const PassStep& step : steps) recipe.steps.push_back({step.pass, scope, options});
  return recipe;
}

bool isRecipePath(std::string_view text) {
  return text.ends_with(".json");
}

PipelineResult runRecipe(PassManager& manager, const Recipe& recipe, const PipelineOptions& options) {
  std::vector<std::unique_ptr<Pass>> passes;
  std::vector<PipelineEntry> entries;
  for (const RecipeStep& step : recipe.steps) {
    passes.push_back(createPass(step.pass));
    if (!passes.back()) {
      PipelineResult result;
      result.nodesBefore = result.nodesAfter = countNodes(manager.model());
      result.error = makeError("unknown pass '" + step.pass + "'", "recipe");
      return result;
    }
    entries.push_back({passes.back().get(), step.scope, step.options});
  }
  return manager.runEntries(entries, options);
}

}  // namespace onyx::passes
