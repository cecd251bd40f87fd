#include "layout/layout_service.h"

#include <cstdio>
#include <limits>

#include "layout/graphviz_runner.h"
#include "layout/layered_layout.h"

namespace onyx::layout {

namespace {
// Levels of groups merge many values into edges between the same boxes: default dot slows down steeply
// with them (ssdlite's top level, 86 items and 232 edges: 3.4 s default, 0.44 s fast), so a level with
// more than two edges per item gets the fast profile whatever its size (unless the policy never goes fast).
constexpr double kDenseEdgesPerItem = 2.0;
bool isDense(const LevelView& level) {
  return static_cast<double>(level.edges.size()) > kDenseEdgesPerItem * static_cast<double>(level.items.size());
}

Error cancelledError() {
  return makeError("layout cancelled");
}

}  // namespace

LayoutKey LayoutKey::of(const LevelRequest& request, uint64_t document, uint64_t revision) {
  LayoutKey key;
  key.document = document;
  key.graph = request.graph;
  key.scopePath = request.scopePath;
  key.expandedScopes = request.expandedScopes;
  key.expandAll = request.expandAll;
  key.collapseThreshold = request.collapseThreshold;
  key.revision = revision;
  return key;
}

std::string LayoutKey::toString() const {
  char head[96];
  std::snprintf(head, sizeof head, "%llu/%p/%llu/%zu/%d|", static_cast<unsigned long long>(document),
                static_cast<const void*>(graph), static_cast<unsigned long long>(revision), collapseThreshold,
                expandAll ? 1 : 0);
  // Lengths make the joined paths unambiguous whatever characters scope names hold.
  std::string text = head + std::to_string(scopePath.size()) + ":" + scopePath;
  for (const std::string& path : expandedScopes) text += "|" + std::to_string(path.size()) + ":" + path;
  return text;
}

void LayoutJob::cancel() {
  cancelled_.store(true);
  settle(cancelledError(), LayoutPhase::Cancelled);
}

void LayoutJob::report(LayoutPhase phase, double fraction) {
  phase_.store(phase);
  if (progress_) progress_(phase, fraction);
}

void LayoutJob::settle(LayoutOutcome outcome, LayoutPhase phase) {
  {
    std::lock_guard lock(settleMutex_);
    if (settled_) return;
    settled_ = true;
  }
  phase_.store(phase);
  // Callbacks first: whoever waits on the future sees everything they did.
  if (progress_) progress_(phase, 1.0);
  if (completion_) completion_(outcome);
  promise_.set_value(std::move(outcome));
}

LayoutService::LayoutService(LayoutOptions options) : options_(std::move(options)) {
  worker_ = std::thread([this] { workerLoop(); });
}

LayoutService::~LayoutService() {
  std::deque<std::shared_ptr<LayoutJob>> abandoned;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    abandoned.swap(queue_);
  }
  wake_.notify_all();
  for (auto& job : abandoned) job->cancel();
  worker_.join();
}

std::shared_ptr<LayoutJob> LayoutService::submit(const LayoutKey& key, std::shared_ptr<const LevelView> level,
                                                 ProgressCallback progress, CompletionCallback completion,
                                                 std::shared_ptr<const LevelLayout> around) {
  auto job = std::make_shared<LayoutJob>();
  job->key_ = key.toString();
  job->level_ = std::move(level);
  job->around_ = std::move(around);
  job->progress_ = std::move(progress);
  job->completion_ = std::move(completion);
  job->future_ = job->promise_.get_future().share();
  std::shared_ptr<const LevelLayout> hit;
  {
    std::lock_guard lock(mutex_);
    hit = lookup(job->key_, job->level_.get());
  }
  if (hit) {
    job->fromCache_ = true;
    job->settle(hit, LayoutPhase::Done);
    return job;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(job);
  }
  job->report(LayoutPhase::Queued, 0.0);
  wake_.notify_one();
  return job;
}

LayoutOutcome LayoutService::layoutNow(const LayoutKey& key, std::shared_ptr<const LevelView> level,
                                       std::shared_ptr<const LevelLayout> around) {
  return submit(key, std::move(level), {}, {}, std::move(around))->wait();
}

