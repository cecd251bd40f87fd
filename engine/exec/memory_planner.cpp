#include "exec/memory_planner.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "util/limits.h"

namespace onyx::exec {

namespace {
// Requests are checked against the tensor limit before they are recorded, but the limit can be raised to
// anything: clamp so that the arithmetic below cannot overflow (an arena this big fails the run limit).
constexpr int64_t kLargestRequest = int64_t(1) << 56;

int64_t aligned(int64_t bytes) {
  bytes = std::clamp<int64_t>(bytes, 1, kLargestRequest);
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

int64_t endOf(int64_t offset, int64_t bytes) {
  return checkedAdd(offset, bytes).value_or(INT64_MAX);
}
}  // namespace

MemoryPlan planMemory(const std::vector<BufferRequest>& requests) {
  MemoryPlan plan;
  size_t n = requests.size();
  plan.offsets.assign(n, -1);

  // In-place chains share one block: its lifetime is the union, its size the largest member.
  std::vector<int> root(n);
  for (size_t i = 0; i < n; ++i) {
    int r = requests[i].sharesWith;
    root[i] = r >= 0 && size_t(r) < i ? root[size_t(r)] : int(i);
    if (root[i] != int(i)) ++plan.inPlaceCount;
  }
  struct Block {
    int64_t bytes = 0;
    int first = 0, last = 0;
    int64_t offset = -1;
  };
  std::vector<Block> blocks(n);
  std::vector<bool> isRoot(n, false);
  for (size_t i = 0; i < n; ++i) {
    Block& b = blocks[size_t(root[i])];
    if (root[i] == int(i)) {
      isRoot[i] = true;
      b = {aligned(requests[i].bytes), requests[i].firstStep, requests[i].lastStep, -1};
    } else {
      b.bytes = std::max(b.bytes, aligned(requests[i].bytes));
      b.first = std::min(b.first, requests[i].firstStep);
      b.last = std::max(b.last, requests[i].lastStep);
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (isRoot[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });

  std::vector<size_t> placed;
  for (size_t i : order) {
    Block& b = blocks[i];
    // Occupied intervals among placed blocks whose lifetimes overlap, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed) {
      const Block& o = blocks[j];
      if (o.first <= b.last && b.first <= o.last) busy.push_back({o.offset, endOf(o.offset, o.bytes)});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (endOf(offset, b.bytes) <= begin) break;
      offset = std::max(offset, end);
    }
    b.offset = offset;
    plan.arenaBytes = std::max(plan.arenaBytes, endOf(offset, b.bytes));
    placed.push_back(i);
  }
  for (size_t i = 0; i < n; ++i) plan.offsets[i] = blocks[size_t(root[i])].offset;

  // Peak of live bytes over steps (blocks, so in-place pairs count once).
  int maxStep = 0;
  for (size_t i : order) maxStep = std::max(maxStep, blocks[i].last);
  std::vector<int64_t> live(size_t(maxStep) + 2, 0);
  for (size_t i : order) {
    live[size_t(blocks[i].first)] += blocks[i].bytes;
    live[size_t(blocks[i].last) + 1] -= blocks[i].bytes;
  }
  int64_t running = 0;
  for (int s = 0; s <= maxStep; ++s) {
    running = checkedAdd(running, live[size_t(s)]).value_or(INT64_MAX);
    if (running > plan.peakBytes) {
      plan.peakBytes = running;
      plan.peakStep = s;
    }
  }
  if (plan.peakStep >= 0) {
    for (size_t i : order)
      if (blocks[i].first <= plan.peakStep && plan.peakStep <= blocks[i].last)
        plan.aliveAtPeak.push_back(int(i));
  }
  return plan;
}

}  // namespace onyx::exec
