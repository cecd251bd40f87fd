#pragma once
// A purely element-wise function body (what elementwise-fusion writes into domain onyx.fused) compiled to a
// small register program and evaluated in one pass over the output: blocks of the innermost dim are loaded
// once (broadcast inputs as strides of 0), every op runs over the block in a vectorisable loop, and only the
// result is written. Sigmoid, Tanh, Exp and Erf use the same vectorised approximations as the fast unfused
// kernels (exec/cpu/fast_math.h). float32 only; other types run the body op by op.
#include <optional>
#include <string>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

// Whether the executor's fused kernel evaluates this ai.onnx node: the op is element-wise (with
// multidirectional broadcasting, or scalar Clip bounds), and its attributes are ones the kernel reads.
bool isFusibleElementwise(const Node& node);

struct ElementwiseProgram {
  enum class Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    PRelu,
    Relu,
    LeakyRelu,
    Sigmoid,
    HardSigmoid,
    HardSwish,
    Tanh,
    Exp,
    Log,
    Sqrt,
    Neg,
    Abs,
    Erf,
    Reciprocal,
    Floor,
    Ceil,
    Clip,
  };
  struct Instruction {
    Op op;
    int a = -1, b = -1, c = -1;  // registers; -1 absent (Clip bounds)
    int result = 0;
    float alpha = 0, beta = 0;
  };
  int inputCount = 0;  // registers [0, inputCount) are the function inputs
  int registerCount = 0;
  int output = 0;  // register holding the result
  std::vector<Instruction> code;
};

// The program for a function body with one output whose nodes are all fusible; nullopt otherwise.
std::optional<ElementwiseProgram> compileElementwiseBody(const Graph& body);
// Runs the program on float32 inputs (broadcast together) into output 0 of the context.
Expected<void> runElementwiseProgram(const ElementwiseProgram& program, KernelContext& context);

}  // namespace onyx::exec
