#include "ops/rnn/rnn_checks.h"

#include <string>

#include "util/limits.h"

namespace onyx::exec {

Expected<void> checkRecurrentOperands(const KernelContext& ctx, const RecurrentDims& d) {
  const TensorValue& W = ctx.input(1);
  const TensorValue& R = ctx.input(2);
  const int64_t H = d.hidden, G = d.gates;
  // hidden_size comes from the file: 2^62 would overflow G * H.
  if (H < 0 || !checkedMul(G, H)) return ctx.error("hidden_size " + std::to_string(H) + " is out of range");
  if (W.rank() != 3 || W.dim(0) != d.dirs || W.dim(1) != G * H || W.dim(2) != d.inputSize)
    return ctx.error("W " + W.describe() + " does not match the input size and hidden_size", 1);
  if (R.rank() != 3 || R.dim(0) != d.dirs || R.dim(1) != G * H || R.dim(2) != H)
    return ctx.error("R " + R.describe() + " does not match hidden_size " + std::to_string(H), 2);
  auto expectCount = [&](size_t i, int64_t count, const char* what) -> Expected<void> {
    if (ctx.hasInput(i) && ctx.input(i).count() != count)
      return ctx.error(std::string(what) + " " + ctx.input(i).describe() + " should hold " + std::to_string(count) +
                           " values",
                       int(i));
    return {};
  };
  if (auto e = expectCount(3, d.dirs * 2 * G * H, "B"); !e) return e;
  if (ctx.hasInput(4) && ctx.input(4).count() != d.batch)
    return ctx.error("sequence_lens " + ctx.input(4).describe() + " must hold one length per batch row (" +
                         std::to_string(d.batch) + ")",
                     4);
  if (auto e = expectCount(5, d.dirs * d.batch * H, "initial_h"); !e) return e;
  if (d.lstm) {
    if (auto e = expectCount(6, d.dirs * d.batch * H, "initial_c"); !e) return e;
    if (auto e = expectCount(7, d.dirs * 3 * H, "P"); !e) return e;
  }
  return {};
}

}  // namespace onyx::exec
