// The misc family: signal processing, strings, ai.onnx.ml and ai.onnx.preview.training. Its one registration
// function: the schema table, then each op's CPU kernels (reference before its fast variants: among kernels
// of equal priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerMiscSchemas(OpRegistry& registry);  // misc_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerStringCpuKernels(KernelRegistry& registry);  // string_cpu.cpp
void registerTfIdfVectorizerCpuKernels(KernelRegistry& registry);  // tfidf_vectorizer_cpu.cpp
void registerTrainingCpuKernels(KernelRegistry& registry);  // training_cpu.cpp
void registerGradientCpuKernels(KernelRegistry& registry);  // gradient_cpu.cpp
void registerMlCpuKernels(KernelRegistry& registry);  // ml_cpu.cpp
void registerSignalCpuKernels(KernelRegistry& registry);  // signal_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::misc {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerMiscSchemas);
  registrar.add(exec::registerStringCpuKernels);  // StringConcat, StringSplit, RegexFullMatch...
  registrar.add(exec::registerTfIdfVectorizerCpuKernels);  // TfIdfVectorizer
  registrar.add(exec::registerTrainingCpuKernels);  // Adagrad, Momentum, Adam
  registrar.add(exec::registerGradientCpuKernels);  // Gradient
  registrar.add(exec::registerMlCpuKernels);  // ai.onnx.ml
  registrar.add(exec::registerSignalCpuKernels);  // DFT, STFT, windows, MelWeightMatrix
}

}  // namespace onyx::ops::misc
