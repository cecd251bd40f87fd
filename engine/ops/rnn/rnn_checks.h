#pragma once
// The operand shapes RNN, GRU and LSTM need (W, R, B, sequence_lens, initial_h, initial_c, P), checked once for
// both kernels: the reference kernel, which takes every float type, used to read a short B or initial state
// past its end (fuzz_run: a short B of a double-typed GRU under ASan).
#include <cstdint>

#include "exec/kernel.h"

namespace onyx::exec {

struct RecurrentDims {
  int64_t gates = 1;  // 4 for LSTM, 3 for GRU, 1 for RNN
  int64_t dirs = 1, batch = 0, inputSize = 0, hidden = 0;
  bool lstm = false;  // initial_c and P are LSTM's
};

Expected<void> checkRecurrentOperands(const KernelContext& ctx, const RecurrentDims& dims);

}  // namespace onyx::exec
