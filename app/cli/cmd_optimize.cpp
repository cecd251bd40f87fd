// `onyx optimize IN -o OUT [--passes a,b,c | --pipeline default|RECIPE.json] [--fixpoint] [--list] [--verify]
// [--json] [--scope PATH] [--save-recipe FILE] [--measure] [--bisect] [--rewrites K]`: runs passes through
// the pass manager and prints, per pass, its counters, the candidates it skipped and why, the node count
// before and after, with --verify the worst error per output, with --measure what each step costs to run
// and with --rewrites each rewrite. --bisect finds the step and the rewrite that break the outputs instead
// (optimize_debug.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/optimize_debug.h"
#include "exec/compare.h"
#include "ir/verify.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "passes/recipe.h"
#include "cli/output_paths.h"
#include "util/json_writer.h"

namespace onyx::cli {

namespace {

struct OptimizeArguments {
  std::string in;
  std::string out;
  std::string passes;
  std::string pipeline;
  std::string scope;
  std::string inputs;
  std::string saveRecipe;
  std::string bind;
  double rtol = 1e-4;
  double atol = 1e-5;
  int runs = 5;
  bool measure = false;
  bool bisect = false;
  bool fixpoint = false;
  bool list = false;
  bool verify = false;
  bool json = false;
  bool time = false;
  int maxSkips = 5;
  int rewrites = -1;  // --rewrites: each pass stops after this many rewrites (-1: no limit)
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

int printList(bool json) {
  const auto& registry = passes::passRegistry();
  if (json) {
    std::cout << "{\"passes\":[";
    for (size_t i = 0; i < registry.size(); ++i)
      std::cout << (i ? "," : "") << "{\"name\":" << jsonQuote(registry[i].name)
                << ",\"summary\":" << jsonQuote(registry[i].summary) << "}";
    std::cout << "],\"default_pipeline\":[";
    const auto& pipeline = passes::defaultPipeline();
    for (size_t i = 0; i < pipeline.size(); ++i) std::cout << (i ? "," : "") << jsonQuote(pipeline[i]);
    std::cout << "]}\n";
    return kExitOk;
  }
  size_t width = 0;
  for (const auto& info : registry) width = std::max(width, info.name.size());
  for (const auto& info : registry) std::cout << fmt::format("{:<{}}  {}\n", info.name, width, info.summary);
  std::cout << "default pipeline:";
  for (const std::string& name : passes::defaultPipeline()) std::cout << " " << name;
  std::cout << "\n";
  return kExitOk;
}

void printStepText(const passes::PassStep& step, const OptimizeArguments& args) {
  std::cout << fmt::format("{}{}: {}, nodes {} -> {}",
                           step.round > 1 ? fmt::format("round {}: ", step.round) : "", step.pass,
                           step.changed ? "changed" : "no change", step.nodesBefore, step.nodesAfter);
  if (args.time) std::cout << fmt::format(", {:.2f} ms", step.milliseconds);
  std::cout << "\n";
  for (const auto& counter : step.counters)
    std::cout << fmt::format("  {}: {}\n", counter.name, counter.count);
  for (size_t i = 0; i < step.skips.size() && int(i) < args.maxSkips; ++i)
    std::cout << fmt::format("  skipped {}: {}\n", step.skips[i].where, step.skips[i].reason);
  if (int(step.skips.size()) > args.maxSkips)
    std::cout << fmt::format("  ... {} more skipped (--json lists them all)\n",
                             step.skips.size() - size_t(args.maxSkips));
  if (args.rewrites >= 0) {
    for (const auto& rewrite : step.rewrites) std::cout << "  " << rewriteText(rewrite) << "\n";
    if (step.stoppedAtRewriteLimit)
      std::cout << fmt::format("  stopped after {} rewrites (--rewrites)\n", args.rewrites);
    if (step.changed && step.rewrites.empty())
      std::cout << "  the pass does not count single rewrites: --rewrites does not limit it\n";
  }
  if (step.verification) {
    if (!step.verification->ran)
      std::cout << "  verify: not run: " << step.verification->notRunReason << "\n";
    for (const auto& output : step.verification->outputs)
      std::cout << fmt::format("  verify '{}': max abs error {:.3g}, max rel error {:.3g}\n", output.output,
                               output.maxAbsError, output.maxRelError);
  }
}

std::string stepJson(const passes::PassStep& step, const OptimizeArguments& args) {
  std::string json =
      fmt::format("{{\"pass\":{},\"round\":{},\"changed\":{},\"nodes_before\":{},\"nodes_after\":{}",
                  jsonQuote(step.pass), step.round, step.changed, step.nodesBefore, step.nodesAfter);
  if (args.time) json += fmt::format(",\"ms\":{:.3f}", step.milliseconds);
  json += ",\"counters\":{";
  for (size_t i = 0; i < step.counters.size(); ++i)
    json += fmt::format("{}{}:{}", i ? "," : "", jsonQuote(step.counters[i].name), step.counters[i].count);
  json += "},\"skips\":[";
  for (size_t i = 0; i < step.skips.size(); ++i)
    json += fmt::format("{}{{\"node\":{},\"reason\":{}}}", i ? "," : "", jsonQuote(step.skips[i].where),
                        jsonQuote(step.skips[i].reason));
  json += "]";
  if (args.rewrites >= 0) {
    json += ",\"rewrites\":[";
    for (size_t i = 0; i < step.rewrites.size(); ++i) json += (i ? "," : "") + rewriteJson(step.rewrites[i]);
    json += fmt::format("],\"stopped_at_rewrite_limit\":{}", step.stoppedAtRewriteLimit);
  }
  if (step.verification) {
    json += fmt::format(",\"verify\":{{\"ran\":{}", step.verification->ran);
    if (!step.verification->ran) json += ",\"reason\":" + jsonQuote(step.verification->notRunReason);
    json += ",\"outputs\":[";
    for (size_t i = 0; i < step.verification->outputs.size(); ++i) {
      const auto& o = step.verification->outputs[i];
      json += fmt::format("{}{{\"output\":{},\"max_abs_error\":{},\"max_rel_error\":{},\"ok\":{}}}",
                          i ? "," : "", jsonQuote(o.output), o.maxAbsError, o.maxRelError, o.ok);
    }
    json += "]}";
  }
  if (step.cost) json += ",\"cost\":" + costJson(*step.cost);
  return json + "}";
}

// The pipeline to run: --passes, a recipe file, or the default pipeline.
Expected<passes::Recipe> chosenRecipe(const OptimizeArguments& args) {
  if (passes::isRecipePath(args.pipeline)) {
    std::ifstream file(args.pipeline, std::ios::binary);
    if (!file) return makeError("cannot read the recipe", args.pipeline);
    std::stringstream text;
    text << file.rdbuf();
    auto recipe = passes::recipeFromJson(text.str());
    if (!recipe) return makeError(recipe.error().message, args.pipeline + ": " + recipe.error().where);
    return recipe;
  }
  std::vector<std::string> names = args.passes.empty() ? passes::defaultPipeline() : splitList(args.passes);
  passes::PassOptions options;
  if (args.rewrites >= 0) options.rewriteLimit = args.rewrites;
  passes::Recipe recipe;
  for (const std::string& name : names) recipe.steps.push_back({name, args.scope, options});
  return recipe;
}

int bisect(const OptimizeArguments& args, const Model& model, const passes::Recipe& recipe) {
  auto inputs = debugInputs(model, args.in, args.inputs, args.bind);
  if (!inputs) return reportError(args.in, inputs.error());
  passes::BisectOptions options;
  options.inputs = inputs->inputs;
  options.bindings = inputs->bindings;
  options.rtol = args.rtol;
  options.atol = args.atol;
  options.fixpoint = args.fixpoint;
  std::vector<passes::BisectStep> steps;
  for (const auto& step : recipe.steps)
    steps.push_back({[name = step.pass] { return passes::createPass(name); }, step.scope, step.options});
  auto result = passes::bisectPipeline(model, steps, options);
  if (!result) return reportError(args.in, result.error());
  printBisect(*result, options, *inputs, steps.size(), args.json);
  return std::cout.flush() ? kExitOk : kExitBadInput;
}

void printResult(const OptimizeArguments& args, const passes::PipelineResult& result) {
  if (args.json) {
    std::string json = fmt::format("{{\"model\":{},\"nodes_before\":{},\"nodes_after\":{},\"rounds\":{}",
                                   jsonQuote(args.in), result.nodesBefore, result.nodesAfter, result.rounds);
    if (args.fixpoint) json += fmt::format(",\"fixpoint\":{}", result.reachedFixpoint);
    if (result.baseline) json += ",\"original\":" + costJson(*result.baseline);
    json += ",\"steps\":[";
    for (size_t i = 0; i < result.steps.size(); ++i) json += (i ? "," : "") + stepJson(result.steps[i], args);
    json += "]";
    if (!result.error) json += ",\"output\":" + jsonQuote(args.out);
    std::cout << json << "}\n";
    return;
  }
  for (const auto& step : result.steps) printStepText(step, args);
  std::cout << fmt::format(
      "nodes: {} -> {} ({} steps, {} {}{})\n", result.nodesBefore, result.nodesAfter, result.steps.size(),
      result.rounds, result.rounds == 1 ? "round" : "rounds",
      args.fixpoint ? (result.reachedFixpoint ? ", fixpoint reached" : ", round limit reached") : "");
  if (args.measure) printMeasureTable(result);
}

int optimize(const OptimizeArguments& args) {
  if (args.list) return printList(args.json);
  if (args.in.empty() || (args.out.empty() && !args.bisect)) {
    std::cerr << "error: give IN and -o OUT (or --list)\n";
    return kExitUsage;
  }
  if (!args.pipeline.empty() && args.pipeline != "default" && !passes::isRecipePath(args.pipeline)) {
    std::cerr << "error: unknown pipeline '" << args.pipeline
              << "'; give 'default' or a recipe file ending in .json\n";
    return kExitUsage;
  }
  if (args.rewrites >= 0 && passes::isRecipePath(args.pipeline)) {
    std::cerr << "error: --rewrites limits --passes or the default pipeline; a recipe step has its own "
                 "rewrite_limit\n";
    return kExitUsage;
  }
  if (args.passes.size() && passes::isRecipePath(args.pipeline)) {
    std::cerr << "error: --passes and a recipe exclude each other\n";
    return kExitUsage;
  }
  if (auto unknown = passes::unknownPasses(splitList(args.passes)); !unknown.empty()) {
    std::cerr << "error: unknown pass '" << unknown.front() << "'; `onyx optimize --list` shows the passes\n";
    return kExitUsage;
  }
  auto recipe = chosenRecipe(args);
  if (!recipe) return reportError(args.pipeline, recipe.error());
  auto model = loadModel(args.in);
  if (!model) return reportError(args.in, model.error());
  // A model broken as loaded (two producers of a value, an input nothing defines, a cycle) is refused before
  // any pass: passes keep such breakage as they found it, so it used to be saved again with exit 0.
  for (const Diagnostic& diagnostic : verify(**model))
    if (diagnostic.severity == Diagnostic::Severity::Error)
      return reportError(args.in, makeError(diagnostic.message + "; the model is broken before any pass", diagnostic.where));
  // Before any step is printed: a cycle, nesting past the limit, a shape input over the limit.
  if (auto checked = passes::checkBeforePasses(**model); !checked) return reportError(args.in, checked.error());
  std::vector<PathRole> reads{{"the model", args.in}};
  if (passes::isRecipePath(args.pipeline)) reads.push_back({"the recipe", args.pipeline});
  for (PathRole& file : folderInputs("the --inputs file", args.inputs)) reads.push_back(std::move(file));
  for (PathRole& file : externalDataInputs(**model)) reads.push_back(std::move(file));
  if (auto spared = checkOutputsSpareInputs({{"-o", args.out}, {"--save-recipe", args.saveRecipe}}, reads); !spared)
    return reportError(args.out.empty() ? args.saveRecipe : args.out, spared.error());
  if (args.bisect) return bisect(args, **model, *recipe);

  passes::PipelineOptions options;
  options.fixpoint = args.fixpoint;
  options.verify.enabled = args.verify;
  if (!args.inputs.empty() && args.verify) {
    auto set = exec::loadTestDataSet(**model, args.inputs);
    if (!set) return reportError(args.inputs, set.error());
    options.verify.inputs = std::move(set->inputs);
  }
  if (args.measure) {
    auto inputs = debugInputs(**model, args.in, args.inputs, args.bind);
    if (!inputs) return reportError(args.in, inputs.error());
    options.measure = {.enabled = true,
                       .inputs = std::move(inputs->inputs),
                       .bindings = std::move(inputs->bindings),
                       .runs = args.runs,
                       .rtol = args.rtol,
                       .atol = args.atol};
  }
  passes::PassManager manager(**model);
  passes::PipelineResult result = passes::runRecipe(manager, *recipe, options);
  printResult(args, result);
  std::cout.flush();
  if (result.error) return reportError(args.in, *result.error);
  if (!args.saveRecipe.empty()) {
    passes::Recipe applied;
    for (size_t i = 0; i < result.steps.size(); ++i)
      applied.steps.push_back(recipe->steps[i % recipe->steps.size()]);
    if (auto written = writeFileAtomically(args.saveRecipe, passes::recipeToJson(applied)); !written)
      return reportError(args.saveRecipe, written.error());
  }
  auto saved = saveModel(**model, args.out);
  if (!saved) return reportError(args.out, saved.error());
  if (!args.json) std::cout << "saved " << args.out << "\n";
  return std::cout.flush() ? kExitOk : kExitBadInput;
}

}  // namespace

Command optimizeCommand() {
  return {"optimize", "Run optimization passes and save the result, with what each pass did",
          [](CLI::App& app) -> std::function<int()> {
            auto args = std::make_shared<OptimizeArguments>();
            app.add_option("IN", args->in, "The .onnx file to read");
            app.add_option("-o,--output", args->out, "The .onnx file to write (replaced atomically)");
            auto* passesOption =
                app.add_option("--passes", args->passes, "Comma-separated passes to run, in order");
            app.add_option("--pipeline", args->pipeline,
                           "default (the default), or a recipe file (.json) to replay")
                ->excludes(passesOption);
            app.add_option("--save-recipe", args->saveRecipe,
                           "Write the steps applied as a recipe (.json) that --pipeline replays");
            app.add_flag("--measure", args->measure,
                         "Run the model after each step: median latency, peak bytes, nodes, worst error");
            app.add_option("--runs", args->runs, "Timed runs per step for --measure (the median is shown)")
                ->check(CLI::Range(1, 1000));
            app.add_flag("--bisect", args->bisect,
                         "Find the first step, and the first rewrite in it, that breaks the outputs (writes "
                         "nothing)");
            app.add_option("--rewrites", args->rewrites,
                           "Stop each pass after its first K rewrites (the debug counter of the dock's Step "
                           "Into and of --bisect) and list the rewrites each step made")
                ->check(CLI::Range(0, 1000000000));
            app.add_option("--bind", args->bind, "Symbol bindings for random inputs: batch=1,seq=128");
            app.add_option("--rtol", args->rtol, "Relative tolerance of --bisect and --measure (1e-4)");
            app.add_option("--atol", args->atol, "Absolute tolerance of --bisect and --measure (1e-5)");
            app.add_flag("--fixpoint", args->fixpoint, "Repeat the pipeline until a round changes nothing");
            app.add_flag("--list", args->list,
                         "List the passes with their summaries and the default pipeline");
            app.add_flag("--verify", args->verify,
                         "Run the model before and after each pass and report the worst error per output");
            app.add_option("--inputs", args->inputs,
                           "A test_data_set_N folder with inputs for --verify, --measure and --bisect (these "
                           "two use test_data_set_0 beside the model when there is one)");
            app.add_option("--scope", args->scope, "Rewrite only nodes in this name scope: /encoder/layer.0");
            app.add_flag("--json", args->json, "Print the steps as JSON");
            app.add_flag("--time", args->time, "Print each pass's wall time");
            app.add_option("--max-skips", args->maxSkips, "Skipped candidates listed per pass in text output")
                ->check(CLI::Range(0, 1000000));
            return [args] { return optimize(*args); };
          }};
}

}  // namespace onyx::cli
