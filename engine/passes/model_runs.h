#pragma once
// Running a model for the numeric checks around passes: the step check of the pass manager (--verify), the
// bisection of a broken pipeline and the cost of each step all run the model on the CPU executor on the
// same inputs and compare its outputs with a reference.
#include <cstdint>
#include <vector>

#include "exec/compare.h"
#include "exec/executor.h"
#include "passes/pass_manager.h"

namespace onyx::passes {

// `given` when not empty; else random inputs for every graph input (exec::randomInput), symbolic dims from
// `bindings`, dims without a binding 1 (the smallest size every exporter's model accepts), seeded with
// `seed`.
Expected<exec::NamedValues> checkInputs(const Model& model, const exec::NamedValues& given,
                                        const SymBindings& bindings, uint64_t seed);

// Runs the main graph once (no arena), returning outputs that outlive the executor.
Expected<std::vector<exec::RunValue>> runForCheck(const Model& model, const exec::NamedValues& inputs);

// The worst error of each output of `model` against `reference`; a count mismatch is an error entry too.
std::vector<OutputError> compareOutputs(const Model& model, const std::vector<exec::RunValue>& outputs,
                                        const std::vector<exec::RunValue>& reference,
                                        const exec::Tolerance& tolerance);

// The first output that is not ok, or null.
const OutputError* firstMismatch(const std::vector<OutputError>& errors);

}  // namespace onyx::passes
