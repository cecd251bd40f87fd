#include "cli/optimize_debug.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "analysis/bindings_text.h"
#include "exec/compare.h"
#include "util/json_writer.h"

namespace onyx::cli {

Expected<DebugInputs> debugInputs(const Model& model, const std::string& modelPath, const std::string& folder,
                                  const std::string& bindText) {
  DebugInputs result;
  auto bindings = parseBindingsText(bindText);
  if (!bindings) return makeError("--bind: " + bindings.error().message);
  result.bindings = std::move(*bindings);
  std::string chosen = folder;
  if (chosen.empty()) {
    auto beside = std::filesystem::path(modelPath).parent_path() / "test_data_set_0";
    if (std::filesystem::is_directory(beside)) chosen = beside.string();
  }
  if (chosen.empty()) {
    result.source = "random inputs" + (result.bindings.empty() ? std::string() : " with " + bindText);
    return result;
  }
  auto set = exec::loadTestDataSet(model, chosen);
  if (!set) return set.error();
  result.inputs = std::move(set->inputs);
  result.source = chosen;
  return result;
}

namespace {

std::string nodeText(const NodeOrigin& node) {
  return fmt::format("{}{} (#{})", node.opType, node.name.empty() ? "" : " '" + node.name + "'", node.id);
}

std::string nodeListText(const std::vector<NodeOrigin>& nodes) {
  std::string text;
  for (const NodeOrigin& node : nodes) text += (text.empty() ? "" : ", ") + nodeText(node);
  return text.empty() ? "none" : text;
}

std::string nodeJson(const NodeOrigin& node) {
  return fmt::format("{{\"id\":{},\"op\":{},\"name\":{}}}", node.id, jsonQuote(node.opType),
                     jsonQuote(node.name));
}

std::string nodeListJson(const std::vector<NodeOrigin>& nodes) {
  std::string json = "[";
  for (size_t i = 0; i < nodes.size(); ++i) json += (i ? "," : "") + nodeJson(nodes[i]);
  return json + "]";
}

std::string errorsJson(const std::vector<passes::OutputError>& errors) {
  std::string json = "[";
  for (size_t i = 0; i < errors.size(); ++i)
    json +=
        fmt::format("{}{{\"output\":{},\"max_abs_error\":{},\"max_rel_error\":{},\"ok\":{}}}", i ? "," : "",
                    jsonQuote(errors[i].output), errors[i].maxAbsError, errors[i].maxRelError, errors[i].ok);
  return json + "]";
}

void printErrors(const std::vector<passes::OutputError>& errors) {
  for (const auto& error : errors)
    std::cout << fmt::format("  output '{}': max abs error {:.3g}, max rel error {:.3g}{}\n", error.output,
                             error.maxAbsError, error.maxRelError, error.ok ? "" : ": " + error.reason);
}

}  // namespace

void printBisect(const passes::BisectResult& result, const passes::BisectOptions& options,
                 const DebugInputs& inputs, size_t pipelineSize, bool json) {
  if (json) {
    std::string text =
        fmt::format("{{\"inputs\":{},\"rtol\":{},\"atol\":{},\"broken\":{},\"steps_run\":{}",
                    jsonQuote(inputs.source), options.rtol, options.atol, result.broken, result.stepsRun);
    if (result.broken) {
      text += fmt::format(",\"step\":{},\"pass\":{},\"round\":{},\"rewrites_in_step\":{}", result.step,
                          jsonQuote(result.pass), result.round, result.rewritesInStep);
      if (result.rewriteFound) {
        const auto& r = result.rewrite;
        text += fmt::format(
            ",\"rewrite\":{{\"index\":{},\"root\":{},\"removed\":{},\"added\":{},\"modified\":{},\"errors\":{"
            "}}}",
            r.index, nodeJson(r.root), nodeListJson(r.removed), nodeListJson(r.added),
            nodeListJson(r.modified), errorsJson(result.rewriteErrors));
      } else {
        text += ",\"rewrite\":null,\"why_no_rewrite\":" + jsonQuote(result.whyNoRewrite);
      }
    }
    text += fmt::format(",\"errors\":{},\"model_runs\":{}}}\n", errorsJson(result.errors), result.modelRuns);
    std::cout << text;
    return;
  }
  std::cout << fmt::format("bisect on {} (rtol {:g}, atol {:g})\n", inputs.source, options.rtol,
                           options.atol);
  if (!result.broken) {
    std::cout << fmt::format("no step breaks the outputs: all {} steps keep them within tolerance\n",
                             result.stepsRun);
    printErrors(result.errors);
    std::cout << fmt::format("model runs: {}\n", result.modelRuns);
    return;
  }
  std::cout << fmt::format("first breaking step: {} of {}, {}{}\n", result.step, pipelineSize, result.pass,
                           result.round > 1 ? fmt::format(" (round {})", result.round) : "");
  printErrors(result.errors);
  if (!result.rewriteFound) {
    std::cout << "no single rewrite: " << result.whyNoRewrite << "\n";
  } else {
    const auto& r = result.rewrite;
    std::cout << fmt::format("first breaking rewrite: {} of {} (rewrites 1..{} keep the outputs)\n", r.index,
                             result.rewritesInStep, r.index - 1);
    std::cout << "  at: " << nodeText(r.root) << "\n";
    std::cout << "  removed: " << nodeListText(r.removed) << "\n";
    std::cout << "  added: " << nodeListText(r.added) << "\n";
    if (!r.modified.empty()) std::cout << "  modified: " << nodeListText(r.modified) << "\n";
    std::cout << fmt::format("with rewrites 1..{}:\n", r.index);
    printErrors(result.rewriteErrors);
  }
  std::cout << fmt::format("model runs: {}\n", result.modelRuns);
}

std::string costJson(const passes::StepCost& cost) {
  if (!cost.ran)
    return fmt::format("{{\"ran\":false,\"reason\":{},\"nodes\":{}}}", jsonQuote(cost.notRunReason),
                       cost.nodes);
  return fmt::format(
      "{{\"ran\":true,\"median_ms\":{:.4f},\"min_ms\":{:.4f},\"peak_bytes\":{},\"nodes\":{},"
      "\"max_abs_error\":{},\"max_rel_error\":{},\"within_tolerance\":{}}}",
      cost.medianMs, cost.minMs, cost.peakBytes, cost.nodes, cost.maxAbsError, cost.maxRelError,
      cost.withinTolerance);
}

namespace {
std::string costRow(const std::string& label, size_t width, const passes::StepCost& cost) {
  if (!cost.ran)
    return fmt::format("{:<{}} {:>6}  not run: {}\n", label, width, cost.nodes, cost.notRunReason);
  return fmt::format("{:<{}} {:>6} {:>10.2f} {:>8.2f} {:>10.1f} {:>10.3g} {}\n", label, width, cost.nodes,
                     cost.medianMs, cost.minMs, double(cost.peakBytes) / 1024.0, cost.maxAbsError,
                     cost.withinTolerance ? "ok" : "beyond tolerance");
}
}  // namespace

void printMeasureTable(const passes::PipelineResult& result) {
  std::vector<std::pair<std::string, const passes::StepCost*>> rows;
  if (result.baseline) rows.push_back({"(original)", &*result.baseline});
  for (size_t i = 0; i < result.steps.size(); ++i) {
    const auto& step = result.steps[i];
    if (step.cost)
      rows.push_back(
          {fmt::format("{:>2}. {}{}", i + 1, step.pass, step.changed ? "" : " (no change)"), &*step.cost});
  }
  size_t width = 4;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  std::cout << fmt::format("{:<{}} {:>6} {:>10} {:>8} {:>10} {:>10}\n", "step", width, "nodes", "median ms",
                           "min ms", "peak KiB", "max error");
  for (const auto& [label, cost] : rows) std::cout << costRow(label, width, *cost);
}

std::string rewriteText(const passes::RewriteRecord& rewrite) {
  std::string text = fmt::format("rewrite {} at {}: removed {}; added {}", rewrite.index, nodeText(rewrite.root),
                                 nodeListText(rewrite.removed), nodeListText(rewrite.added));
  if (!rewrite.modified.empty()) text += "; modified " + nodeListText(rewrite.modified);
  return text;
}

std::string rewriteJson(const passes::RewriteRecord& rewrite) {
  return fmt::format("{{\"index\":{},\"root\":{},\"removed\":{},\"added\":{},\"modified\":{}}}", rewrite.index,
                     nodeJson(rewrite.root), nodeListJson(rewrite.removed), nodeListJson(rewrite.added),
                     nodeListJson(rewrite.modified));
}

}  // namespace onyx::cli