std::shared_ptr<const LevelLayout> LayoutService::cached(const LayoutKey& key) {
  std::lock_guard lock(mutex_);
  return lookup(key.toString(), nullptr);
}

std::shared_ptr<const LevelLayout> LayoutService::lookup(const std::string& key, const LevelView* level) {
  auto it = cacheIndex_.find(key);
  if (it == cacheIndex_.end()) return nullptr;
  const LevelView& cachedLevel = *it->second->second->level;
  // A key reused for another level (a document id given twice) must not hand back the wrong picture.
  if (level &&
      (cachedLevel.items.size() != level->items.size() || cachedLevel.edges.size() != level->edges.size())) {
    return nullptr;
  }
  cache_.splice(cache_.begin(), cache_, it->second);
  ++stats_.cacheHits;
  return it->second->second;
}

void LayoutService::clearCache() {
  std::lock_guard lock(mutex_);
  cache_.clear();
  cacheIndex_.clear();
}

LayoutStats LayoutService::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void LayoutService::remember(const std::string& key, std::shared_ptr<const LevelLayout> layout) {
  std::lock_guard lock(mutex_);
  if (auto it = cacheIndex_.find(key); it != cacheIndex_.end()) {
    cache_.erase(it->second);
    cacheIndex_.erase(it);
  }
  cache_.emplace_front(key, std::move(layout));
  cacheIndex_[key] = cache_.begin();
  while (cache_.size() > options_.cacheCapacity) {
    cacheIndex_.erase(cache_.back().first);
    cache_.pop_back();
  }
}

void LayoutService::workerLoop() {
  for (;;) {
    std::shared_ptr<LayoutJob> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    run(*job);
  }
}

void LayoutService::run(LayoutJob& job) {
  if (job.isCancelled()) {
    std::lock_guard lock(mutex_);
    ++stats_.cancelled;
    return;
  }
  // The same level may have been laid out while this job waited behind another asking for it.
  std::shared_ptr<const LevelLayout> earlier;
  {
    std::lock_guard lock(mutex_);
    earlier = lookup(job.key_, job.level_.get());
  }
  if (earlier) {
    job.fromCache_ = true;
    job.settle(earlier, LayoutPhase::Done);  // outside the lock: callbacks may call back into the service
    return;
  }
  if (job.around_) {
    job.report(LayoutPhase::Building, 0.05);
    if (std::optional<LevelLayout> kept = layoutAround(*job.around_, job.level_, options_.stable)) {
      auto layout = std::make_shared<const LevelLayout>(std::move(*kept));
      {
        std::lock_guard lock(mutex_);
        ++stats_.keptLayouts;
      }
      remember(job.key_, layout);
      job.settle(layout, LayoutPhase::Done);
      return;
    }
  }
  DotProfile profile = chooseProfile(job.level_->items.size(), options_.policy);
  if (profile == DotProfile::Quality && isDense(*job.level_) &&
      options_.policy.fastAbove != std::numeric_limits<size_t>::max()) {
    profile = DotProfile::Fast;
  }
  DotRunHooks hooks{
      .cancelled = [&job] { return job.isCancelled(); },
      .progress =
          [this, &job](LayoutPhase phase, double fraction) {
            if (phase == LayoutPhase::RunningDot) {
              std::lock_guard lock(mutex_);
              ++stats_.dotRuns;
            }
            job.report(phase, fraction);
          },
  };
  Expected<std::optional<LevelLayout>> result = [&]() -> Expected<std::optional<LevelLayout>> {
    if (profile == DotProfile::Layered) return std::optional<LevelLayout>(layeredLayout(job.level_));
    std::lock_guard graphviz(graphvizLock());
    return runDot(job.level_, profile, hooks);
  }();
  if (!result.ok()) {
    {
      std::lock_guard lock(mutex_);
      ++stats_.failed;
    }
    job.settle(result.error(), LayoutPhase::Failed);
    return;
  }
  if (!result.value()) {
    std::lock_guard lock(mutex_);
    ++stats_.cancelled;
    return;  // settled by cancel()
  }
  auto layout = std::make_shared<const LevelLayout>(std::move(*result.value()));
  remember(job.key_, layout);
  job.settle(layout, LayoutPhase::Done);
}

}  // namespace onyx::layout
