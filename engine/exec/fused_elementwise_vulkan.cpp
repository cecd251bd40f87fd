// The Vulkan kernel of fused element-wise nodes (fused_elementwise_vulkan.comp): the onyx.fused function's
// body compiled to the same register program as the CPU's fused kernel (fused_elementwise.h), run in one
// dispatch. Bodies with more than 8 inputs or 32 registers, or inputs that broadcast over more than 6 dims,
// fall back to the CPU.
#include <bit>

#include "exec/fused_elementwise.h"
#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ir/model.h"

namespace onyx::exec::vulkan {
namespace {

constexpr int kMaxInputs = 8;
constexpr int kMaxRegisters = 32;
constexpr int kCode = kMaxInputs * kMaxRank;  // the strides come first
constexpr int kInstruction = 7;

std::optional<ElementwiseProgram> programOf(const Node& node) {
  const Model* model = node.graph() ? node.graph()->model() : nullptr;
  const Function* function = model ? model->findFunction(node.domain(), node.opType(), node.overload()) : nullptr;
  if (!function || !function->body) return std::nullopt;
  return compileElementwiseBody(*function->body);
}

bool supportsFused(const Node& node, int) {
  auto program = programOf(node);
  return program && program->inputCount <= kMaxInputs && program->registerCount <= kMaxRegisters &&
         program->inputCount == int(node.inputCount());
}

Expected<void> runFused(VulkanRun& run) {
  auto program = programOf(run.node());
  if (!program) return run.fallback("the function body is not a plain element-wise chain");
  std::vector<const Dims*> shapes;
  for (int k = 0; k < program->inputCount; ++k) {
    if (!run.hasInput(size_t(k))) return run.error("input " + std::to_string(k) + " is missing");
    shapes.push_back(&run.input(size_t(k)).dims());
  }
  auto dims = broadcastShapes(shapes);
  if (!dims) return run.error("the inputs do not broadcast together");
  const TensorValue& first = run.input(0);
  auto y = run.output(0, first.dtype(), *dims);
  if (!y) return y.error();
  if (y->count() == 0) return {};

  Dims collapsed = *dims;
  std::vector<Dims> strides;
  for (int k = 0; k < program->inputCount; ++k) strides.push_back(broadcastStridesTo(*shapes[size_t(k)], *dims));
  std::vector<Dims*> strideLists;
  for (Dims& s : strides) strideLists.push_back(&s);
  collapseDims(collapsed, strideLists);
  if (collapsed.size() > size_t(kMaxRank)) return run.fallback("the inputs broadcast over more than 6 dims");

  TensorValue code = TensorValue::allocate(DataType::Int32, {kCode + kInstruction * int64_t(program->code.size())});
  int32_t* words = code.data<int32_t>();
  std::fill(words, words + code.count(), 0);
  for (int k = 0; k < program->inputCount; ++k)
    for (size_t d = 0; d < collapsed.size(); ++d) words[k * kMaxRank + int(d)] = int32_t(strides[size_t(k)][d]);
  int32_t* at = words + kCode;
  for (const ElementwiseProgram::Instruction& in : program->code) {
    at[0] = int32_t(in.op);
    at[1] = in.a;
    at[2] = in.b;
    at[3] = in.c;
    at[4] = in.result;
    at[5] = std::bit_cast<int32_t>(in.alpha);
    at[6] = std::bit_cast<int32_t>(in.beta);
    at += kInstruction;
  }
  auto device = run.upload(code);
  if (!device) return device.error();

  Push push;
  push.add(y->count()).add(int64_t(collapsed.size())).add(program->inputCount).add(int64_t(program->code.size()));
  push.add(program->output);
  for (int64_t d : collapsed) push.add(d);
  std::vector<const TensorValue*> tensors = {&*device};
  for (int k = 0; k < kMaxInputs; ++k) tensors.push_back(&run.input(size_t(k < program->inputCount ? k : 0)));
  tensors.push_back(&*y);
  return run.dispatch("fused_elementwise_vulkan", {}, tensors, push, y->count(), first.dtype() == DataType::Float16);
}

}  // namespace

void registerFusedVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef def{"", 1};
  def.domain = "onyx.fused";
  def.function = runFused;
  def.supports = supportsFused;
  registry.add(std::move(def));
}

}  // namespace onyx::exec::vulkan
