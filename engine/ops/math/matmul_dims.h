#pragma once
// The dims of a matrix product as ONNX MatMul defines them (numpy's matmul), shared by the reference kernel
// (matmul_cpu.cpp) and the oneDNN one (matmul_dnnl_cpu.cpp): a 1-D A is a row [1, K] and a 1-D B a column
// [K, 1], whose added dim the output drops; the batch dims broadcast. Gemm's transposes swap the last two
// dims of A or B. (The shape function, inferMatMul, follows the same rule on symbolic dims.)
#include "exec/tensor_value.h"

namespace onyx::exec {

struct MatmulDims {
  Dims a, b;   // at least 2-D: vectors promoted
  Dims batch;  // the broadcast batch dims
  int64_t m = 0, k = 0, n = 0;
  Dims out;  // the product's dims
};

enum class MatmulMismatch { None, InnerDims, BatchDims };

// Fills `dims` from A's and B's dims (each at least 1-D); says which dims do not fit when they do not.
MatmulMismatch matmulDims(const Dims& a, const Dims& b, bool transA, bool transB, MatmulDims& dims);

}  // namespace onyx::exec
